// OneHot: y = values[1] where the new axis index equals indices (negative ones + depth), values[0] elsewhere.
#include "ops/shape_ops_util.h"

#include <cmath>

namespace ms {
namespace {

int64_t one_hot_axis(const AttrReader& a, int64_t in_rank) {
  int64_t axis = a.attr_int("axis");
  if (axis < -in_rank - 1 || axis > in_rank)
    fail("{}: axis {} is out of range for indices of rank {}", a.node().label(), axis, in_rank);
  return axis < 0 ? axis + in_rank + 1 : axis;
}

int64_t one_hot_depth(const Tensor& t, const Node& node) {
  if (t.numel() != 1) fail("{}: depth must have one element, got shape {}", node.label(), shape_str(t.shape()));
  double d = dtype_is_float(t.dtype()) ? std::floor(t.as_double(0)) : static_cast<double>(t.as_int64(0));
  if (d < 1 || d > 1e9) fail("{}: invalid depth {}", node.label(), d);
  return static_cast<int64_t>(d);
}

}  // namespace

void register_op_one_hot(OpRegistry& r) {
  r.add(OpDef("OneHot")
            .inputs(3)
            .outputs(1)
            .attr_int("axis", -1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& idx = ctx.input_type(0);
              DType dt = ctx.input_type(2).dtype;
              if (!idx.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
                return;
              }
              std::vector<Dim> out = *idx.shape;
              int64_t axis = one_hot_axis(ctx, static_cast<int64_t>(out.size()));
              const Tensor* depth = ctx.input_constant(1);
              out.insert(out.begin() + axis, depth ? Dim::fixed(one_hot_depth(*depth, ctx.node())) : Dim{});
              ctx.set_output_type(0, TypeInfo::tensor(dt, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& indices = ctx.input(0);
              const Tensor& values = ctx.input(2);
              if (values.numel() != 2) fail("{}: values must hold [off, on], got shape {}", ctx.node().label(), shape_str(values.shape()));
              const int64_t depth = one_hot_depth(ctx.input(1), ctx.node());
              const int64_t axis = one_hot_axis(ctx, indices.rank());
              Shape out = indices.shape();
              out.insert(out.begin() + axis, depth);
              int64_t outer = 1, inner = 1;
              for (int64_t d = 0; d < axis; ++d) outer *= out[d];
              for (size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
              check_output_shape(out, ctx.node());
              Tensor y(values.dtype(), out);
              dispatch_by_size(values.dtype(), [&](auto tag) {  // all "off"
                using T = typename decltype(tag)::type;
                std::fill_n(raw_as<T>(y), y.numel(), raw_as<T>(values)[0]);
              });
              auto idx = dtype_is_float(indices.dtype()) ? std::vector<int64_t>() : indices.to_int64_vector();
              for (int64_t o = 0; o < outer; ++o)
                for (int64_t i = 0; i < inner; ++i) {
                  const int64_t k = o * inner + i;
                  int64_t v = idx.empty() ? static_cast<int64_t>(std::floor(indices.as_double(k))) : idx[k];
                  if (v < 0) v += depth;
                  if (v >= 0 && v < depth) copy_elements(values, 1, y, (o * depth + v) * inner + i, 1);
                }
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
