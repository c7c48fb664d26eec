// com.mstools FusedGemm: Y = act(alpha * A' * B' + beta * C)
//   inputs     A, B, C (optional), as ONNX Gemm
//   attributes alpha, beta, transA, transB (as ONNX Gemm); activation, activation_params
//              (ops/fused_activation.h)
// Produced by the optimizer's Gemm + activation fusion.
#include "ops/fused_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {

void register_op_fused_gemm(OpRegistry& r) {
  OpDef def("FusedGemm", kMsDomain);
  def.inputs(2, 3).outputs(1).attr_float("alpha", 1.0f).attr_float("beta", 1.0f).attr_int("transA", 0).attr_int("transB", 0);
  with_fused_activation(def)
      .infer_fn([](InferContext& ctx) { infer_as(ctx, "Gemm"); })
      .kernel_fn([](KernelContext& ctx) {
        const FusedActivation act = fused_activation_attrs(ctx);
        Tensor c = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Tensor y = call_reference("Gemm", {ctx.input(0), ctx.input(1), c}, base_op_attrs(ctx.node()), ctx.opset(),
                                  ctx.node().name)[0];
        ctx.set_output(0, apply_fused_activation(act, y, ctx.opset(), ctx.node().name));
      });
  r.add(std::move(def));
}

}  // namespace ms
