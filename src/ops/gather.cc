// Gather: y[a..., i..., b...] = x[a..., indices[i...], b...] along axis (negative indices count from the end).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_gather(OpRegistry& r) {
  r.add(OpDef("Gather").trait(kTraitHalfCompute)
            .inputs(2)
            .outputs(1)
            .attr_int("axis", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              const TypeInfo& idx = ctx.input_type(1);
              if (!x.shape || !idx.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              int64_t axis = axis_index(ctx.attr_int("axis"), static_cast<int64_t>(x.shape->size()), ctx.node());
              std::vector<Dim> out(x.shape->begin(), x.shape->begin() + axis);
              out.insert(out.end(), idx.shape->begin(), idx.shape->end());
              out.insert(out.end(), x.shape->begin() + axis + 1, x.shape->end());
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& indices = ctx.input(1);
              if (x.rank() == 0) fail("{}: data must have rank >= 1", ctx.node().label());
              const int64_t axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
              const int64_t dim = x.shape()[axis];
              auto idx = indices.to_int64_vector();
              for (int64_t& i : idx) {
                if (i < -dim || i >= dim) fail("{}: index {} is out of range for a dim of {}", ctx.node().label(), i, dim);
                if (i < 0) i += dim;
              }
              Shape out(x.shape().begin(), x.shape().begin() + axis);
              out.insert(out.end(), indices.shape().begin(), indices.shape().end());
              out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
              Tensor y(x.dtype(), out);
              int64_t outer = 1, inner = 1;
              for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
              for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
              const int64_t n = static_cast<int64_t>(idx.size());
              for (int64_t o = 0; o < outer; ++o)
                for (int64_t k = 0; k < n; ++k) copy_elements(x, (o * dim + idx[k]) * inner, y, (o * n + k) * inner, inner);
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
