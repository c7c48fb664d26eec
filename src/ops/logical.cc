// Logical And, Or, Xor on bool tensors with broadcasting.
#include "ops/numpy_util.h"

namespace ms {
namespace {

template <class F>
void register_logical(OpRegistry& r, const char* name, F f) {
  r.add(OpDef(name).inputs(2).outputs(1).attr("broadcast", AttrType::Int, false).attr("axis", AttrType::Int, false)
            .trait(kTraitElementwise | kTraitBroadcast)
            .infer_fn([](InferContext& ctx) { infer_binary_legacy(ctx, DType::Bool); })
            .kernel_fn([f](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor b = legacy_aligned_b(ctx, a, ctx.input(1));
              if (a.dtype() != DType::Bool || b.dtype() != DType::Bool)
                fail("{}: inputs must be bool, got {} and {}", ctx.node().label(), dtype_name(a.dtype()),
                     dtype_name(b.dtype()));
              ctx.set_output(0, broadcast_binary<bool, bool, bool>(a, b, DType::Bool, ctx.node(), f));
            }));
}

}  // namespace

void register_op_logical(OpRegistry& r) {
  register_logical(r, "And", [](bool a, bool b) { return a && b; });
  register_logical(r, "Or", [](bool a, bool b) { return a || b; });
  register_logical(r, "Xor", [](bool a, bool b) { return a != b; });
}

}  // namespace ms
