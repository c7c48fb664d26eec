// ConvInteger: y = Conv(x - x_zero_point, w - w_zero_point) computed exactly in integers, int32 output.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_conv_integer(OpRegistry& r) {
  r.add(OpDef("ConvInteger")
            .inputs(2, 4)
            .outputs(1)
            .trait(kTraitQuantized | kTraitPerChannelWeight)
            .attr_string("auto_pad", "NOTSET")
            .attr_ints("dilations")
            .attr_int("group", 1)
            .attr_ints("kernel_shape")
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn([](InferContext& ctx) { infer_conv_like(ctx, 0, 1, DType::Int32); })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& w = ctx.input(1);
              const auto xz = zero_points(ctx, 2, 1, "x_zero_point");
              const auto wz = zero_points(ctx, 3, w.rank() ? w.dim(0) : 1, "w_zero_point");
              Shape ys;
              const auto acc = conv_integer_acc(ctx, x, w, xz[0], wz, ys);
              Tensor y(DType::Int32, ys);
              int32_t* yp = y.data<int32_t>();
              for (size_t i = 0; i < acc.size(); ++i) yp[i] = int32_t(acc[i]);
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
