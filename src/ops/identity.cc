// Identity: y = x (tensors, sequences and optionals pass through unchanged).
#include "ops/kernel_util.h"

namespace ms {

void register_op_identity(OpRegistry& r) {
  r.add(OpDef("Identity").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .trait(kTraitElementwise | kTraitUnary)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) { ctx.set_output_value(0, ctx.input_value(0)); }));
}

}  // namespace ms
