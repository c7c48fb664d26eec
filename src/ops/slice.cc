// Slice: y = x[starts[i]:ends[i]:steps[i]] along axes[i] (numpy semantics, indices clamped).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

struct SliceSpec {
  int64_t axis, start, end, step;
};

// The per-axis slices from inputs (opset >= 10) or attributes (opset 1). Returns nullopt in
// inference when a needed input is not constant.
template <class Ctx>
std::optional<std::vector<SliceSpec>> slice_specs(const Ctx& ctx, int64_t rank) {
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  if constexpr (std::is_same_v<Ctx, InferContext>) {
    bool u1 = false, u2 = false, u3 = false, u4 = false;
    starts = ints_input_or_attr(ctx, 1, "starts", &u1);
    ends = ints_input_or_attr(ctx, 2, "ends", &u2);
    axes = ints_input_or_attr(ctx, 3, "axes", &u3);
    steps = ints_input_or_attr(ctx, 4, "", &u4);
    if (u1 || u2 || u3 || u4) return std::nullopt;
  } else {
    starts = ints_input_or_attr(ctx, 1, "starts");
    ends = ints_input_or_attr(ctx, 2, "ends");
    axes = ints_input_or_attr(ctx, 3, "axes");
    steps = ints_input_or_attr(ctx, 4, "");
  }
  const std::string label = ctx.node().label();
  if (!starts || !ends) fail("{}: starts and ends are required", label);
  const size_t n = starts->size();
  if (ends->size() != n) fail("{}: {} starts but {} ends", label, n, ends->size());
  if (axes && axes->size() != n) fail("{}: {} starts but {} axes", label, n, axes->size());
  if (steps && steps->size() != n) fail("{}: {} starts but {} steps", label, n, steps->size());
  std::vector<SliceSpec> specs;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = axes ? axis_index((*axes)[i], rank, ctx.node()) : static_cast<int64_t>(i);
    if (axis >= rank) fail("{}: {} starts for rank {}", label, n, rank);
    if (seen[axis]) fail("{}: axis {} is repeated", label, axis);
    seen[axis] = true;
    int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0) fail("{}: step is 0 on axis {}", label, axis);
    specs.push_back({axis, (*starts)[i], (*ends)[i], step});
  }
  return specs;
}

std::pair<int64_t, int64_t> clamp_slice(const SliceSpec& s, int64_t dim) { return ms::clamp_slice(s.start, s.end, s.step, dim); }

void infer_slice(InferContext& ctx) {
  const TypeInfo& x = ctx.input_type(0);
  if (!x.shape) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
    return;
  }
  std::vector<Dim> out = *x.shape;
  auto specs = slice_specs(ctx, static_cast<int64_t>(out.size()));
  if (!specs) {
    ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(out.size())));
    return;
  }
  for (const SliceSpec& s : *specs) {
    Dim& d = out[s.axis];
    d = d.is_static() ? Dim::fixed(clamp_slice(s, d.value).second) : Dim{};
  }
  ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
}

}  // namespace

void register_op_slice(OpRegistry& r) {
  r.add(OpDef("Slice").trait(kTraitHalfCompute)
            .inputs(1, 5)
            .outputs(1)
            .attr("starts", AttrType::Ints, false)
            .attr("ends", AttrType::Ints, false)
            .attr("axes", AttrType::Ints, false)
            .infer_fn(infer_slice)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto st = strides_of(x.shape());
              std::vector<int64_t> first(x.rank(), 0), step(x.rank(), 1);
              Shape out = x.shape();
              auto specs = slice_specs(ctx, x.rank());
              for (const SliceSpec& s : *specs) {
                auto [f, n] = clamp_slice(s, out[s.axis]);
                first[s.axis] = f;
                step[s.axis] = s.step;
                out[s.axis] = n;
              }
              std::vector<std::vector<int64_t>> maps(x.rank());
              for (int d = 0; d < x.rank(); ++d)
                for (int64_t o = 0; o < out[d]; ++o) maps[d].push_back((first[d] + o * step[d]) * st[d]);
              ctx.set_output(0, gather_by_axis_offsets(x, maps));
            }));
}

}  // namespace ms
