// PRelu: y = x < 0 ? slope * x : x, slope broadcast to x (unidirectionally).
#include "ops/numpy_util.h"

namespace ms {

void register_op_prelu(OpRegistry& r) {
  r.add(OpDef("PRelu").trait(kTraitHalfCompute).inputs(2).outputs(1).trait(kTraitElementwise | kTraitBroadcast)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              Tensor slope = ctx.input(1);
              const Node& node = ctx.node();
              // PRelu-6 and older applied a 1-D slope of size C along axis 1 (per channel); numpy
              // broadcasting aligns it with the last axis instead. ONNX's version converter keeps the
              // slope as is, so the old form is also recognised when numpy broadcasting cannot apply.
              const bool numpy_ok = slope.rank() >= 1 && slope.dim(-1) == x.dim(-1);
              if ((ctx.opset() < 7 || !numpy_ok) && slope.rank() == 1 && x.rank() >= 2 && slope.numel() == x.dim(1) &&
                  slope.numel() > 1) {
                Shape s(x.rank() - 1, 1);
                s[0] = slope.numel();
                slope = slope.reshaped(s);
              }
              Shape out = broadcast_shapes({x.shape(), slope.shape()}, node);
              if (out != x.shape())
                fail("{}: slope shape {} does not broadcast to input shape {}", node.label(), shape_str(slope.shape()),
                     shape_str(x.shape()));
              ctx.set_output(0, broadcast_same(x, slope, node, [](DType dt, const std::string& what, auto&& f) {
                return dispatch_all_numeric(dt, what, f);
              }, [](auto v, auto s) {
                using T = decltype(v);
                if constexpr (is_float_like_v<T>) return widen(v) < 0 ? T(widen(s) * widen(v)) : v;
                else return v < 0 ? T(s * v) : v;
              }));
            }));
}

}  // namespace ms
