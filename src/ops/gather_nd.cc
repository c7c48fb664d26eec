// GatherND: y[b..., i...] = x[b..., indices[b..., i..., :], ...] (the last indices dim indexes the
// leading dims of x after the batch_dims shared leading dims).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_gather_nd(OpRegistry& r) {
  r.add(OpDef("GatherND")
            .inputs(2)
            .outputs(1)
            .attr_int("batch_dims", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              const TypeInfo& idx = ctx.input_type(1);
              const int64_t b = ctx.attr_int("batch_dims");
              if (!x.shape || !idx.shape || idx.shape->empty() || !idx.shape->back().is_static()) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              const int64_t k = idx.shape->back().value;
              const int64_t xr = static_cast<int64_t>(x.shape->size());
              if (b < 0 || b > xr || k > xr - b)
                fail("{}: indices of depth {} with batch_dims {} for data rank {}", ctx.node().label(), k, b,
                     x.shape->size());
              std::vector<Dim> out(idx.shape->begin(), idx.shape->end() - 1);
              out.insert(out.end(), x.shape->begin() + b + k, x.shape->end());
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& indices = ctx.input(1);
              const std::string label = ctx.node().label();
              const int64_t b = ctx.attr_int("batch_dims");
              const Shape& xs = x.shape();
              const Shape& is = indices.shape();
              if (is.empty()) fail("{}: indices must have rank >= 1", label);
              const int64_t k = is.back();
              if (b < 0 || b >= static_cast<int64_t>(is.size()) || b > x.rank() || k > x.rank() - b)
                fail("{}: indices {} with batch_dims {} do not fit data {}", label, shape_str(is), b, shape_str(xs));
              int64_t batches = 1;
              for (int64_t d = 0; d < b; ++d) {
                if (xs[d] != is[d]) fail("{}: batch dims of data {} and indices {} differ", label, shape_str(xs), shape_str(is));
                batches *= xs[d];
              }
              int64_t slice = 1;
              for (int64_t d = b + k; d < x.rank(); ++d) slice *= xs[d];
              int64_t per_batch_tuples = 1;
              for (size_t d = b; d + 1 < is.size(); ++d) per_batch_tuples *= is[d];
              const auto st = strides_of(xs);
              const int64_t batch_stride = b > 0 ? st[b - 1] : 0;
              Shape out(is.begin(), is.end() - 1);
              out.insert(out.end(), xs.begin() + b + k, xs.end());
              Tensor y(x.dtype(), out);
              auto idx = indices.to_int64_vector();
              int64_t t = 0;
              for (int64_t bi = 0; bi < batches; ++bi)
                for (int64_t j = 0; j < per_batch_tuples; ++j, ++t) {
                  int64_t off = bi * batch_stride;
                  for (int64_t q = 0; q < k; ++q) {
                    int64_t i = idx[t * k + q], dim = xs[b + q];
                    if (i < -dim || i >= dim) fail("{}: index {} is out of range for a dim of {}", label, i, dim);
                    off += (i < 0 ? i + dim : i) * st[b + q];
                  }
                  copy_elements(x, off, y, t * slice, slice);
                }
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
