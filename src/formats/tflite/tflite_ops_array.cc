// TFLite arithmetic, reductions, shape/slicing/joining ops and the (de)quantization ops. These see
// NHWC tensors exactly as TFLite does, so their axes need no translation.
#include <algorithm>
#include <limits>

#include "formats/tflite/tflite_context.h"

namespace ms::tflite_format {

namespace {

using B = mstflite::BuiltinOperator;

void binary(ConverterTables& t, int code, const char* ir) {
  t.builtin[code] = [ir](TfliteContext& c, const Op& op) {
    int act = 0;
    if (const auto* o = op.builtin_options_as_AddOptions()) act = o->fused_activation_function();
    if (const auto* o = op.builtin_options_as_SubOptions()) act = o->fused_activation_function();
    if (const auto* o = op.builtin_options_as_MulOptions()) act = o->fused_activation_function();
    if (const auto* o = op.builtin_options_as_DivOptions()) act = o->fused_activation_function();
    c.set_output(op, 0, c.b.add(ir, {c.input(op, 0), c.input(op, 1)}, c.out_hint(op, 0)), act);
  };
}

void reduce(ConverterTables& t, int code, const char* ir) {
  t.builtin[code] = [ir](TfliteContext& c, const Op& op) {
    std::vector<int64_t> axes = c.constant_ints(op, 1, "axes");
    std::string hint = c.out_hint(op, 0);
    if (axes.empty()) {
      c.set_output(op, 0, c.input(op, 0));  // nothing to reduce (the IR would reduce all)
      return;
    }
    bool keep = op.builtin_options_as_ReducerOptions() && op.builtin_options_as_ReducerOptions()->keep_dims();
    std::map<std::string, Attribute> attrs{{"keepdims", Attribute::of_int(keep)}};
    std::vector<std::string> ins{c.input(op, 0)};
    if (std::string(ir) == "ReduceSum")  // axes are an input of ReduceSum at the IR's opset
      ins.push_back(c.b.int64s(axes, hint + "/axes"));
    else
      attrs["axes"] = Attribute::of_ints(axes);
    c.set_output(op, 0, c.b.add(ir, ins, hint, attrs));
  };
}

void pad(TfliteContext& c, const Op& op, const std::string& mode) {
  std::optional<Tensor> p = c.constant(op, 1);
  if (!p || p->rank() != 2 || p->dim(1) != 2) fail_unsupported("paddings must be a constant [rank, 2]");
  std::vector<int64_t> v = p->to_int64_vector(), pads(v.size());
  const int64_t r = p->dim(0);
  for (int64_t d = 0; d < r; ++d) {
    pads[d] = v[2 * d];
    pads[r + d] = v[2 * d + 1];
  }
  std::string hint = c.out_hint(op, 0);
  std::vector<std::string> ins{c.input(op, 0), c.b.int64s(pads, hint + "/pads")};
  if (c.has_input(op, 2)) ins.push_back(c.input(op, 2));
  c.set_output(op, 0, c.b.add("Pad", ins, hint, {{"mode", Attribute::of_string(mode)}}));
}

void split(TfliteContext& c, const Op& op, const std::string& x, int64_t axis, std::vector<int64_t> sizes) {
  std::vector<std::string> outs;
  for (size_t k = 0; k < op.outputs()->size(); ++k) outs.push_back(c.b.unique_name(c.out_hint(op, k)));
  std::vector<std::string> ins{x};
  if (!sizes.empty()) ins.push_back(c.b.int64s(sizes, outs[0] + "/sizes"));
  c.b.add_node("Split", ins, outs, {{"axis", Attribute::of_int(axis)}});
  for (size_t k = 0; k < outs.size(); ++k) c.set_output(op, k, outs[k]);
}

int64_t scalar(TfliteContext& c, const Op& op, size_t i, const char* what) {
  std::vector<int64_t> v = c.constant_ints(op, i, what);
  if (v.size() != 1) fail("{} must hold one value, got {}", what, v.size());
  return v[0];
}

}  // namespace

void add_array_converters(ConverterTables& t) {
  binary(t, B::BuiltinOperator_ADD, "Add");
  binary(t, B::BuiltinOperator_SUB, "Sub");
  binary(t, B::BuiltinOperator_MUL, "Mul");
  binary(t, B::BuiltinOperator_DIV, "Div");
  binary(t, B::BuiltinOperator_MAXIMUM, "Max");
  binary(t, B::BuiltinOperator_MINIMUM, "Min");
  binary(t, B::BuiltinOperator_POW, "Pow");
  binary(t, B::BuiltinOperator_LESS, "Less");
  binary(t, B::BuiltinOperator_GREATER, "Greater");
  binary(t, B::BuiltinOperator_EQUAL, "Equal");
  binary(t, B::BuiltinOperator_GREATER_EQUAL, "GreaterOrEqual");
  binary(t, B::BuiltinOperator_LESS_EQUAL, "LessOrEqual");
  binary(t, B::BuiltinOperator_LOGICAL_AND, "And");
  binary(t, B::BuiltinOperator_LOGICAL_OR, "Or");
  t.builtin[B::BuiltinOperator_SQUARED_DIFFERENCE] = [](TfliteContext& c, const Op& op) {
    std::string d = c.b.add("Sub", {c.input(op, 0), c.input(op, 1)}, c.out_hint(op, 0) + "/diff");
    c.set_output(op, 0, c.b.add("Mul", {d, d}, c.out_hint(op, 0)));
  };
  reduce(t, B::BuiltinOperator_MEAN, "ReduceMean");
  reduce(t, B::BuiltinOperator_SUM, "ReduceSum");
  reduce(t, B::BuiltinOperator_REDUCE_MAX, "ReduceMax");
  reduce(t, B::BuiltinOperator_REDUCE_MIN, "ReduceMin");
  reduce(t, B::BuiltinOperator_REDUCE_PROD, "ReduceProd");
  t.builtin[B::BuiltinOperator_PAD] = [](TfliteContext& c, const Op& op) { pad(c, op, "constant"); };
  t.builtin[B::BuiltinOperator_PADV2] = t.builtin[B::BuiltinOperator_PAD];
  t.builtin[B::BuiltinOperator_MIRROR_PAD] = [](TfliteContext& c, const Op& op) {
    const auto* o = op.builtin_options_as_MirrorPadOptions();
    if (o && o->mode() != mstflite::MirrorPadMode_REFLECT) fail_unsupported("MIRROR_PAD mode SYMMETRIC (no equivalent)");
    pad(c, op, "reflect");
  };
  t.builtin[B::BuiltinOperator_RESHAPE] = [](TfliteContext& c, const Op& op) {
    // The target shape: the shape input when constant, else the output tensor's static shape.
    std::vector<int64_t> shape;
    if (auto s = c.has_input(op, 1) ? c.constant(op, 1) : std::nullopt) shape = s->to_int64_vector();
    else if (const auto* o = op.builtin_options_as_ReshapeOptions(); o && o->new_shape()) shape.assign(o->new_shape()->begin(), o->new_shape()->end());
    else shape = c.output_shape(op, 0);
    std::string hint = c.out_hint(op, 0);
    c.set_output(op, 0, c.b.add("Reshape", {c.input(op, 0), c.b.int64s(shape, hint + "/shape")}, hint));
  };
  t.builtin[B::BuiltinOperator_SQUEEZE] = [](TfliteContext& c, const Op& op) {
    std::vector<std::string> ins{c.input(op, 0)};
    const auto* o = op.builtin_options_as_SqueezeOptions();
    if (o && o->squeeze_dims() && o->squeeze_dims()->size())
      ins.push_back(c.b.int64s({o->squeeze_dims()->begin(), o->squeeze_dims()->end()}, c.out_hint(op, 0) + "/axes"));
    c.set_output(op, 0, c.b.add("Squeeze", ins, c.out_hint(op, 0)));
  };
  t.builtin[B::BuiltinOperator_EXPAND_DIMS] = [](TfliteContext& c, const Op& op) {
    std::string axes = c.b.int64s({scalar(c, op, 1, "axis")}, c.out_hint(op, 0) + "/axes");
    c.set_output(op, 0, c.b.add("Unsqueeze", {c.input(op, 0), axes}, c.out_hint(op, 0)));
  };
  t.builtin[B::BuiltinOperator_TRANSPOSE] = [](TfliteContext& c, const Op& op) {
    c.set_output(op, 0, c.b.transpose(c.input(op, 0), c.constant_ints(op, 1, "perm"), c.out_hint(op, 0)));
  };
  t.builtin[B::BuiltinOperator_CONCATENATION] = [](TfliteContext& c, const Op& op) {
    const auto* o = op.builtin_options_as_ConcatenationOptions();
    std::vector<std::string> ins;
    for (size_t i = 0; i < op.inputs()->size(); ++i) ins.push_back(c.input(op, i));
    c.set_output(op, 0, c.b.add("Concat", ins, c.out_hint(op, 0), {{"axis", Attribute::of_int(o ? o->axis() : 0)}}),
                 o ? o->fused_activation_function() : 0);
  };
  t.builtin[B::BuiltinOperator_PACK] = [](TfliteContext& c, const Op& op) {
    const auto* o = op.builtin_options_as_PackOptions();
    int64_t axis = o ? o->axis() : 0;
    std::string axes = c.b.int64s({axis}, c.out_hint(op, 0) + "/axes");
    std::vector<std::string> ins;
    for (size_t i = 0; i < op.inputs()->size(); ++i) ins.push_back(c.b.add("Unsqueeze", {c.input(op, i), axes}, c.out_hint(op, 0) + "/in"));
    c.set_output(op, 0, c.b.add("Concat", ins, c.out_hint(op, 0), {{"axis", Attribute::of_int(axis)}}));
  };
  t.builtin[B::BuiltinOperator_SPLIT] = [](TfliteContext& c, const Op& op) {
    split(c, op, c.input(op, 1), scalar(c, op, 0, "axis"), {});
  };
  t.builtin[B::BuiltinOperator_SPLIT_V] = [](TfliteContext& c, const Op& op) {
    std::vector<int64_t> sizes = c.constant_ints(op, 1, "size_splits");
    int64_t axis = scalar(c, op, 2, "axis");
    Shape xs = c.input_shape(op, 0);
    int64_t a = axis < 0 ? axis + static_cast<int64_t>(xs.size()) : axis;
    auto unknown = std::find(sizes.begin(), sizes.end(), -1);
    if (unknown != sizes.end()) {
      if (a < 0 || a >= static_cast<int64_t>(xs.size()) || xs[a] < 0) fail_unsupported("a size of -1 needs the static size of axis {}", axis);
      int64_t known = 0;
      for (int64_t s : sizes) known += s == -1 ? 0 : s;
      *unknown = xs[a] - known;
    }
    split(c, op, c.input(op, 0), axis, sizes);
  };
  t.builtin[B::BuiltinOperator_STRIDED_SLICE] = [](TfliteContext& c, const Op& op) {
    if (!op.builtin_options_as_StridedSliceOptions()) fail("has no StridedSliceOptions");
    const auto& o = *op.builtin_options_as_StridedSliceOptions();
    if (o.offset()) fail_unsupported("offset=true (end relative to begin)");
    importer::StridedSlice s;
    s.begin = c.constant_ints(op, 1, "begin");
    s.end = c.constant_ints(op, 2, "end");
    s.strides = c.constant_ints(op, 3, "strides");
    s.begin_mask = o.begin_mask();
    s.end_mask = o.end_mask();
    s.ellipsis_mask = o.ellipsis_mask();
    s.new_axis_mask = o.new_axis_mask();
    s.shrink_axis_mask = o.shrink_axis_mask();
    std::string out = c.b.unique_name(c.out_hint(op, 0));
    importer::emit_strided_slice(c.b, c.input(op, 0), s, out, out);
    c.set_output(op, 0, out);
  };
  t.builtin[B::BuiltinOperator_SLICE] = [](TfliteContext& c, const Op& op) {
    std::vector<int64_t> begin = c.constant_ints(op, 1, "begin"), size = c.constant_ints(op, 2, "size"), ends, axes;
    if (begin.size() != size.size()) fail("begin and size differ in length");
    for (size_t d = 0; d < begin.size(); ++d) {
      ends.push_back(size[d] == -1 ? std::numeric_limits<int64_t>::max() : begin[d] + size[d]);
      axes.push_back(static_cast<int64_t>(d));
    }
    std::string hint = c.out_hint(op, 0);
    c.set_output(op, 0, c.b.add("Slice", {c.input(op, 0), c.b.int64s(begin, hint + "/starts"), c.b.int64s(ends, hint + "/ends"),
                                          c.b.int64s(axes, hint + "/axes")}, hint));
  };
  t.builtin[B::BuiltinOperator_GATHER] = [](TfliteContext& c, const Op& op) {
    const auto* o = op.builtin_options_as_GatherOptions();
    if (o && o->batch_dims() != 0) fail_unsupported("batch_dims != 0");
    c.set_output(op, 0, c.b.add("Gather", {c.input(op, 0), c.input(op, 1)}, c.out_hint(op, 0), {{"axis", Attribute::of_int(o ? o->axis() : 0)}}));
  };
  t.builtin[B::BuiltinOperator_TILE] = [](TfliteContext& c, const Op& op) {
    std::string reps = c.b.add("Cast", {c.input(op, 1)}, c.out_hint(op, 0) + "/reps", {{"to", Attribute::of_int(int64_t(DType::Int64))}});
    c.set_output(op, 0, c.b.add("Tile", {c.input(op, 0), reps}, c.out_hint(op, 0)));
  };
  for (int code : {B::BuiltinOperator_ARG_MAX, B::BuiltinOperator_ARG_MIN})
    t.builtin[code] = [code](TfliteContext& c, const Op& op) {
      std::map<std::string, Attribute> attrs{{"axis", Attribute::of_int(scalar(c, op, 1, "axis"))}, {"keepdims", Attribute::of_int(0)}};
      std::string hint = c.out_hint(op, 0);
      std::string y = c.b.add(code == B::BuiltinOperator_ARG_MAX ? "ArgMax" : "ArgMin", {c.input(op, 0)}, hint + "/int64", attrs);
      if (c.output_dtype(op, 0) != DType::Int64) y = c.b.add("Cast", {y}, hint, {{"to", Attribute::of_int(int64_t(c.output_dtype(op, 0)))}});
      c.set_output(op, 0, y);
    };
  t.builtin[B::BuiltinOperator_CAST] = [](TfliteContext& c, const Op& op) {
    c.set_output(op, 0, c.b.add("Cast", {c.input(op, 0)}, c.out_hint(op, 0), {{"to", Attribute::of_int(int64_t(c.output_dtype(op, 0)))}}));
  };
  // In QDQ IR a QUANTIZE is the identity on the float value; set_output rounds it to the output
  // tensor's grid (and a requantization to another scale is the same thing).
  t.builtin[B::BuiltinOperator_QUANTIZE] = [](TfliteContext& c, const Op& op) { c.set_output(op, 0, c.input(op, 0)); };
  t.builtin[B::BuiltinOperator_DEQUANTIZE] = [](TfliteContext& c, const Op& op) {
    // fp16-stored weights: folded into float32 constants (TFLite does the same when it prepares).
    std::optional<Tensor> w = c.constant(op, 0);
    if (w && w->dtype() == DType::Float16) {
      c.set_constant_output(op, 0, to_float32(*w));
      return;
    }
    c.set_output(op, 0, c.input(op, 0));
  };
  t.builtin[B::BuiltinOperator_DENSIFY] = [](TfliteContext& c, const Op& op) {
    std::optional<Tensor> w = c.constant(op, 0);  // already expanded from its sparse storage
    if (!w) fail_unsupported("DENSIFY of a tensor computed at run time");
    c.set_constant_output(op, 0, *w);
  };
}

}  // namespace ms::tflite_format
