// Variadic broadcasting reductions over inputs: Max, Min, Sum, Mean (= Sum / number of inputs).
#include <cmath>

#include "ops/numpy_util.h"

namespace ms {
namespace {

enum class Fold { Max, Min, Sum, Mean };

template <class T>
T fold_pair(Fold kind, T a, T b) {
  if constexpr (is_float_like_v<T>) {
    auto x = widen(a), y = widen(b);
    if (kind == Fold::Sum || kind == Fold::Mean) return T(x + y);
    if (std::isnan(x)) return a;  // NaN propagates like numpy.maximum/minimum
    if (std::isnan(y)) return b;
    return (kind == Fold::Max ? x >= y : x <= y) ? a : b;
  } else {
    using U = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
    if (kind == Fold::Sum || kind == Fold::Mean) return T(U(a) + U(b));  // wraps, no UB
    return (kind == Fold::Max ? a >= b : a <= b) ? a : b;
  }
}

void register_fold(OpRegistry& r, const char* name, Fold kind) {
  r.add(OpDef(name).inputs(1, -1).outputs(1).trait(kTraitElementwise | kTraitBroadcast).infer_fn(infer_broadcast)
            .kernel_fn([kind](KernelContext& ctx) {
              const Node& node = ctx.node();
              Tensor acc = ctx.input(0);
              const DType dt = acc.dtype();
              auto dispatch = [&](DType d, const std::string& what, auto&& f) {
                return kind == Fold::Mean ? dispatch_float(d, what, f) : dispatch_all_numeric(d, what, f);
              };
              if (ctx.num_inputs() == 1) acc = acc.clone();
              for (size_t i = 1; i < ctx.num_inputs(); ++i)
                acc = broadcast_same(acc, ctx.input(i), node, dispatch, [&](auto a, auto b) { return fold_pair(kind, a, b); });
              if (kind == Fold::Mean) {
                const double n = static_cast<double>(ctx.num_inputs());
                dispatch_float(dt, node.label(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  T* p = acc.data<T>();
                  for (int64_t i = 0; i < acc.numel(); ++i) p[i] = T(static_cast<compute_t<T>>(widen(p[i]) / n));
                });
              }
              ctx.set_output(0, std::move(acc));
            }));
}

}  // namespace

void register_op_variadic_elementwise(OpRegistry& r) {
  register_fold(r, "Max", Fold::Max);
  register_fold(r, "Min", Fold::Min);
  register_fold(r, "Sum", Fold::Sum);
  register_fold(r, "Mean", Fold::Mean);
}

}  // namespace ms
