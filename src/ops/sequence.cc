// Sequence basics: SequenceEmpty (a new empty sequence), SequenceConstruct (inputs as a sequence),
// SequenceAt (s[pos]), SequenceInsert (s with t inserted at pos, default end), SequenceErase (s
// without s[pos], default last), SequenceLength (len(s)). Negative positions count from the end.
#include "ops/sequence_util.h"

namespace ms {

namespace {
const Value& sequence_input(const KernelContext& ctx, size_t i) {
  const Value& v = ctx.input_value(i);
  if (!v.is_sequence()) fail("{}: input {} must be a sequence", ctx.node().label(), i);
  return v;
}

// Position input i normalised to [0, n] (allow_end) or [0, n); `def` when the input is absent.
int64_t position(const KernelContext& ctx, size_t i, int64_t n, int64_t def, bool allow_end) {
  if (!ctx.has_input(i)) return def;
  const Tensor& t = ctx.input(i);
  if (t.numel() != 1 || !dtype_is_integer(t.dtype()))
    fail("{}: position must be an integer scalar, got {} {}", ctx.node().label(), dtype_name(t.dtype()),
         shape_str(t.shape()));
  int64_t p = t.as_int64(0);
  const int64_t hi = allow_end ? n : n - 1;
  if (p < -n || p > hi) fail("{}: position {} is out of range for a sequence of {}", ctx.node().label(), p, n);
  return p < 0 ? p + n : p;
}

DType seq_elem_dtype(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return DType::Undefined;
  const TypeInfo& t = ctx.input_type(i);
  return t.elem ? t.elem->dtype : DType::Undefined;
}
}  // namespace

void register_op_sequence_empty(OpRegistry& r) {
  r.add(OpDef("SequenceEmpty")
            .inputs(0)
            .outputs(1)
            .trait(kTraitSequence)
            .attr("dtype", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              ctx.set_output_type(0, sequence_type(ctx.has_attr("dtype") ? DType(ctx.attr_int("dtype")) : DType::Float32));
            })
            .kernel_fn([](KernelContext& ctx) {
              const int64_t dt = ctx.has_attr("dtype") ? ctx.attr_int("dtype") : int64_t(DType::Float32);
              if (!dtype_is_valid(static_cast<int32_t>(dt))) fail("{}: invalid dtype {}", ctx.node().label(), dt);
              ctx.set_output_value(0, Value::of_sequence({}, DType(dt)));
            }));
}

void register_op_sequence_construct(OpRegistry& r) {
  r.add(OpDef("SequenceConstruct")
            .inputs(1, -1)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, sequence_type(ctx.input_type(0).dtype)); })
            .kernel_fn([](KernelContext& ctx) {
              std::vector<Tensor> items;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                items.push_back(ctx.input(i));
                if (items.back().dtype() != items[0].dtype())
                  fail("{}: inputs have different dtypes {} and {}", ctx.node().label(),
                       dtype_name(items[0].dtype()), dtype_name(items.back().dtype()));
              }
              ctx.set_output_value(0, Value::of_sequence(std::move(items), items[0].dtype()));
            }));
}

void register_op_sequence_at(OpRegistry& r) {
  r.add(OpDef("SequenceAt")
            .inputs(2)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (t.elem) ctx.set_output_type(0, *t.elem);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Value& s = sequence_input(ctx, 0);
              const int64_t n = static_cast<int64_t>(s.sequence.size());
              if (!ctx.has_input(1)) fail("{}: position is required", ctx.node().label());
              ctx.set_output(0, s.sequence[position(ctx, 1, n, 0, false)]);
            }));
}

void register_op_sequence_insert(OpRegistry& r) {
  r.add(OpDef("SequenceInsert")
            .inputs(2, 3)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) {
              DType dt = seq_elem_dtype(ctx, 0);
              if (dt == DType::Undefined) dt = ctx.input_type(1).dtype;
              ctx.set_output_type(0, sequence_type(dt));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Value& s = sequence_input(ctx, 0);
              const Tensor& t = ctx.input(1);
              if (s.sequence_dtype != DType::Undefined && t.dtype() != s.sequence_dtype)
                fail("{}: cannot insert a {} tensor into a sequence of {}", ctx.node().label(),
                     dtype_name(t.dtype()), dtype_name(s.sequence_dtype));
              std::vector<Tensor> items = s.sequence;
              const int64_t n = static_cast<int64_t>(items.size());
              items.insert(items.begin() + position(ctx, 2, n, n, true), t);
              ctx.set_output_value(0, Value::of_sequence(std::move(items), t.dtype()));
            }));
}

void register_op_sequence_erase(OpRegistry& r) {
  r.add(OpDef("SequenceErase")
            .inputs(1, 2)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, ctx.input_type(0)); })
            .kernel_fn([](KernelContext& ctx) {
              const Value& s = sequence_input(ctx, 0);
              std::vector<Tensor> items = s.sequence;
              const int64_t n = static_cast<int64_t>(items.size());
              if (n == 0) fail("{}: cannot erase from an empty sequence", ctx.node().label());
              items.erase(items.begin() + position(ctx, 1, n, n - 1, false));
              ctx.set_output_value(0, Value::of_sequence(std::move(items), s.sequence_dtype));
            }));
}

void register_op_sequence_length(OpRegistry& r) {
  r.add(OpDef("SequenceLength")
            .inputs(1)
            .outputs(1)
            .trait(kTraitSequence)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, Shape{})); })
            .kernel_fn([](KernelContext& ctx) {
              const Value& s = sequence_input(ctx, 0);
              ctx.set_output(0, Tensor::scalar<int64_t>(static_cast<int64_t>(s.sequence.size())));
            }));
}

}  // namespace ms
