// com.mstools QConvFloatOut: a convolution of quantized tensors whose result stays float,
//   Y = act(Conv(DequantizeLinear(X, x_scale, x_zp), DequantizeLinear(W, w_scale, w_zp, axis 0), B) + Z)
//   inputs     X (u8/s8), x_scale, x_zero_point (per tensor), W (s8), w_scale, w_zero_point (per
//              tensor or per output channel), B (optional, float), Z (optional, float, shaped like
//              the output: a residual added before the activation)
//   attributes as FusedConv (Conv's, plus activation, activation_params)
// Produced by fuse_quantized_conv for a QDQ convolution whose output is not quantized again (a
// residual add, a graph output): the integer accumulation runs in int8 kernels, the tail in float.
// The reference kernel is the unfused QDQ graph itself, so the op cannot drift from it.
#include "ops/conv_pool_util.h"
#include "ops/fused_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {

void register_op_q_conv_float_out(OpRegistry& r) {
  OpDef def("QConvFloatOut", kMsDomain);
  def.inputs(6, 8)
      .outputs(1)
      .trait(kTraitQuantized | kTraitPerChannelWeight)
      .attr_string("auto_pad", "NOTSET")
      .attr_ints("dilations")
      .attr_int("group", 1)
      .attr_ints("kernel_shape")
      .attr_ints("pads")
      .attr_ints("strides");
  with_fused_activation(def)
      .infer_fn([](InferContext& ctx) {
        fused_activation_attrs(ctx);
        infer_conv_like(ctx, 0, 3, DType::Float32);
      })
      .kernel_fn([](KernelContext& ctx) {
        const std::string& name = ctx.node().name;
        const int opset = ctx.opset();
        const Tensor x = call_reference("DequantizeLinear", {ctx.input(0), ctx.input(1), ctx.input(2)}, {}, opset, name)[0];
        std::map<std::string, Attribute> per_channel;
        if (ctx.input(4).numel() > 1) per_channel["axis"] = Attribute::of_int(0);
        const Tensor w =
            call_reference("DequantizeLinear", {ctx.input(3), ctx.input(4), ctx.input(5)}, per_channel, opset, name)[0];
        const Tensor b = ctx.has_input(6) ? ctx.input(6) : Tensor();
        const Tensor z = ctx.has_input(7) ? ctx.input(7) : Tensor();
        ctx.set_output(0, call_reference("FusedConv", {x, w, b, z}, ctx.node().attrs, opset, name, 1, kMsDomain)[0]);
      });
  r.add(std::move(def));
}

}  // namespace ms
