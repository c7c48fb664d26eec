// QuantizeLinear: y = saturate(round_half_to_even(x / y_scale) + y_zero_point), per tensor or per axis.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_quantize_linear(OpRegistry& r) {
  r.add(OpDef("QuantizeLinear")
            .inputs(2, 3)
            .outputs(1)
            .trait(kTraitQuantized)
            .attr_int("axis", 1)
            .attr_int("block_size", 0)
            .attr_int("output_dtype", 0)
            .attr_int("saturate", 1)
            .infer_fn([](InferContext& ctx) {
              DType dt = ctx.has_input(2) ? ctx.input_type(2).dtype
                                          : (ctx.attr_int("output_dtype") ? DType(ctx.attr_int("output_dtype")) : DType::UInt8);
              TypeInfo t = ctx.input_type(0);
              t.dtype = dt;
              ctx.set_output_type(0, t);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& sc = ctx.input(1);
              const std::string label = ctx.node().label();
              if (ctx.attr_int("block_size") != 0) fail_unsupported("{}: blocked quantization is not supported", label);
              const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              const DType out_dt = zp ? zp->dtype() : (ctx.attr_int("output_dtype") ? DType(ctx.attr_int("output_dtype")) : DType::UInt8);
              const int64_t axis = ctx.attr_int("axis");
              const QuantParam s = quant_param(sc, x.shape(), axis, ctx.node(), "y_scale");
              const QuantParam z = zp ? quant_param(*zp, x.shape(), axis, ctx.node(), "y_zero_point") : QuantParam{{0.0}};
              Tensor y(out_dt, x.shape());
              const auto xv = x.to_double_vector();
              const bool x_f32 = x.dtype() == DType::Float32 || x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
              dispatch_quant(out_dt, label, [&](auto tag) {
                using Q = typename decltype(tag)::type;
                Q* yp = y.data<Q>();
                for (int64_t i = 0; i < x.numel(); ++i) {
                  const double scale = s.at(i);
                  if (scale == 0) fail("{}: y_scale is zero", label);
                  // Divide in float like the reference does, so ties round the same way.
                  const double q = x_f32 ? double(float(xv[i]) / float(scale)) : xv[i] / scale;
                  yp[i] = saturate_round<Q>(std::nearbyint(q) + z.at(i));
                }
              }, true);
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
