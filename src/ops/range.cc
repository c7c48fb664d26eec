// Range: y[i] = start + i * delta for i in [0, max(ceil((limit - start) / delta), 0)).
#include "ops/shape_ops_util.h"

#include <cmath>

namespace ms {
namespace {

// Number of elements; integer types are computed exactly.
int64_t range_count(const Tensor& start, const Tensor& limit, const Tensor& delta, const Node& node) {
  if (dtype_is_float(start.dtype())) {
    double s = start.as_double(0), l = limit.as_double(0), d = delta.as_double(0);
    if (d == 0) fail("{}: delta is 0", node.label());
    double n = std::ceil((l - s) / d);
    if (!(n < 1e12)) fail("{}: range of {} elements is too large", node.label(), n);
    return n > 0 ? static_cast<int64_t>(n) : 0;
  }
  int64_t s = start.as_int64(0), l = limit.as_int64(0), d = delta.as_int64(0);
  if (d == 0) fail("{}: delta is 0", node.label());
  int64_t span = 0;
  if (__builtin_sub_overflow(l, s, &span)) fail("{}: range [{}, {}) overflows", node.label(), s, l);
  if ((span > 0) != (d > 0) || span == 0) return 0;
  return span / d + (span % d != 0);
}

void check_scalars(const Tensor& s, const Tensor& l, const Tensor& d, const Node& node) {
  for (const Tensor* t : {&s, &l, &d}) {
    if (t->numel() != 1) fail("{}: start, limit and delta must be scalars, got shape {}", node.label(), shape_str(t->shape()));
    if (t->dtype() != s.dtype()) fail("{}: start, limit and delta must share one dtype", node.label());
  }
}

}  // namespace

void register_op_range(OpRegistry& r) {
  r.add(OpDef("Range")
            .inputs(3)
            .outputs(1)
            .infer_fn([](InferContext& ctx) {
              DType dt = ctx.input_type(0).dtype;
              const Tensor* s = ctx.input_constant(0);
              const Tensor* l = ctx.input_constant(1);
              const Tensor* d = ctx.input_constant(2);
              if (s && l && d) {
                check_scalars(*s, *l, *d, ctx.node());
                ctx.set_output_type(0, TypeInfo::tensor(dt, Shape{range_count(*s, *l, *d, ctx.node())}));
              } else {
                ctx.set_output_type(0, TypeInfo::tensor(dt, std::vector<Dim>{Dim{}}));
              }
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& s = ctx.input(0);
              const Tensor& l = ctx.input(1);
              const Tensor& d = ctx.input(2);
              check_scalars(s, l, d, ctx.node());
              const int64_t n = range_count(s, l, d, ctx.node());
              Tensor y(s.dtype(), {n});
              dispatch_all_numeric(s.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                const T start = s.data<T>()[0], delta = d.data<T>()[0];
                if constexpr (std::is_integral_v<T>) {
                  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
                } else {
                  for (int64_t i = 0; i < n; ++i) out[i] = T(double(start) + static_cast<double>(i) * double(delta));
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
