// MatMulInteger: y = (A - a_zero_point) @ (B - b_zero_point) with numpy batching, exact int32 output.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_mat_mul_integer(OpRegistry& r) {
  r.add(OpDef("MatMulInteger")
            .inputs(2, 4)
            .outputs(1)
            .trait(kTraitQuantized)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& a = ctx.input_type(0);
              const TypeInfo& b = ctx.input_type(1);
              if (!a.shape || !b.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(DType::Int32));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(DType::Int32, infer_matmul_dims(*a.shape, *b.shape, ctx.node())));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor& b = ctx.input(1);
              const int64_t M = a.rank() >= 2 ? a.dim(-2) : 1, N = b.rank() >= 2 ? b.dim(-1) : 1;
              MatMulPlan p;
              const auto acc = matmul_integer_acc(a, b, zero_points(ctx, 2, M, "a_zero_point"),
                                                  zero_points(ctx, 3, N, "b_zero_point"), ctx.node(), p);
              Tensor y(DType::Int32, p.out);
              int32_t* yp = y.data<int32_t>();
              for (size_t i = 0; i < acc.size(); ++i) yp[i] = int32_t(acc[i]);
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
