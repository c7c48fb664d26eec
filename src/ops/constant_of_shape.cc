// ConstantOfShape: y = a tensor of the given shape filled with `value` (default float32 0).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

Tensor fill_value(const AttrReader& a) {
  if (!a.has_attr("value")) return Tensor::scalar<float>(0.0f);
  const Tensor& v = a.attr_tensor("value");
  if (v.numel() != 1) fail("{}: value must hold one element, it has {}", a.node().label(), v.numel());
  return v;
}

}  // namespace

void register_op_constant_of_shape(OpRegistry& r) {
  r.add(OpDef("ConstantOfShape")
            .inputs(1)
            .outputs(1)
            .attr("value", AttrType::Tensor, false)
            .infer_fn([](InferContext& ctx) {
              DType dt = fill_value(ctx).dtype();
              if (auto shape = const_ints(ctx, 0)) {
                ctx.set_output_type(0, TypeInfo::tensor(dt, *shape));
                return;
              }
              const TypeInfo& s = ctx.input_type(0);
              if (s.shape && s.shape->size() == 1 && (*s.shape)[0].is_static())
                ctx.set_output_type(0, TypeInfo::tensor(dt, std::vector<Dim>(static_cast<size_t>((*s.shape)[0].value))));
              else
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
            })
            .kernel_fn([](KernelContext& ctx) {
              Tensor v = fill_value(ctx);
              Shape shape = ctx.input(0).to_int64_vector();
              for (int64_t d : shape)
                if (d < 0) fail("{}: negative dim in shape {}", ctx.node().label(), shape_str(shape));
              check_output_shape(shape, ctx.node());
              std::vector<std::vector<int64_t>> maps;
              for (int64_t d : shape) maps.emplace_back(static_cast<size_t>(d), 0);
              ctx.set_output(0, gather_by_axis_offsets(v.reshaped({}), maps));
            }));
}

}  // namespace ms
