// Broadcasting arithmetic: Add y = a+b, Sub y = a-b, Mul y = a*b, Div y = a/b (integer division
// truncates toward zero, like C). Integer results wrap around on overflow.
#include "ops/numpy_util.h"

namespace ms {
namespace {

// Opset < 7 nodes carry broadcast=1 with `axis`: B is aligned to A's dims starting at axis,
// which numpy broadcasting reproduces once B gets trailing 1-dims. Returns how many.
size_t legacy_trailing_ones(const AttrReader& ar, size_t rank_a, size_t rank_b) {
  if (!ar.has_attr("broadcast") || ar.attr_int("broadcast") == 0 || !ar.has_attr("axis")) return 0;
  const int64_t axis = ar.attr_int("axis");
  const int64_t start = axis < 0 ? axis + static_cast<int64_t>(rank_a) : axis;
  const int64_t ones = static_cast<int64_t>(rank_a) - start - static_cast<int64_t>(rank_b);
  if (start < 0 || ones < 0)
    fail("{}: legacy broadcast axis {} does not fit input ranks {} and {}", ar.node().label(), axis, rank_a, rank_b);
  return static_cast<size_t>(ones);
}

void infer_arith(InferContext& ctx) {
  const TypeInfo &ta = ctx.input_type(0), &tb = ctx.input_type(1);
  if (!ta.shape || !tb.shape) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(ta.dtype));
    return;
  }
  std::vector<Dim> b = *tb.shape;
  b.resize(b.size() + legacy_trailing_ones(ctx, ta.shape->size(), b.size()), Dim::fixed(1));
  ctx.set_output_type(0, TypeInfo::tensor(ta.dtype, broadcast_dims({*ta.shape, b}, ctx.node())));
}

// f(label, a, b) -> result, generic over every numeric element type.
template <class F>
void add_arith(OpRegistry& r, const char* name, F f) {
  r.add(OpDef(name)
            .inputs(2)
            .outputs(1)
            // Opset < 7 form, kept for models the version converter could not upgrade.
            .attr("broadcast", AttrType::Int, false)
            .attr("axis", AttrType::Int, false)
            .trait(kTraitElementwise | kTraitBroadcast | kTraitHalfCompute)
            .infer_fn(infer_arith)
            .kernel_fn([f](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              Tensor b = ctx.input(1);
              Shape bs = b.shape();
              bs.resize(bs.size() + legacy_trailing_ones(ctx, a.shape().size(), bs.size()), 1);
              b = b.reshaped(bs);
              const std::string& label = ctx.node().label();
              auto dispatch = [](DType d, const std::string& what, auto&& g) { return dispatch_all_numeric(d, what, g); };
              ctx.set_output(0, broadcast_same(a, b, ctx.node(), dispatch, [&](auto x, auto y) { return f(label, x, y); }));
            }));
}

}  // namespace

void register_op_binary_arith(OpRegistry& r) {
  add_arith(r, "Add", [](const std::string&, auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int_like_v<T>) return T(uint64_t(a) + uint64_t(b));
    else return T(widen(a) + widen(b));
  });
  add_arith(r, "Sub", [](const std::string&, auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int_like_v<T>) return T(uint64_t(a) - uint64_t(b));
    else return T(widen(a) - widen(b));
  });
  add_arith(r, "Mul", [](const std::string&, auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int_like_v<T>) return T(uint64_t(a) * uint64_t(b));
    else return T(widen(a) * widen(b));
  });
  add_arith(r, "Div", [](const std::string& label, auto a, auto b) {
    using T = decltype(a);
    if constexpr (is_int_like_v<T>) {
      if (b == 0) fail("{}: integer division by zero", label);
      // INT_MIN / -1 traps on x86; the wrapped result is -a.
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return T(uint64_t(0) - uint64_t(a));
      }
      return T(a / b);
    } else {
      return T(widen(a) / widen(b));
    }
  });
}

}  // namespace ms
