// com.mstools FusedConv: Y = act(Conv(X, W, B) + Z)
//   inputs     X, W, B (optional), Z (optional: shaped like Conv's output, added before the
//              activation; a residual connection)
//   attributes auto_pad, dilations, group, kernel_shape, pads, strides (as ONNX Conv);
//              activation, activation_params (ops/fused_activation.h)
// Produced by the optimizer's Conv + activation and Conv + Add fusions.
#include "ops/conv_pool_util.h"
#include "ops/fused_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {

void register_op_fused_conv(OpRegistry& r) {
  OpDef def("FusedConv", kMsDomain);
  def.inputs(2, 4)
      .outputs(1)
      .trait(kTraitPerChannelWeight)
      .attr_string("auto_pad", "NOTSET")
      .attr_ints("dilations")
      .attr_int("group", 1)
      .attr_ints("kernel_shape")
      .attr_ints("pads")
      .attr_ints("strides");
  with_fused_activation(def)
      .infer_fn([](InferContext& ctx) {
        fused_activation_attrs(ctx);
        infer_conv_like(ctx, 0, 1, ctx.input_type(0).dtype);
      })
      .kernel_fn([](KernelContext& ctx) {
        const FusedActivation act = fused_activation_attrs(ctx);
        const std::string& name = ctx.node().name;
        Tensor b = ctx.has_input(2) ? ctx.input(2) : Tensor();
        Tensor y = call_reference("Conv", {ctx.input(0), ctx.input(1), b}, base_op_attrs(ctx.node()), ctx.opset(), name)[0];
        if (ctx.has_input(3)) {
          if (ctx.input(3).shape() != y.shape())
            fail("{}: Z has shape {} but the convolution gives {}", ctx.node().label(), shape_str(ctx.input(3).shape()),
                 shape_str(y.shape()));
          y = call_reference("Add", {y, ctx.input(3)}, {}, ctx.opset(), name)[0];
        }
        ctx.set_output(0, apply_fused_activation(act, y, ctx.opset(), name));
      });
  r.add(std::move(def));
}

}  // namespace ms
