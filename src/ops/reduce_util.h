// Helpers shared by the reduction, normalization, loss and linear-algebra kernels: accumulator
// types (double for floats so long sums stay accurate, exact 64-bit for integers), conversions,
// and axis-list handling.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

template <class T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || std::is_same_v<T, float16_t> ||
                                        std::is_same_v<T, bfloat16_t>;

// Accumulator: double for every float type, int64/uint64 for integers.
template <class T>
using acc_t = std::conditional_t<is_float_like_v<T>, double,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <class A, class T>
inline A to_acc(T x) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)
    return static_cast<A>(float(x));
  else
    return static_cast<A>(x);
}

template <class T, class A>
inline T from_acc(A a) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)
    return T(static_cast<float>(a));
  else
    return static_cast<T>(a);
}

// Normalises a list of axes for `rank`, rejecting duplicates; result is sorted.
inline std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank, const Node& node) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(normalize_axis(a, rank, node));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail("{}: axes contain a duplicate axis", node.label());
  return out;
}

// Product of shape[b..e).
inline int64_t dims_product(const Shape& s, int64_t b, int64_t e) {
  int64_t n = 1;
  for (int64_t i = b; i < e; ++i) n *= s[i];
  return n;
}

}  // namespace ms
