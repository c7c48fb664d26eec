// ScatterElements: y = x; y[i with i[axis] = indices[i]] (op)= updates[i] for every i of indices,
// op = reduction (none/add/mul/max/min). Scatter is its deprecated alias (no reduction).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

// Applies `dst (op)= src` for the reduction named `red`; T is the real element type.
template <class T>
void reduce_into(T& dst, const T& src, const std::string& red) {
  if (red == "add") dst = T(dst + src);
  else if (red == "mul") dst = T(dst * src);
  else if (red == "max") dst = src > dst ? src : dst;
  else if (red == "min") dst = src < dst ? src : dst;
}

void scatter_elements_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  const std::string label = ctx.node().label();
  const std::string red = ctx.def().find_attr("reduction") ? ctx.attr_string("reduction") : "none";
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    fail_unsupported("{}: reduction '{}' is not supported", label, red);
  if (x.rank() == 0 || indices.rank() != x.rank() || indices.shape() != updates.shape())
    fail("{}: data {}, indices {} and updates {} must have the same rank >= 1 (indices and updates the same shape)",
         label, shape_str(x.shape()), shape_str(indices.shape()), shape_str(updates.shape()));
  if (updates.dtype() != x.dtype()) fail("{}: updates are {}, data {}", label, dtype_name(updates.dtype()), dtype_name(x.dtype()));
  const int64_t axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis && indices.shape()[d] > x.shape()[d])
      fail("{}: indices {} exceed data {} on axis {}", label, shape_str(indices.shape()), shape_str(x.shape()), d);
  auto idx = indices.to_int64_vector();
  const auto xs = strides_of(x.shape());
  const Shape& is = indices.shape();
  const int64_t dim = x.shape()[axis];
  std::vector<int64_t> pos(is.size(), 0), offsets(idx.size());
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t i = idx[k];
    if (i < -dim || i >= dim) fail("{}: index {} is out of range for a dim of {}", label, i, dim);
    if (i < 0) i += dim;
    int64_t off = 0;
    for (size_t d = 0; d < is.size(); ++d) off += (static_cast<int64_t>(d) == axis ? i : pos[d]) * xs[d];
    offsets[k] = off;
    for (int d = static_cast<int>(is.size()) - 1; d >= 0 && ++pos[d] == is[d]; --d) pos[d] = 0;
  }
  Tensor y = x.clone();
  if (red == "none") {
    dispatch_by_size(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t k = 0; k < offsets.size(); ++k) raw_as<T>(y)[offsets[k]] = raw_as<T>(updates)[k];
    });
  } else {
    dispatch_all_numeric(x.dtype(), label, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t k = 0; k < offsets.size(); ++k) reduce_into(y.data<T>()[offsets[k]], updates.data<T>()[k], red);
    });
  }
  ctx.set_output(0, std::move(y));
}

void infer_scatter(InferContext& ctx) { ctx.set_output_type(0, ctx.input_type(0)); }

}  // namespace

void register_op_scatter_elements(OpRegistry& r) {
  r.add(OpDef("ScatterElements")
            .inputs(3)
            .outputs(1)
            .attr_int("axis", 0)
            .attr_string("reduction", "none")
            .infer_fn(infer_scatter)
            .kernel_fn(scatter_elements_kernel));
}

void register_op_scatter(OpRegistry& r) {
  r.add(OpDef("Scatter").inputs(3).outputs(1).attr_int("axis", 0).infer_fn(infer_scatter).kernel_fn(scatter_elements_kernel));
}

}  // namespace ms
