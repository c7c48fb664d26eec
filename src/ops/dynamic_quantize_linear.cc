// DynamicQuantizeLinear: scale = (max(0, max x) - min(0, min x)) / 255, zero_point = saturate(round(-min / scale)),
// y = saturate(round(x / scale) + zero_point) as uint8.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_dynamic_quantize_linear(OpRegistry& r) {
  r.add(OpDef("DynamicQuantizeLinear")
            .inputs(1)
            .outputs(3)
            .trait(kTraitQuantized)
            .infer_fn([](InferContext& ctx) {
              TypeInfo t = ctx.input_type(0);
              t.dtype = DType::UInt8;
              ctx.set_output_type(0, t);
              ctx.set_output_type(1, TypeInfo::tensor(DType::Float32, Shape{}));
              ctx.set_output_type(2, TypeInfo::tensor(DType::UInt8, Shape{}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.dtype() != DType::Float32)
                fail_unsupported("{}: x must be float32, got {}", ctx.node().label(), dtype_name(x.dtype()));
              const float* xp = x.data<float>();
              float lo = 0, hi = 0;  // the range always includes zero
              for (int64_t i = 0; i < x.numel(); ++i) {
                lo = std::min(lo, xp[i]);
                hi = std::max(hi, xp[i]);
              }
              const float scale = (hi - lo) / 255.0f;
              const uint8_t zp = scale == 0 ? 0 : saturate_round<uint8_t>(std::nearbyint(0.0f - lo / scale));
              Tensor y(DType::UInt8, x.shape());
              uint8_t* yp = y.data<uint8_t>();
              for (int64_t i = 0; i < x.numel(); ++i)
                yp[i] = scale == 0 ? zp : saturate_round<uint8_t>(double(std::nearbyint(xp[i] / scale)) + zp);
              ctx.set_output(0, std::move(y));
              ctx.set_output(1, Tensor::scalar<float>(scale));
              ctx.set_output(2, Tensor::scalar<uint8_t>(zp));
            }));
}

}  // namespace ms
