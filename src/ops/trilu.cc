// Trilu: y = x with the elements below (upper=1: j - i < k) or above (upper=0: j - i > k) the k-th
// diagonal of the last two dims zeroed.
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_trilu(OpRegistry& r) {
  r.add(OpDef("Trilu")
            .inputs(1, 2)
            .outputs(1)
            .attr_int("upper", 1)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2) fail("{}: input must have rank >= 2, got {}", ctx.node().label(), shape_str(x.shape()));
              int64_t k = 0;
              if (ctx.has_input(1)) {
                const Tensor& kt = ctx.input(1);
                if (kt.numel() != 1) fail("{}: k must be a scalar", ctx.node().label());
                k = kt.as_int64(0);
              }
              const bool upper = ctx.attr_int("upper") != 0;
              const int64_t rows = x.dim(-2), cols = x.dim(-1);
              Tensor y = x.clone();
              dispatch_by_size(x.dtype(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = raw_as<T>(y);
                for (int64_t m = 0; m < x.numel(); m += rows * cols)
                  for (int64_t i = 0; i < rows; ++i)
                    for (int64_t j = 0; j < cols; ++j)
                      if (upper ? j - i < k : j - i > k) out[m + i * cols + j] = T{};
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
