// ConcatFromSequence: joins the tensors of a sequence along axis (new_axis=1: along a new axis).
#include "ops/sequence_util.h"

namespace ms {

void register_op_concat_from_sequence(OpRegistry& r) {
  r.add(OpDef("ConcatFromSequence")
            .inputs(1)
            .outputs(1)
            .trait(kTraitSequence)
            .attr("axis", AttrType::Int, true)
            .attr_int("new_axis", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (t.elem) ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.elem->dtype));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Value& s = ctx.input_value(0);
              if (!s.is_sequence()) fail("{}: input must be a sequence", who);
              if (s.sequence.empty()) fail("{}: cannot concatenate an empty sequence", who);
              const bool new_axis = ctx.attr_int("new_axis") != 0;
              const int64_t rank = s.sequence[0].rank();
              const int64_t axis = normalize_axis(ctx.attr_int("axis"), new_axis ? rank + 1 : rank, ctx.node());
              ctx.set_output(0, new_axis ? stack_axis(s.sequence, axis, who) : concat_axis(s.sequence, axis, who));
            }));
}

}  // namespace ms
