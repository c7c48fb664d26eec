// CumSum: y[..., i, ...] = sum of x[..., j, ...] for j <= i along `axis` (j < i when exclusive;
// from the end when reverse).
#include "ops/reduce_util.h"

namespace ms {

void register_op_cum_sum(OpRegistry& r) {
  r.add(OpDef("CumSum")
            .inputs(2)
            .outputs(1)
            .attr_int("exclusive", 0)
            .attr_int("reverse", 0)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& axis_t = ctx.input(1);
              if (axis_t.numel() != 1) fail("{}: axis must be a scalar, got shape {}", ctx.node().label(), shape_str(axis_t.shape()));
              if (x.rank() == 0) fail("{}: input must have rank >= 1", ctx.node().label());
              const int64_t axis = normalize_axis(axis_t.as_int64(0), x.rank(), ctx.node());
              const bool exclusive = ctx.attr_int("exclusive") != 0, reverse = ctx.attr_int("reverse") != 0;
              const int64_t outer = dims_product(x.shape(), 0, axis), n = x.dim(axis),
                            inner = dims_product(x.shape(), axis + 1, x.rank());
              Tensor y(x.dtype(), x.shape());
              dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                using A = acc_t<T>;
                const T* in = x.data<T>();
                T* out = y.data<T>();
                for (int64_t o = 0; o < outer; ++o)
                  for (int64_t i = 0; i < inner; ++i) {
                    A acc = A(0);
                    for (int64_t s = 0; s < n; ++s) {
                      int64_t k = reverse ? n - 1 - s : s;
                      int64_t off = (o * n + k) * inner + i;
                      A v = to_acc<A>(in[off]);
                      if (!exclusive) acc += v;
                      out[off] = from_acc<T>(acc);
                      if (exclusive) acc += v;
                    }
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
