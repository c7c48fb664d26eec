// LRN: y = x / (bias + alpha / size * sum of x^2 over the `size` neighbouring channels)^beta,
// the window spanning channels [c - floor((size-1)/2), c + ceil((size-1)/2)].
#include "ops/reduce_util.h"

namespace ms {

void register_op_lrn(OpRegistry& r) {
  r.add(OpDef("LRN")
            .inputs(1)
            .outputs(1)
            .attr("size", AttrType::Int, true)
            .attr_float("alpha", 1e-4f)
            .attr_float("beta", 0.75f)
            .attr_float("bias", 1.0f)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2) fail("{}: input must have rank >= 2 (N x C x ...), got {}", ctx.node().label(), shape_str(x.shape()));
              const int64_t size = ctx.attr_int("size");
              if (size <= 0) fail("{}: size must be positive, got {}", ctx.node().label(), size);
              const double alpha = ctx.attr_float("alpha"), beta = ctx.attr_float("beta"), bias = ctx.attr_float("bias");
              const int64_t n = x.dim(0), c = x.dim(1), inner = dims_product(x.shape(), 2, x.rank());
              const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
              auto xd = x.to_double_vector();
              Tensor y(x.dtype(), x.shape());
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                for (int64_t b = 0; b < n; ++b)
                  for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t i = 0; i < inner; ++i) {
                      double sq = 0;
                      for (int64_t k = std::max<int64_t>(0, ch - lo); k <= std::min(c - 1, ch + hi); ++k) {
                        double v = xd[(b * c + k) * inner + i];
                        sq += v * v;
                      }
                      const int64_t off = (b * c + ch) * inner + i;
                      out[off] = from_acc<T>(xd[off] / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
                    }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
