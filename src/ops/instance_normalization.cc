// InstanceNormalization: y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], with mean and
// var taken over the spatial dims of each (n, c).
#include "ops/reduce_util.h"

namespace ms {

void register_op_instance_normalization(OpRegistry& r) {
  r.add(OpDef("InstanceNormalization")
            .inputs(3)
            .outputs(1)
            .attr_float("epsilon", 1e-5f)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2) fail("{}: input must have rank >= 2 (N x C x ...), got {}", ctx.node().label(), shape_str(x.shape()));
              const int64_t n = x.dim(0), c = x.dim(1), inner = dims_product(x.shape(), 2, x.rank());
              auto scale = ctx.input(1).to_double_vector(), bias = ctx.input(2).to_double_vector();
              if (static_cast<int64_t>(scale.size()) != c || static_cast<int64_t>(bias.size()) != c)
                fail("{}: scale and B must have {} elements, got {} and {}", ctx.node().label(), c, scale.size(), bias.size());
              const double eps = ctx.attr_float("epsilon");
              auto xd = x.to_double_vector();
              Tensor y(x.dtype(), x.shape());
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                for (int64_t b = 0; b < n; ++b)
                  for (int64_t ch = 0; ch < c; ++ch) {
                    const double* p = xd.data() + (b * c + ch) * inner;
                    double mean = 0, var = 0;
                    for (int64_t i = 0; i < inner; ++i) mean += p[i];
                    mean /= static_cast<double>(inner);
                    for (int64_t i = 0; i < inner; ++i) var += (p[i] - mean) * (p[i] - mean);
                    var /= static_cast<double>(inner);
                    const double k = scale[ch] / std::sqrt(var + eps);
                    for (int64_t i = 0; i < inner; ++i)
                      out[(b * c + ch) * inner + i] = from_acc<T>((p[i] - mean) * k + bias[ch]);
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
