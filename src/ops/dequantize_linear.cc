// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor or per axis.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_dequantize_linear(OpRegistry& r) {
  r.add(OpDef("DequantizeLinear")
            .inputs(2, 3)
            .outputs(1)
            .trait(kTraitQuantized)
            .attr_int("axis", 1)
            .attr_int("block_size", 0)
            .infer_fn([](InferContext& ctx) {
              TypeInfo t = ctx.input_type(0);
              t.dtype = ctx.input_type(1).dtype;
              ctx.set_output_type(0, t);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& sc = ctx.input(1);
              const std::string label = ctx.node().label();
              if (ctx.attr_int("block_size") != 0) fail_unsupported("{}: blocked quantization is not supported", label);
              if (!dtype_is_integer(x.dtype())) fail_unsupported("{}: x of dtype {} is not supported", label, dtype_name(x.dtype()));
              const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              if (zp && zp->dtype() != x.dtype())
                fail("{}: x_zero_point is {} but x is {}", label, dtype_name(zp->dtype()), dtype_name(x.dtype()));
              const int64_t axis = ctx.attr_int("axis");
              const QuantParam s = quant_param(sc, x.shape(), axis, ctx.node(), "x_scale");
              const QuantParam z = zp ? quant_param(*zp, x.shape(), axis, ctx.node(), "x_zero_point") : QuantParam{{0.0}};
              Tensor y(sc.dtype(), x.shape());
              const auto xv = x.to_int64_vector();
              dispatch_float(sc.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* yp = y.data<T>();
                for (int64_t i = 0; i < x.numel(); ++i) {
                  const double d = double(xv[i] - int64_t(z.at(i)));
                  // float32 arithmetic for float outputs, as the reference computes it
                  if constexpr (std::is_same_v<T, double>) yp[i] = d * s.at(i);
                  else yp[i] = T(float(d) * float(s.at(i)));
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
