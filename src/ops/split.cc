// Split: outputs = consecutive chunks of x along axis, sized by `split` or evenly (last chunk smaller).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

// Chunk sizes for a dim of size `dim` split into `n` outputs.
std::vector<int64_t> split_sizes(const AttrReader& a, std::optional<std::vector<int64_t>> split, int64_t dim,
                                 size_t n) {
  if (split) {
    int64_t sum = 0;
    for (int64_t s : *split) {
      if (s < 0) fail("{}: negative split size {}", a.node().label(), s);
      if (__builtin_add_overflow(sum, s, &sum)) fail("{}: split sizes overflow", a.node().label());
    }
    if (split->size() != n) fail("{}: split has {} entries for {} outputs", a.node().label(), split->size(), n);
    if (sum != dim) fail("{}: split sizes sum to {}, the axis has {}", a.node().label(), sum, dim);
    return *split;
  }
  if (a.has_attr("num_outputs")) {
    int64_t k = a.attr_int("num_outputs");
    if (k < 1 || static_cast<size_t>(k) != n)
      fail("{}: num_outputs is {} but the node has {} outputs", a.node().label(), k, n);
  }
  const int64_t chunk = (dim + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
  std::vector<int64_t> sizes;
  int64_t left = dim;
  for (size_t i = 0; i < n; ++i) {
    sizes.push_back(std::min(chunk, left));
    left -= sizes.back();
  }
  return sizes;
}

}  // namespace

void register_op_split(OpRegistry& r) {
  r.add(OpDef("Split").trait(kTraitHalfCompute)
            .inputs(1, 2)
            .outputs(1, -1)
            .attr_int("axis", 0)
            .attr("split", AttrType::Ints, false)
            .attr("num_outputs", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              const size_t n = ctx.node().outputs.size();
              bool unknown = false;
              auto split = ints_input_or_attr(ctx, 1, "split", &unknown);
              if (!x.shape) {
                for (size_t i = 0; i < n; ++i) ctx.set_output_type(i, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              int64_t axis = axis_index(ctx.attr_int("axis"), static_cast<int64_t>(x.shape->size()), ctx.node());
              const Dim& d = (*x.shape)[axis];
              std::optional<std::vector<int64_t>> sizes;
              if (split && split->size() == n)
                sizes = *split;
              else if (!unknown && !split && d.is_static())
                sizes = split_sizes(ctx, std::nullopt, d.value, n);
              for (size_t i = 0; i < n; ++i) {
                std::vector<Dim> dims = *x.shape;
                dims[axis] = sizes ? Dim::fixed((*sizes)[i]) : Dim{};
                ctx.set_output_type(i, TypeInfo::tensor(x.dtype, dims));
              }
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() == 0) fail("{}: input must have rank >= 1", ctx.node().label());
              const int64_t axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
              const size_t n = ctx.num_outputs();
              auto sizes = split_sizes(ctx, ints_input_or_attr(ctx, 1, "split"), x.shape()[axis], n);
              int64_t outer = 1, inner = 1;
              for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
              for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
              const int64_t in_row = x.shape()[axis] * inner;
              int64_t col = 0;
              for (size_t i = 0; i < n; ++i) {
                Shape s = x.shape();
                s[axis] = sizes[i];
                Tensor y(x.dtype(), s);
                const int64_t row = sizes[i] * inner;
                for (int64_t o = 0; o < outer; ++o) copy_elements(x, o * in_row + col, y, o * row, row);
                col += row;
                ctx.set_output(i, std::move(y));
              }
            }));
}

}  // namespace ms
