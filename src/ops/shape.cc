// Shape: y = int64 dims of x, sliced to [start, end) (negative values count from the end, clamped).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

std::pair<int64_t, int64_t> shape_range(const AttrReader& a, int64_t rank) {
  auto clampi = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clampi(a.attr_int("start"));
  int64_t end = a.has_attr("end") ? clampi(a.attr_int("end")) : rank;
  return {start, std::max(start, end)};
}

}  // namespace

void register_op_shape(OpRegistry& r) {
  r.add(OpDef("Shape")
            .inputs(1)
            .outputs(1)
            .attr_int("start", 0)
            .attr("end", AttrType::Int, false)
            .trait(kTraitShapeOnly)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, std::vector<Dim>{Dim{}}));
                return;
              }
              auto [s, e] = shape_range(ctx, static_cast<int64_t>(x.shape->size()));
              ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, Shape{e - s}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Shape& in = ctx.input(0).shape();
              auto [s, e] = shape_range(ctx, static_cast<int64_t>(in.size()));
              std::vector<int64_t> dims(in.begin() + s, in.begin() + e);
              ctx.set_output(0, Tensor::from_vector<int64_t>(dims, {e - s}));
            }));
}

}  // namespace ms
