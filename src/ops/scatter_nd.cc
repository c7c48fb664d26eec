// ScatterND: y = x; y[indices[j..., :], ...] (op)= updates[j..., ...] for every index tuple j,
// op = reduction (none/add/mul/max/min).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_scatter_nd(OpRegistry& r) {
  r.add(OpDef("ScatterND")
            .inputs(3)
            .outputs(1)
            .attr_string("reduction", "none")
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, ctx.input_type(0)); })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& indices = ctx.input(1);
              const Tensor& updates = ctx.input(2);
              const std::string label = ctx.node().label();
              const std::string& red = ctx.attr_string("reduction");
              if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
                fail_unsupported("{}: reduction '{}' is not supported", label, red);
              const Shape& xs = x.shape();
              const Shape& is = indices.shape();
              if (is.empty()) fail("{}: indices must have rank >= 1", label);
              const int64_t k = is.back();
              if (k < 0 || k > x.rank()) fail("{}: index depth {} for data rank {}", label, k, x.rank());
              // updates shape must be indices.shape[:-1] + data.shape[k:].
              Shape want(is.begin(), is.end() - 1);
              want.insert(want.end(), xs.begin() + k, xs.end());
              if (updates.shape() != want)
                fail("{}: updates have shape {}, expected {}", label, shape_str(updates.shape()), shape_str(want));
              if (updates.dtype() != x.dtype())
                fail("{}: updates are {}, data {}", label, dtype_name(updates.dtype()), dtype_name(x.dtype()));
              int64_t slice = 1;
              for (int64_t d = k; d < x.rank(); ++d) slice *= xs[d];
              const auto st = strides_of(xs);
              auto idx = indices.to_int64_vector();
              const int64_t tuples = k > 0 ? static_cast<int64_t>(idx.size()) / k : shape_numel(Shape(is.begin(), is.end() - 1));
              std::vector<int64_t> offsets(static_cast<size_t>(tuples));
              for (int64_t t = 0; t < tuples; ++t) {
                int64_t off = 0;
                for (int64_t q = 0; q < k; ++q) {
                  int64_t i = idx[t * k + q], dim = xs[q];
                  if (i < -dim || i >= dim) fail("{}: index {} is out of range for a dim of {}", label, i, dim);
                  off += (i < 0 ? i + dim : i) * st[q];
                }
                offsets[t] = off;
              }
              Tensor y = x.clone();
              if (red == "none") {
                for (int64_t t = 0; t < tuples; ++t) copy_elements(updates, t * slice, y, offsets[t], slice);
              } else {
                dispatch_all_numeric(x.dtype(), label, [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  T* dst = y.data<T>();
                  const T* src = updates.data<T>();
                  for (int64_t t = 0; t < tuples; ++t)
                    for (int64_t e = 0; e < slice; ++e) {
                      T& d = dst[offsets[t] + e];
                      const T& s = src[t * slice + e];
                      if (red == "add") d = T(d + s);
                      else if (red == "mul") d = T(d * s);
                      else if (red == "max") d = s > d ? s : d;
                      else d = s < d ? s : d;
                    }
                });
              }
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
