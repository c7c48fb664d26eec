// Expand: y = x broadcast (numpy rules) with `shape`; the output shape is broadcast(x.shape, shape).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_expand(OpRegistry& r) {
  r.add(OpDef("Expand").trait(kTraitHalfCompute)
            .inputs(2)
            .outputs(1)
            .trait(kTraitBroadcast)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              auto shape = const_ints(ctx, 1);
              auto len = static_length(ctx, 1);
              if (x.shape && !shape && len) {
                // Rank is known; a dim of x above 1 survives broadcasting, anything else may change.
                const size_t rank = std::max<size_t>(x.shape->size(), static_cast<size_t>(*len));
                std::vector<Dim> out(rank);
                for (size_t i = 0; i < x.shape->size(); ++i) {
                  const Dim& d = (*x.shape)[i];
                  if (d.is_static() && d.value > 1) out[rank - x.shape->size() + i] = d;
                }
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
                return;
              }
              if (!x.shape || !shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              for (int64_t d : *shape)
                if (d < 0) fail("{}: negative dim {} in shape", ctx.node().label(), d);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, broadcast_dims({*x.shape, dims_of(*shape)}, ctx.node())));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              Shape shape = ctx.input(1).to_int64_vector();
              for (int64_t d : shape)
                if (d < 0) fail("{}: negative dim {} in shape", ctx.node().label(), d);
              Shape out = broadcast_shapes({x.shape(), shape}, ctx.node());
              check_output_shape(out, ctx.node());
              const auto st = strides_of(x.shape());
              const size_t off = out.size() - x.shape().size();
              std::vector<std::vector<int64_t>> maps(out.size());
              for (size_t d = 0; d < out.size(); ++d) {
                bool from_x = d >= off && x.shape()[d - off] != 1;
                for (int64_t o = 0; o < out[d]; ++o) maps[d].push_back(from_x ? o * st[d - off] : 0);
              }
              ctx.set_output(0, gather_by_axis_offsets(x, maps));
            }));
}

}  // namespace ms
