// Unsqueeze: y = x with size-1 dims inserted at the given axes (of the output).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

// Output dims: input dims with 1s inserted at the normalised axes.
std::vector<Dim> unsqueezed(const std::vector<Dim>& in, const std::vector<int64_t>& axes, const Node& node) {
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t ax = axis_index(a, rank, node);
    if (inserted[ax]) fail("{}: axis {} is repeated", node.label(), a);
    inserted[ax] = true;
  }
  std::vector<Dim> out;
  size_t k = 0;
  for (int64_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? Dim::fixed(1) : in[k++]);
  return out;
}

}  // namespace

void register_op_unsqueeze(OpRegistry& r) {
  r.add(OpDef("Unsqueeze").trait(kTraitHalfCompute)
            .inputs(1, 2)
            .outputs(1)
            .attr("axes", AttrType::Ints, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              bool unknown = false;
              auto axes = ints_input_or_attr(ctx, 1, "axes", &unknown);
              auto len = static_length(ctx, 1);
              if (x.shape && !axes && unknown && len) {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(x.shape->size() + *len)));
                return;
              }
              if (!x.shape || !axes) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, unsqueezed(*x.shape, *axes, ctx.node())));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto axes = ints_input_or_attr(ctx, 1, "axes");
              if (!axes) fail("{}: axes are required (input 1 or attribute)", ctx.node().label());
              Shape out;
              for (const Dim& d : unsqueezed(dims_of(x.shape()), *axes, ctx.node())) out.push_back(d.value);
              ctx.set_output(0, x.reshaped(out));
            }));
}

}  // namespace ms
