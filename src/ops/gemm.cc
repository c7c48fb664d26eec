// Gemm: y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (M x K), B' likewise (K x N), C
// optional and unidirectionally broadcast to M x N.
#include "ops/reduce_util.h"

namespace ms {

void register_op_gemm(OpRegistry& r) {
  r.add(OpDef("Gemm").trait(kTraitHalfCompute)
            .inputs(2, 3)
            .outputs(1)
            .attr_float("alpha", 1.0f)
            .attr_float("beta", 1.0f)
            .attr_int("transA", 0)
            .attr_int("transB", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& a = ctx.input_type(0);
              const TypeInfo& b = ctx.input_type(1);
              if (!a.shape || !b.shape || a.shape->size() != 2 || b.shape->size() != 2) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(a.dtype));
                return;
              }
              Dim m = (*a.shape)[ctx.attr_int("transA") ? 1 : 0], n = (*b.shape)[ctx.attr_int("transB") ? 0 : 1];
              ctx.set_output_type(0, TypeInfo::tensor(a.dtype, std::vector<Dim>{m, n}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor& b = ctx.input(1);
              const std::string label = ctx.node().label();
              if (a.rank() != 2 || b.rank() != 2)
                fail("{}: A and B must be 2-D, got {} and {}", label, shape_str(a.shape()), shape_str(b.shape()));
              if (a.dtype() != b.dtype()) fail("{}: A and B dtypes differ", label);
              const bool ta = ctx.attr_int("transA") != 0, tb = ctx.attr_int("transB") != 0;
              const int64_t M = ta ? a.dim(1) : a.dim(0), K = ta ? a.dim(0) : a.dim(1);
              const int64_t K2 = tb ? b.dim(1) : b.dim(0), N = tb ? b.dim(0) : b.dim(1);
              if (K != K2) fail("{}: inner dimensions {} and {} differ", label, K, K2);
              const Shape out_shape{M, N};
              std::vector<int64_t> coff;
              const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              if (c) {
                if (broadcast_shapes({c->shape(), out_shape}, ctx.node()) != out_shape)
                  fail("{}: C of shape {} does not broadcast to {}", label, shape_str(c->shape()), shape_str(out_shape));
                coff = broadcast_offsets(c->shape(), out_shape);
              }
              const double alpha = ctx.attr_float("alpha"), beta = ctx.attr_float("beta");
              Tensor y(a.dtype(), out_shape);
              dispatch_all_numeric(a.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                using A = acc_t<T>;
                const T* pa = a.data<T>();
                const T* pb = b.data<T>();
                const T* pc = c ? static_cast<const T*>(c->raw()) : nullptr;
                if (c && c->dtype() != a.dtype()) fail("{}: C dtype differs from A", label);
                T* py = y.data<T>();
                for (int64_t m = 0; m < M; ++m)
                  for (int64_t n = 0; n < N; ++n) {
                    A acc = A(0);
                    for (int64_t k = 0; k < K; ++k)
                      acc += to_acc<A>(pa[ta ? k * M + m : m * K + k]) * to_acc<A>(pb[tb ? n * K + k : k * N + n]);
                    A cv = pc ? to_acc<A>(pc[coff[m * N + n]]) : A(0);
                    if constexpr (std::is_floating_point_v<A>)
                      py[m * N + n] = from_acc<T>(alpha * acc + beta * cv);
                    else  // integer Gemm stays exact: alpha and beta are whole numbers in practice
                      py[m * N + n] = from_acc<T>(static_cast<A>(alpha) * acc + static_cast<A>(beta) * cv);
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
