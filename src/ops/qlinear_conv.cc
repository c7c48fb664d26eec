// QLinearConv: y = saturate(round((sum (x - x_zp)(w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp),
// w_scale / w_zp per tensor or per output channel.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_qlinear_conv(OpRegistry& r) {
  r.add(OpDef("QLinearConv")
            .inputs(8, 9)
            .outputs(1)
            .trait(kTraitQuantized | kTraitPerChannelWeight)
            .attr_string("auto_pad", "NOTSET")
            .attr_ints("dilations")
            .attr_int("group", 1)
            .attr_ints("kernel_shape")
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn([](InferContext& ctx) { infer_conv_like(ctx, 0, 3, ctx.input_type(7).dtype); })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& w = ctx.input(3);
              const std::string label = ctx.node().label();
              const int64_t M = w.rank() ? w.dim(0) : 1;
              const double xs = ctx.input(1).as_double(0), ys = ctx.input(6).as_double(0);
              const auto ws = ctx.input(4).to_double_vector();
              if (ws.size() != 1 && int64_t(ws.size()) != M) fail("{}: w_scale has {} values, expected 1 or {}", label, ws.size(), M);
              const auto xz = zero_points(ctx, 2, 1, "x_zero_point");
              const auto wz = zero_points(ctx, 5, M, "w_zero_point");
              const Tensor& yzp = ctx.input(7);
              Shape shape;
              auto acc = conv_integer_acc(ctx, x, w, xz[0], wz, shape);
              std::vector<int64_t> bias;
              if (ctx.has_input(8)) {
                bias = ctx.input(8).to_int64_vector();
                if (int64_t(bias.size()) != M) fail("{}: B has {} values for {} output channels", label, bias.size(), M);
              }
              const int64_t O = shape_numel(shape) / std::max<int64_t>(1, shape[0] * M);
              Tensor y(yzp.dtype(), shape);
              const int64_t yz = yzp.as_int64(0);
              dispatch_quant(yzp.dtype(), label, [&](auto tag) {
                using Q = typename decltype(tag)::type;
                Q* yp = y.data<Q>();
                for (size_t i = 0; i < acc.size(); ++i) {
                  const int64_t m = (int64_t(i) / O) % M;
                  // The requantization multiplier in float, as integer conv implementations compute it.
                  const float mult = float(xs) * float(ws[ws.size() == 1 ? 0 : m]) / float(ys);
                  const float v = float(acc[i] + (bias.empty() ? 0 : bias[m])) * mult;
                  yp[i] = saturate_round<Q>(double(std::nearbyint(v)) + double(yz));
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
