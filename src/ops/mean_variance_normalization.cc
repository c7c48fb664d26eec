// MeanVarianceNormalization: y = (x - mean) / (sqrt(var) + 1e-9), mean and var over `axes`
// (the 1e-9 is the epsilon of ONNX's function definition).
#include "ops/reduce_util.h"

namespace ms {

void register_op_mean_variance_normalization(OpRegistry& r) {
  r.add(OpDef("MeanVarianceNormalization")
            .inputs(1)
            .outputs(1)
            .attr_ints("axes", {0, 2, 3})
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto axes = normalize_axes(ctx.attr_ints("axes"), x.rank(), ctx.node());
              Shape keep = x.shape();
              int64_t count = 1;
              for (int64_t a : axes) {
                count *= keep[a];
                keep[a] = 1;
              }
              const int64_t m = shape_numel(keep);
              auto offs = broadcast_offsets(keep, x.shape());
              auto xd = x.to_double_vector();
              std::vector<double> mean(m, 0.0), var(m, 0.0);
              for (size_t i = 0; i < xd.size(); ++i) mean[offs[i]] += xd[i];
              for (auto& v : mean) v /= static_cast<double>(count);
              for (size_t i = 0; i < xd.size(); ++i) var[offs[i]] += (xd[i] - mean[offs[i]]) * (xd[i] - mean[offs[i]]);
              for (auto& v : var) v /= static_cast<double>(count);
              Tensor y(x.dtype(), x.shape());
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                for (size_t i = 0; i < xd.size(); ++i)
                  out[i] = from_acc<T>((xd[i] - mean[offs[i]]) / (std::sqrt(var[offs[i]]) + 1e-9));
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
