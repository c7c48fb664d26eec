// BitShift: Z = X << Y or X >> Y (direction "LEFT"/"RIGHT") on unsigned integers, with broadcasting.
#include "ops/numpy_util.h"

namespace ms {

void register_op_bit_shift(OpRegistry& r) {
  r.add(OpDef("BitShift").inputs(2).outputs(1).attr("direction", AttrType::String, true)
            .trait(kTraitElementwise | kTraitBroadcast).infer_fn(infer_broadcast)
            .kernel_fn([](KernelContext& ctx) {
              const std::string& dir = ctx.attr_string("direction");
              if (dir != "LEFT" && dir != "RIGHT")
                fail("{}: direction must be LEFT or RIGHT, got \"{}\"", ctx.node().label(), dir);
              const bool left = dir == "LEFT";
              const Tensor& x = ctx.input(0);
              if (!dtype_is_integer(x.dtype()) || dtype_is_signed(x.dtype()))
                fail_unsupported("{}: dtype {} is not supported (unsigned integers only)", ctx.node().label(),
                                 dtype_name(x.dtype()));
              ctx.set_output(0, broadcast_same(x, ctx.input(1), ctx.node(), [](DType dt, const std::string& what, auto&& f) {
                return dispatch_integer(dt, what, f);
              }, [&](auto a, auto b) {
                using T = decltype(a);
                using U = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
                // Shifting by the bit width or more is undefined in C++; the bits are all gone.
                if (static_cast<uint64_t>(b) >= sizeof(T) * 8) return T(0);
                return left ? T(U(a) << b) : T(U(a) >> b);
              }));
            }));
}

}  // namespace ms
