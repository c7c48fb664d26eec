// Comparisons with broadcasting, output bool: Equal (also strings), Greater, GreaterOrEqual, Less,
// LessOrEqual.
#include "ops/numpy_util.h"

namespace ms {
namespace {

template <class Cmp>
void register_compare(OpRegistry& r, const char* name, bool strings, Cmp cmp) {
  r.add(OpDef(name).inputs(2).outputs(1).attr("broadcast", AttrType::Int, false).attr("axis", AttrType::Int, false)
            .trait(kTraitElementwise | kTraitBroadcast)
            .infer_fn([](InferContext& ctx) { infer_binary_legacy(ctx, DType::Bool); })
            .kernel_fn([cmp, strings](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor b = legacy_aligned_b(ctx, a, ctx.input(1));
              const Node& node = ctx.node();
              if (a.dtype() != b.dtype())
                fail("{}: input dtypes differ ({} and {})", node.label(), dtype_name(a.dtype()), dtype_name(b.dtype()));
              if (a.dtype() == DType::String && !strings)
                fail_unsupported("{}: string inputs are not supported", node.label());
              ctx.set_output(0, dispatch_any(a.dtype(), node.label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                return broadcast_binary<T, T, bool>(a, b, DType::Bool, node, [&](const T& x, const T& y) {
                  if constexpr (std::is_same_v<T, std::string>) return cmp(x, y);
                  else return cmp(widen(x), widen(y));
                });
              }));
            }));
}

}  // namespace

void register_op_comparison(OpRegistry& r) {
  register_compare(r, "Equal", true, [](const auto& x, const auto& y) { return x == y; });
  register_compare(r, "Greater", false, [](const auto& x, const auto& y) { return x > y; });
  register_compare(r, "GreaterOrEqual", false, [](const auto& x, const auto& y) { return x >= y; });
  register_compare(r, "Less", false, [](const auto& x, const auto& y) { return x < y; });
  register_compare(r, "LessOrEqual", false, [](const auto& x, const auto& y) { return x <= y; });
}

}  // namespace ms
