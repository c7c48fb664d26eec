// Optional: wraps its input (or nothing) as an optional; OptionalHasElement: whether it holds a
// value; OptionalGetElement: the value held (error when empty). A present optional is its value.
#include "ops/sequence_util.h"

namespace ms {

namespace {
TypeInfo optional_of(const TypeInfo& t) {
  TypeInfo o;
  o.kind = TypeInfo::Kind::Optional;
  o.elem = std::make_shared<TypeInfo>(t);
  return o;
}
}  // namespace

void register_op_optional(OpRegistry& r) {
  r.add(OpDef("Optional")
            .inputs(0, 1)
            .outputs(1)
            .trait(kTraitSequence)
            .attr("type", AttrType::Undefined, false)  // a TypeProto, only needed without input
            .infer_fn([](InferContext& ctx) {
              if (ctx.has_input(0)) ctx.set_output_type(0, optional_of(ctx.input_type(0)));
            })
            .kernel_fn([](KernelContext& ctx) {
              ctx.set_output_value(0, ctx.has_input(0) ? ctx.input_value(0) : Value::none());
            }));
}

void register_op_optional_has_element(OpRegistry& r) {
  r.add(OpDef("OptionalHasElement")
            .inputs(0, 1)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, TypeInfo::tensor(DType::Bool, Shape{})); })
            .kernel_fn([](KernelContext& ctx) { ctx.set_output(0, Tensor::scalar<bool>(ctx.has_input(0))); }));
}

void register_op_optional_get_element(OpRegistry& r) {
  r.add(OpDef("OptionalGetElement")
            .inputs(1)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (t.kind == TypeInfo::Kind::Optional && t.elem)
                ctx.set_output_type(0, *t.elem);
              else if (t.kind != TypeInfo::Kind::Optional)
                ctx.set_output_type(0, t);
            })
            .kernel_fn([](KernelContext& ctx) {
              if (!ctx.has_input(0)) fail("{}: the optional input is empty", ctx.node().label());
              ctx.set_output_value(0, ctx.input_value(0));
            }));
}

}  // namespace ms
