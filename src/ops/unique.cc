// Unique: Y = the distinct elements of x (or distinct slices along axis), sorted or in order of
// first occurrence; indices = first occurrence of each, inverse_indices = position in Y of each
// input element/slice, counts = occurrences of each.
#include "ops/shape_ops_util.h"

#include <algorithm>
#include <numeric>

namespace ms {

void register_op_unique(OpRegistry& r) {
  r.add(OpDef("Unique")
            .inputs(1)
            .outputs(1, 4)
            .attr("axis", AttrType::Int, false)
            .attr_int("sorted", 1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              if (ctx.has_attr("axis") && x.shape) {
                std::vector<Dim> out = *x.shape;
                out[axis_index(ctx.attr_int("axis"), static_cast<int64_t>(out.size()), ctx.node())] = Dim{};
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
              } else if (ctx.has_attr("axis")) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
              } else {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>{Dim{}}));
              }
              for (size_t i = 1; i < 4; ++i) ctx.set_output_type(i, TypeInfo::tensor(DType::Int64, std::vector<Dim>{Dim{}}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const bool has_axis = ctx.has_attr("axis");
              int64_t axis = 0;
              if (has_axis) {
                if (x.rank() == 0) fail("{}: input must have rank >= 1 with axis", ctx.node().label());
                axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
              }
              // x viewed as [outer, n, inner]; slice j = x[:, j, :].
              int64_t outer = 1, n = x.numel(), inner = 1;
              if (has_axis) {
                outer = inner = 1;
                for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
                n = x.shape()[axis];
                for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
              }
              std::vector<int64_t> order(static_cast<size_t>(n));
              std::iota(order.begin(), order.end(), 0);
              // Returns <0, 0, >0 comparing slices a and b.
              auto cmp = [&](int64_t a, int64_t b) {
                return dispatch_any(x.dtype(), ctx.node().label(), [&](auto tag) -> int {
                  using T = typename decltype(tag)::type;
                  const T* p = static_cast<const T*>(x.raw());
                  for (int64_t o = 0; o < outer; ++o)
                    for (int64_t i = 0; i < inner; ++i) {
                      const T& u = p[(o * n + a) * inner + i];
                      const T& v = p[(o * n + b) * inner + i];
                      if (u < v) return -1;
                      if (v < u) return 1;
                    }
                  return 0;
                });
              };
              std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
              // Groups of equal slices in sorted order; stable sort puts each group's first occurrence first.
              std::vector<int64_t> firsts, counts, group_of(static_cast<size_t>(n));
              for (size_t k = 0; k < order.size(); ++k) {
                if (k == 0 || cmp(order[k - 1], order[k]) != 0) {
                  firsts.push_back(order[k]);
                  counts.push_back(0);
                }
                counts.back()++;
                group_of[order[k]] = static_cast<int64_t>(firsts.size()) - 1;
              }
              std::vector<int64_t> rank_of(firsts.size());  // group -> output position
              std::iota(rank_of.begin(), rank_of.end(), 0);
              if (ctx.attr_int("sorted") == 0) {
                std::vector<int64_t> by_first(firsts.size());
                std::iota(by_first.begin(), by_first.end(), 0);
                std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return firsts[a] < firsts[b]; });
                for (size_t p = 0; p < by_first.size(); ++p) rank_of[by_first[p]] = static_cast<int64_t>(p);
              }
              const int64_t u = static_cast<int64_t>(firsts.size());
              std::vector<int64_t> out_first(u), out_count(u), inverse(static_cast<size_t>(n));
              for (int64_t g = 0; g < u; ++g) {
                out_first[rank_of[g]] = firsts[g];
                out_count[rank_of[g]] = counts[g];
              }
              for (int64_t j = 0; j < n; ++j) inverse[j] = rank_of[group_of[j]];
              std::vector<std::vector<int64_t>> maps(3);
              for (int64_t o = 0; o < outer; ++o) maps[0].push_back(o * n * inner);
              for (int64_t f : out_first) maps[1].push_back(f * inner);
              for (int64_t i = 0; i < inner; ++i) maps[2].push_back(i);
              Shape y_shape{u};
              if (has_axis) {
                y_shape = x.shape();
                y_shape[axis] = u;
              }
              ctx.set_output(0, gather_by_axis_offsets(x, maps).reshaped(y_shape));
              ctx.set_output(1, Tensor::from_vector<int64_t>(out_first, {u}));
              ctx.set_output(2, Tensor::from_vector<int64_t>(inverse, {n}));
              ctx.set_output(3, Tensor::from_vector<int64_t>(out_count, {u}));
            }));
}

}  // namespace ms
