// Relu: y = max(x, 0).
#include "ops/kernel_util.h"

namespace ms {

void register_op_relu(OpRegistry& r) {
  r.add(OpDef("Relu").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .trait(kTraitElementwise | kTraitUnary)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              Tensor y(x.dtype(), x.shape());
              dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* in = x.data<T>();
                T* out = y.data<T>();
                for (int64_t i = 0; i < x.numel(); ++i) out[i] = float(in[i]) > 0 ? in[i] : T(0);
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
