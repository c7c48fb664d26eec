// QLinearMatMul: y = saturate(round(((a - a_zp) @ (b - b_zp)) * a_scale * b_scale / y_scale) + y_zp),
// a parameters per tensor or per row, b parameters per tensor or per column.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_qlinear_mat_mul(OpRegistry& r) {
  r.add(OpDef("QLinearMatMul")
            .inputs(8)
            .outputs(1)
            .trait(kTraitQuantized)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& a = ctx.input_type(0);
              const TypeInfo& b = ctx.input_type(3);
              const DType dt = ctx.input_type(7).dtype;
              if (!a.shape || !b.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(dt, infer_matmul_dims(*a.shape, *b.shape, ctx.node())));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor& b = ctx.input(3);
              const std::string label = ctx.node().label();
              const int64_t M = a.rank() >= 2 ? a.dim(-2) : 1, N = b.rank() >= 2 ? b.dim(-1) : 1;
              const auto as = ctx.input(1).to_double_vector(), bs = ctx.input(4).to_double_vector();
              if (as.size() != 1 && int64_t(as.size()) != M) fail("{}: a_scale has {} values, expected 1 or {}", label, as.size(), M);
              if (bs.size() != 1 && int64_t(bs.size()) != N) fail("{}: b_scale has {} values, expected 1 or {}", label, bs.size(), N);
              const double ys = ctx.input(6).as_double(0);
              const Tensor& yzp = ctx.input(7);
              const int64_t yz = yzp.as_int64(0);
              MatMulPlan p;
              const auto acc = matmul_integer_acc(a, b, zero_points(ctx, 2, M, "a_zero_point"),
                                                  zero_points(ctx, 5, N, "b_zero_point"), ctx.node(), p);
              Tensor y(yzp.dtype(), p.out);
              dispatch_quant(yzp.dtype(), label, [&](auto tag) {
                using Q = typename decltype(tag)::type;
                Q* yp = y.data<Q>();
                for (size_t k = 0; k < acc.size(); ++k) {
                  const int64_t i = (int64_t(k) / p.N) % p.M, j = int64_t(k) % p.N;
                  const float mult = float(as[as.size() == 1 ? 0 : i]) * float(bs[bs.size() == 1 ? 0 : j]) / float(ys);
                  yp[k] = saturate_round<Q>(double(std::nearbyint(float(acc[k]) * mult)) + double(yz));
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
