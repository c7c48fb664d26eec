// Dropout: inference y = x, mask = all true; in training mode y = x * mask / (1 - ratio) with
// mask[i] ~ Bernoulli(1 - ratio).
#include "ops/shape_ops_util.h"

#include <random>

namespace ms {

void register_op_dropout(OpRegistry& r) {
  r.add(OpDef("Dropout")
            .inputs(1, 3)
            .outputs(1, 2)
            .attr("seed", AttrType::Int, false)
            .attr_float("ratio", 0.5f)  // opset < 12 form
            .trait(kTraitTraining)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              ctx.set_output_type(0, x);
              TypeInfo mask = x;
              mask.dtype = ctx.opset() >= 10 ? DType::Bool : x.dtype;
              ctx.set_output_type(1, mask);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const std::string label = ctx.node().label();
              const bool training = ctx.has_input(2) && ctx.input(2).numel() == 1 && ctx.input(2).as_double(0) != 0;
              double ratio = ctx.has_input(1) ? ctx.input(1).as_double(0) : ctx.attr_float("ratio");
              if (training && (ratio < 0 || ratio >= 1)) fail("{}: ratio {} is outside [0, 1)", label, ratio);
              const DType mask_dt = ctx.opset() >= 10 ? DType::Bool : x.dtype();
              Tensor mask(DType::Bool, x.shape());
              bool* m = mask.data<bool>();
              if (!training || ratio == 0) {
                std::fill(m, m + mask.numel(), true);
                ctx.set_output_value(0, ctx.input_value(0));
              } else {
                std::mt19937_64 rng(ctx.has_attr("seed") ? static_cast<uint64_t>(ctx.attr_int("seed")) : std::random_device{}());
                std::bernoulli_distribution keep(1.0 - ratio);
                for (int64_t i = 0; i < mask.numel(); ++i) m[i] = keep(rng);
                Tensor y(x.dtype(), x.shape());
                const double scale = 1.0 / (1.0 - ratio);
                dispatch_float(x.dtype(), label, [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  const T* in = x.data<T>();
                  T* out = y.data<T>();
                  for (int64_t i = 0; i < x.numel(); ++i) out[i] = m[i] ? T(double(in[i]) * scale) : T(0.0f);
                });
                ctx.set_output(0, std::move(y));
              }
              if (ctx.wants_output(1)) {
                if (mask_dt == DType::Bool) {
                  ctx.set_output(1, std::move(mask));
                } else {
                  Tensor mt(mask_dt, x.shape());
                  Tensor one = scalar_of_dtype(mask_dt, 1.0);
                  for (int64_t i = 0; i < mask.numel(); ++i)
                    if (m[i]) copy_elements(one, 0, mt, i, 1);
                  ctx.set_output(1, std::move(mt));
                }
              }
            }));
}

}  // namespace ms
