// Pow: Z = X ^ Y with broadcasting; Z has X's dtype, Y may be any numeric dtype.
#include <cmath>

#include "ops/numpy_util.h"

namespace ms {
namespace {

// Exact integer power by squaring (wrapping on overflow); negative exponents truncate like
// 1 / base^-e in integer arithmetic.
template <class T>
T int_pow(T base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>)
      if (base == -1) return (e & 1) ? T(-1) : T(1);
    return 0;  // |base| > 1 gives a fraction; base 0 would be infinite, numpy also yields 0 here
  }
  using U = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  U result = 1, b = U(base);
  while (e > 0) {
    if (e & 1) result = U(result * b);
    b = U(b * b);
    e >>= 1;
  }
  return T(result);
}

}  // namespace

void register_op_pow(OpRegistry& r) {
  r.add(OpDef("Pow").inputs(2).outputs(1).attr("broadcast", AttrType::Int, false).attr("axis", AttrType::Int, false)
            .trait(kTraitElementwise | kTraitBroadcast)
            .infer_fn([](InferContext& ctx) { infer_binary_legacy(ctx, ctx.input_type(0).dtype); })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor y = legacy_aligned_b(ctx, x, ctx.input(1));
              const Node& node = ctx.node();
              ctx.set_output(0, dispatch_all_numeric(x.dtype(), node.label(), [&](auto tx) {
                using T = typename decltype(tx)::type;
                return dispatch_all_numeric(y.dtype(), node.label(), [&](auto ty) {
                  using E = typename decltype(ty)::type;
                  return broadcast_binary<T, E, T>(x, y, x.dtype(), node, [](T a, E b) {
                    if constexpr (is_int_like_v<T> && is_int_like_v<E>) {
                      if constexpr (std::is_unsigned_v<E> && sizeof(E) == 8)
                        if (b > uint64_t(INT64_MAX)) return int_pow<T>(a, INT64_MAX);
                      return int_pow<T>(a, static_cast<int64_t>(b));
                    } else {
                      return convert_value<T>(std::pow(static_cast<double>(widen(a)), static_cast<double>(widen(b))));
                    }
                  });
                });
              }));
            }));
}

}  // namespace ms
