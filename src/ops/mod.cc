// Mod: C = A mod B with broadcasting. fmod=0: the result takes the sign of the divisor (Python %);
// fmod=1: the sign of the dividend (C fmod / %).
#include <cmath>

#include "ops/numpy_util.h"

namespace ms {

void register_op_mod(OpRegistry& r) {
  r.add(OpDef("Mod").inputs(2).outputs(1).attr_int("fmod", 0).trait(kTraitElementwise | kTraitBroadcast)
            .infer_fn(infer_broadcast)
            .kernel_fn([](KernelContext& ctx) {
              const bool c_style = ctx.attr_int("fmod") != 0;
              const Tensor& a = ctx.input(0);
              const Tensor& b = ctx.input(1);
              const Node& node = ctx.node();
              ctx.set_output(0, broadcast_same(a, b, node, [](DType dt, const std::string& what, auto&& f) {
                return dispatch_all_numeric(dt, what, f);
              }, [&](auto x, auto y) {
                using T = decltype(x);
                if constexpr (is_int_like_v<T>) {
                  if (y == 0) fail("{}: integer modulo by zero", node.label());
                  if constexpr (std::is_signed_v<T>) {
                    if (y == -1) return T(0);  // MIN % -1 would trap
                    T m = T(x % y);
                    if (!c_style && m != 0 && ((m < 0) != (y < 0))) m = T(m + y);
                    return m;
                  } else {
                    return T(x % y);
                  }
                } else {
                  double xd = widen(x), yd = widen(y);
                  double m = std::fmod(xd, yd);
                  if (!c_style && m != 0 && ((m < 0) != (yd < 0))) m += yd;
                  return T(static_cast<compute_t<T>>(m));
                }
              }));
            }));
}

}  // namespace ms
