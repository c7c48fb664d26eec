// Compress: y = the slices of x along axis (of flattened x without axis) where condition is true.
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_compress(OpRegistry& r) {
  r.add(OpDef("Compress")
            .inputs(2)
            .outputs(1)
            .attr("axis", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              Dim kept;  // the number of true conditions when the condition is constant
              if (const Tensor* c = ctx.input_constant(1)) {
                int64_t n = 0;
                for (int64_t i = 0; i < c->numel(); ++i) n += c->as_double(i) != 0;
                kept = Dim::fixed(n);
              }
              if (!ctx.has_attr("axis")) {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>{kept}));
                return;
              }
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              std::vector<Dim> out = *x.shape;
              out[axis_index(ctx.attr_int("axis"), static_cast<int64_t>(out.size()), ctx.node())] = kept;
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              Tensor x = ctx.input(0);
              const Tensor& cond = ctx.input(1);
              if (cond.rank() != 1) fail("{}: condition must be 1-D, got {}", ctx.node().label(), shape_str(cond.shape()));
              int64_t axis = 0;
              if (ctx.has_attr("axis")) {
                if (x.rank() == 0) fail("{}: input must have rank >= 1", ctx.node().label());
                axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
              } else {
                x = x.reshaped({x.numel()});
              }
              const int64_t dim = x.shape()[axis];
              std::vector<int64_t> keep;
              for (int64_t i = 0; i < cond.numel(); ++i) {
                if (cond.as_double(i) == 0) continue;
                if (i >= dim) fail("{}: condition is true at {} beyond the axis size {}", ctx.node().label(), i, dim);
                keep.push_back(i);
              }
              const auto st = strides_of(x.shape());
              std::vector<std::vector<int64_t>> maps(x.rank());
              for (int d = 0; d < x.rank(); ++d) {
                if (d == axis)
                  for (int64_t i : keep) maps[d].push_back(i * st[d]);
                else
                  for (int64_t o = 0; o < x.shape()[d]; ++o) maps[d].push_back(o * st[d]);
              }
              ctx.set_output(0, gather_by_axis_offsets(x, maps));
            }));
}

}  // namespace ms
