// Flatten: y = x reshaped to [prod(dims[:axis]), prod(dims[axis:])].
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

int64_t flatten_axis(const AttrReader& a, int64_t rank) {
  int64_t axis = a.attr_int("axis");
  if (axis < -rank || axis > rank)
    fail("{}: axis {} is out of range for rank {}", a.node().label(), axis, rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace

void register_op_flatten(OpRegistry& r) {
  r.add(OpDef("Flatten").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .attr_int("axis", 1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(2)));
                return;
              }
              int64_t axis = flatten_axis(ctx, static_cast<int64_t>(x.shape->size()));
              Dim parts[2] = {Dim::fixed(1), Dim::fixed(1)};
              for (size_t i = 0; i < x.shape->size(); ++i) {
                Dim& p = parts[static_cast<int64_t>(i) < axis ? 0 : 1];
                const Dim& d = (*x.shape)[i];
                p = (p.is_static() && d.is_static()) ? Dim::fixed(p.value * d.value) : Dim{};
              }
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>{parts[0], parts[1]}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              int64_t axis = flatten_axis(ctx, x.rank());
              int64_t outer = 1;
              for (int64_t i = 0; i < axis; ++i) outer *= x.dim(static_cast<int>(i));
              int64_t inner = 1;
              for (int64_t i = axis; i < x.rank(); ++i) inner *= x.dim(static_cast<int>(i));
              ctx.set_output(0, x.reshaped({outer, inner}));
            }));
}

}  // namespace ms
