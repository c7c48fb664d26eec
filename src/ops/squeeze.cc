// Squeeze: y = x without the size-1 dims listed in axes (all size-1 dims when axes is absent).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

// Which dims to drop; axes are normalised and checked against the shape.
std::vector<bool> squeezed_dims(const std::vector<Dim>& dims, const std::optional<std::vector<int64_t>>& axes,
                                const Node& node) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> drop(dims.size(), false);
  if (!axes) {
    for (size_t i = 0; i < dims.size(); ++i) drop[i] = dims[i].is_static() && dims[i].value == 1;
    return drop;
  }
  for (int64_t a : *axes) {
    int64_t ax = axis_index(a, rank, node);
    if (drop[ax]) fail("{}: axis {} is repeated", node.label(), a);
    if (dims[ax].is_static() && dims[ax].value != 1)
      fail("{}: cannot squeeze axis {} of size {}", node.label(), a, dims[ax].value);
    drop[ax] = true;
  }
  return drop;
}

}  // namespace

void register_op_squeeze(OpRegistry& r) {
  r.add(OpDef("Squeeze").trait(kTraitHalfCompute)
            .inputs(1, 2)
            .outputs(1)
            .attr("axes", AttrType::Ints, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              bool unknown = false;
              auto axes = ints_input_or_attr(ctx, 1, "axes", &unknown);
              auto len = static_length(ctx, 1);
              if (x.shape && unknown && len && *len <= static_cast<int64_t>(x.shape->size())) {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(x.shape->size() - *len)));
                return;
              }
              if (!x.shape || unknown) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              if (!axes)  // without axes, an unknown dim might be 1
                for (const Dim& d : *x.shape)
                  if (!d.is_static()) {
                    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                    return;
                  }
              auto drop = squeezed_dims(*x.shape, axes, ctx.node());
              std::vector<Dim> out;
              for (size_t i = 0; i < drop.size(); ++i)
                if (!drop[i]) out.push_back((*x.shape)[i]);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto drop = squeezed_dims(dims_of(x.shape()), ints_input_or_attr(ctx, 1, "axes"), ctx.node());
              Shape out;
              for (size_t i = 0; i < drop.size(); ++i)
                if (!drop[i]) out.push_back(x.shape()[i]);
              ctx.set_output(0, x.reshaped(out));
            }));
}

}  // namespace ms
