// Helpers for the elementwise op files (unary_math, cast, comparison, ...): value conversions with
// numpy semantics, and a numpy-broadcast loop over two inputs.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "ops/kernel_util.h"

namespace ms {
// Inline namespace: keeps these templates distinct (for the linker) from same-named helpers in other
// op families' headers.
inline namespace numpy_semantics {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
template <class T>
inline constexpr bool is_float_like_v = is_half_v<T> || std::is_floating_point_v<T>;
template <class T>
inline constexpr bool is_int_like_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic is done in: float for the 16-bit floats, T itself otherwise.
template <class T>
using compute_t = std::conditional_t<is_half_v<T>, float, T>;
template <class T>
compute_t<T> widen(T x) { return static_cast<compute_t<T>>(x); }

// Float -> integer the way numpy does on x86 for in-range values (truncation); NaN gives 0 and
// out-of-range values saturate through int64 then wrap, so there is no undefined behaviour.
template <class To>
To float_to_int(double v) {
  if (std::isnan(v)) return To(0);
  if constexpr (std::is_same_v<To, uint64_t>) {
    if (v >= 9223372036854775808.0)
      return v >= 18446744073709551616.0 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(v);
  }
  if (v >= 9223372036854775807.0) return static_cast<To>(std::numeric_limits<int64_t>::max());
  if (v <= -9223372036854775808.0) return static_cast<To>(std::numeric_limits<int64_t>::min());
  return static_cast<To>(static_cast<int64_t>(v));
}

// Converts one value between any two numeric/bool C++ element types.
template <class To, class From>
To convert_value(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return widen(x) != 0;
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(widen(x)));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(widen(x));
  } else if constexpr (is_float_like_v<From>) {
    return float_to_int<To>(static_cast<double>(widen(x)));
  } else {
    return static_cast<To>(x);  // integer/bool -> integer wraps modulo 2^n (C++20)
  }
}

// Opset < 7 binary ops (Pow, And, Equal, ...) carry broadcast=1 with `axis`: B is aligned with A's
// dims starting at axis, which numpy broadcasting reproduces once B gets trailing 1-dims.
inline size_t legacy_b_trailing_ones(const AttrReader& ar, size_t rank_a, size_t rank_b) {
  if (!ar.has_attr("broadcast") || ar.attr_int("broadcast") == 0 || !ar.has_attr("axis")) return 0;
  const int64_t axis = ar.attr_int("axis");
  const int64_t start = axis < 0 ? axis + static_cast<int64_t>(rank_a) : axis;
  const int64_t ones = static_cast<int64_t>(rank_a) - start - static_cast<int64_t>(rank_b);
  if (start < 0 || ones < 0)
    fail("{}: legacy broadcast axis {} does not fit input ranks {} and {}", ar.node().label(), axis, rank_a, rank_b);
  return static_cast<size_t>(ones);
}
inline Tensor legacy_aligned_b(const AttrReader& ar, const Tensor& a, const Tensor& b) {
  const size_t ones = legacy_b_trailing_ones(ar, a.shape().size(), b.shape().size());
  if (ones == 0) return b;
  Shape s = b.shape();
  s.resize(s.size() + ones, 1);
  return b.reshaped(s);
}
// Broadcast inference for two inputs honouring the legacy form; output dtype `dt`.
inline void infer_binary_legacy(InferContext& ctx, DType dt) {
  const TypeInfo &ta = ctx.input_type(0), &tb = ctx.input_type(1);
  if (!ta.shape || !tb.shape) return ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
  std::vector<Dim> b = *tb.shape;
  b.resize(b.size() + legacy_b_trailing_ones(ctx, ta.shape->size(), b.size()), Dim::fixed(1));
  ctx.set_output_type(0, TypeInfo::tensor(dt, broadcast_dims({*ta.shape, b}, ctx.node())));
}

// out[i] = f(a[..], b[..]) over the numpy broadcast of a and b; the output has dtype out_dt with
// element type TO.
template <class TA, class TB, class TO, class F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, DType out_dt, const Node& node, F&& f) {
  Shape shape = broadcast_shapes({a.shape(), b.shape()}, node);
  Tensor out(out_dt, shape);
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  const int64_t n = out.numel();
  if (a.shape() == shape && b.shape() == shape) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
  } else if (a.shape() == shape && b.numel() == 1) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[0]);
  } else if (b.shape() == shape && a.numel() == 1) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[0], pb[i]);
  } else {
    auto oa = broadcast_offsets(a.shape(), shape);
    auto ob = broadcast_offsets(b.shape(), shape);
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[oa[i]], pb[ob[i]]);
  }
  return out;
}

// Same-dtype binary op: dispatches the element type with `dispatch`, output has a's dtype.
template <class Dispatch, class F>
Tensor broadcast_same(const Tensor& a, const Tensor& b, const Node& node, Dispatch&& dispatch, F&& f) {
  if (a.dtype() != b.dtype())
    fail("{}: input dtypes differ ({} and {})", node.label(), dtype_name(a.dtype()), dtype_name(b.dtype()));
  return dispatch(a.dtype(), node.label(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcast_binary<T, T, T>(a, b, a.dtype(), node, [&](const T& x, const T& y) { return f(x, y); });
  });
}

// out[i] = f(i-th element) mapping a whole tensor to a new one of dtype out_dt.
template <class TI, class TO, class F>
Tensor map_unary(const Tensor& x, DType out_dt, F&& f) {
  Tensor y(out_dt, x.shape());
  const TI* in = x.data<TI>();
  TO* out = y.data<TO>();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) out[i] = f(in[i]);
  return y;
}

}  // namespace numpy_semantics
}  // namespace ms
