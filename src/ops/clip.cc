// Clip: y = min(max(x, min), max). min/max are attributes before opset 11 and optional scalar
// inputs since; both forms are accepted.
#include <limits>

#include "ops/numpy_util.h"

namespace ms {

void register_op_clip(OpRegistry& r) {
  r.add(OpDef("Clip").trait(kTraitHalfCompute).inputs(1, 3).outputs(1).attr("min", AttrType::Float, false).attr("max", AttrType::Float, false)
            .trait(kTraitElementwise | kTraitUnary).infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Node& node = ctx.node();
              ctx.set_output(0, dispatch_all_numeric(x.dtype(), node.label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                using C = compute_t<T>;
                C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
                auto bound = [&](size_t input, const char* attr, C& v) {
                  if (ctx.has_input(input)) {
                    const Tensor& t = ctx.input(input);
                    if (t.numel() != 1) fail("{}: {} must be a scalar, got shape {}", node.label(), attr, shape_str(t.shape()));
                    if (t.dtype() != x.dtype())
                      fail("{}: {} has dtype {}, input has {}", node.label(), attr, dtype_name(t.dtype()), dtype_name(x.dtype()));
                    v = widen(t.data<T>()[0]);
                  } else if (ctx.has_attr(attr)) {
                    v = convert_value<C>(ctx.attr_float(attr));
                  }
                };
                bound(1, "min", lo);
                bound(2, "max", hi);
                // numpy.clip semantics: min is applied first, so max wins when min > max.
                return map_unary<T, T>(x, x.dtype(), [&](T v) {
                  C w = widen(v);
                  if (w < lo) w = lo;
                  if (w > hi) w = hi;
                  return T(w);
                });
              }));
            }));
}

}  // namespace ms
