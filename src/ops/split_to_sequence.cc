// SplitToSequence: splits a tensor along axis into a sequence (sizes from `split`: one chunk size,
// a list of sizes, or absent = size 1 with the axis dropped unless keepdims).
#include "ops/sequence_util.h"

namespace ms {

void register_op_split_to_sequence(OpRegistry& r) {
  r.add(OpDef("SplitToSequence")
            .inputs(1, 2)
            .outputs(1)
            .trait(kTraitSequence)
            .attr_int("axis", 0)
            .attr_int("keepdims", 1)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, sequence_type(ctx.input_type(0).dtype)); })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              const int64_t axis = normalize_axis(ctx.attr_int("axis"), x.rank(), ctx.node());
              if (x.rank() == 0) fail("{}: input must have rank >= 1", who);
              const int64_t dim = x.dim(static_cast<int>(axis));
              std::vector<Tensor> parts;
              if (!ctx.has_input(1)) {
                const bool keep = ctx.attr_int("keepdims") != 0;
                for (int64_t i = 0; i < dim; ++i)
                  parts.push_back(keep ? slice_axis(x, axis, i, 1) : take_axis(x, axis, i));
              } else {
                const Tensor& s = ctx.input(1);
                std::vector<int64_t> sizes = s.to_int64_vector();
                if (s.rank() == 0) {
                  const int64_t chunk = sizes.at(0);
                  if (chunk <= 0) fail("{}: split size must be positive, got {}", who, chunk);
                  sizes.clear();
                  for (int64_t left = dim; left > 0; left -= chunk) sizes.push_back(std::min(chunk, left));
                }
                int64_t total = 0;
                for (int64_t v : sizes) {
                  if (v < 0) fail("{}: negative split size {}", who, v);
                  total += v;
                }
                if (total != dim) fail("{}: split sizes sum to {}, axis {} has {}", who, total, axis, dim);
                int64_t start = 0;
                for (int64_t v : sizes) {
                  parts.push_back(slice_axis(x, axis, start, v));
                  start += v;
                }
              }
              ctx.set_output_value(0, Value::of_sequence(std::move(parts), x.dtype()));
            }));
}

}  // namespace ms
