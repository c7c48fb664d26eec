// Concat: y = the inputs joined along axis (all other dims equal).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_concat(OpRegistry& r) {
  r.add(OpDef("Concat").trait(kTraitHalfCompute)
            .inputs(1, -1)
            .outputs(1)
            .attr("axis", AttrType::Int, true)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x0 = ctx.input_type(0);
              std::optional<std::vector<Dim>> out;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                const TypeInfo& t = ctx.input_type(i);
                if (!t.shape) {
                  if (out) continue;
                  ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x0.dtype));
                  return;
                }
                const int64_t rank = static_cast<int64_t>(t.shape->size());
                if (rank == 0) fail("{}: inputs must have rank >= 1", ctx.node().label());
                int64_t axis = axis_index(ctx.attr_int("axis"), rank, ctx.node());
                if (!out) {
                  out = *t.shape;
                  continue;
                }
                if (out->size() != t.shape->size())
                  fail("{}: inputs have ranks {} and {}", ctx.node().label(), out->size(), t.shape->size());
                for (int64_t d = 0; d < rank; ++d) {
                  Dim& o = (*out)[d];
                  const Dim& v = (*t.shape)[d];
                  if (d == axis)
                    o = (o.is_static() && v.is_static()) ? Dim::fixed(o.value + v.value) : Dim{};
                  else if (!o.is_static() && v.is_static())
                    o = v;
                }
              }
              // An input of unknown rank leaves the concat axis unknown.
              for (size_t i = 0; i < ctx.num_inputs(); ++i)
                if (!ctx.input_type(i).shape)
                  (*out)[axis_index(ctx.attr_int("axis"), static_cast<int64_t>(out->size()), ctx.node())] = Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(x0.dtype, *out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x0 = ctx.input(0);
              const int64_t rank = x0.rank();
              if (rank == 0) fail("{}: inputs must have rank >= 1", ctx.node().label());
              const int64_t axis = axis_index(ctx.attr_int("axis"), rank, ctx.node());
              Shape out_shape = x0.shape();
              out_shape[axis] = 0;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                const Tensor& t = ctx.input(i);
                if (t.dtype() != x0.dtype())
                  fail("{}: input {} is {}, input 0 is {}", ctx.node().label(), i, dtype_name(t.dtype()),
                       dtype_name(x0.dtype()));
                bool ok = t.rank() == rank;
                for (int64_t d = 0; ok && d < rank; ++d) ok = d == axis || t.shape()[d] == x0.shape()[d];
                if (!ok)
                  fail("{}: input {} has shape {}, incompatible with {} on axis {}", ctx.node().label(), i,
                       shape_str(t.shape()), shape_str(x0.shape()), axis);
                out_shape[axis] += t.shape()[axis];
              }
              Tensor y(x0.dtype(), out_shape);
              int64_t outer = 1, inner = 1;
              for (int64_t d = 0; d < axis; ++d) outer *= out_shape[d];
              for (int64_t d = axis + 1; d < rank; ++d) inner *= out_shape[d];
              const int64_t out_row = out_shape[axis] * inner;
              int64_t col = 0;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                const Tensor& t = ctx.input(i);
                const int64_t row = t.shape()[axis] * inner;
                for (int64_t o = 0; o < outer; ++o) copy_elements(t, o * row, y, o * out_row + col, row);
                col += row;
              }
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
