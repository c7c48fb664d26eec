// com.mstools FusedMatMul: Y = act(MatMul(A, B) + bias)
//   inputs     A, B (numpy matmul, as ONNX MatMul), bias (optional, 1-D over the last output
//              dim: what a Linear layer adds)
//   attributes activation, activation_params (ops/fused_activation.h)
// Produced by the optimizer's MatMul + Add and MatMul + activation fusions (transformer FFNs,
// where A is 3-D and Gemm does not apply).
#include "ops/fused_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {

void register_op_fused_mat_mul(OpRegistry& r) {
  OpDef def("FusedMatMul", kMsDomain);
  def.inputs(2, 3).outputs(1);
  with_fused_activation(def)
      .infer_fn([](InferContext& ctx) { infer_as(ctx, "MatMul"); })
      .kernel_fn([](KernelContext& ctx) {
        const FusedActivation act = fused_activation_attrs(ctx);
        const std::string& name = ctx.node().name;
        Tensor y = call_reference("MatMul", {ctx.input(0), ctx.input(1)}, {}, ctx.opset(), name)[0];
        if (ctx.has_input(2)) {
          const Tensor& bias = ctx.input(2);
          if (bias.rank() != 1 || y.rank() == 0 || bias.dim(0) != y.dim(-1))
            fail("{}: bias of shape {} must be 1-D with the last dimension of the product {}", ctx.node().label(),
                 shape_str(bias.shape()), shape_str(y.shape()));
          y = call_reference("Add", {y, bias}, {}, ctx.opset(), name)[0];
        }
        ctx.set_output(0, apply_fused_activation(act, y, ctx.opset(), name));
      });
  r.add(std::move(def));
}

}  // namespace ms
