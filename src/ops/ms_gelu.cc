// com.mstools Gelu: y = x * Phi(x) ("none", erf form) or 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
// ("tanh").
//   inputs     X
//   attributes approximate ("none" | "tanh")
// ONNX has Gelu only from opset 20 and the canonical opset is 17, so the optimizer's GELU fusion
// writes this op, which exports validly; its kernel is ONNX Gelu's.
#include "ops/kernel_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {

void register_op_ms_gelu(OpRegistry& r) {
  r.add(OpDef("Gelu", kMsDomain)
            .inputs(1)
            .outputs(1)
            .attr_string("approximate", "none")
            .trait(kTraitElementwise | kTraitUnary)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              ctx.set_output(0, call_reference("Gelu", {ctx.input(0)}, {{"approximate", Attribute::of_string(ctx.attr_string("approximate"))}},
                                               ctx.opset(), ctx.node().name)[0]);
            }));
}

}  // namespace ms
