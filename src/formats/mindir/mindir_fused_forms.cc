#include "formats/mindir/mindir_fused_forms.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "formats/mindir/mindir_write_util.h"
#include "ops/ms_domain.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

// Lite ActivationType values (shared/docs/mindir-format.md §3.4).
enum : int64_t {
  kNone = 0, kRelu = 1, kSigmoid = 2, kRelu6 = 3, kLeakyRelu = 5, kRelu1 = 7, kTanh = 10, kHSwish = 12,
  kHSigmoid = 13, kHardTanh = 16, kSwish = 18, kGelu = 19
};

struct Activation {
  std::string name;
  std::vector<float> params;
};

Activation activation_of(WriteCtx& c) {
  Activation a{str_attr(c, "activation", ""), {}};
  if (const Attribute* p = c.attr("activation_params")) a.params = p->floats;
  return a;
}

bool params_are(const Activation& a, std::vector<float> v) { return a.params == v; }

// The activation_type a Lite fusion primitive carries for `a`, when the enum holds it whole
// (no parameters besides those the enum value implies).
std::optional<int64_t> lite_type(const Activation& a) {
  if (a.name.empty()) return kNone;
  if (a.name == "Relu") return kRelu;
  if (a.name == "Sigmoid") return kSigmoid;
  if (a.name == "Tanh") return kTanh;
  if (a.name == "HardSwish") return kHSwish;
  if (a.name == "Swish") return kSwish;
  if (a.name == "Gelu") return kGelu;
  if (a.name == "Clip" && params_are(a, {0.f, 6.f})) return kRelu6;
  if (a.name == "Clip" && params_are(a, {-1.f, 1.f})) return kRelu1;
  if (a.name == "HardSigmoid" && params_are(a, {1.f / 6.f, 0.5f})) return kHSigmoid;  // Lite's relu6(x + 3) / 6
  return std::nullopt;
}

// `y` followed by activation `a` as its own primitive (those with parameters Lite's fusion
// primitives cannot hold): Lite's Activation with alpha / min_val / max_val, or HSigmoid.
std::string separate_activation(WriteCtx& c, const std::string& y, const Activation& a, const Abstract& out) {
  if (a.name == "LeakyRelu" && a.params.size() == 1)
    return c.call("Activation", {{"activation_type", MsValue::of_int(kLeakyRelu)}, {"alpha", MsValue::of_float(a.params[0])}}, {y}, out);
  if (a.name == "Clip" && a.params.size() == 2)
    return c.call("Activation", {{"activation_type", MsValue::of_int(kHardTanh)}, {"min_val", MsValue::of_float(a.params[0])},
                                 {"max_val", MsValue::of_float(a.params[1])}}, {y}, out);
  if (a.name == "HardSigmoid" && a.params.size() == 2)
    return c.call("HSigmoid", {{"alpha", MsValue::of_float(a.params[0])}, {"beta", MsValue::of_float(a.params[1])}}, {y}, out);
  fail_unsupported("{}: fused activation {} has no MindSpore Lite form", label(c), a.name);
}

// Calls `prim` with the activation fused when Lite's enum holds it, else followed by it.
std::string with_activation(WriteCtx& c, const std::string& prim, Attrs attrs, const std::vector<std::string>& ins) {
  Activation a = activation_of(c);
  std::optional<int64_t> t = lite_type(a);
  attrs["activation_type"] = MsValue::of_int(t.value_or(kNone));
  if (t) return c.call(prim, attrs, ins, out_abs(c));
  return separate_activation(c, c.call(prim, attrs, ins, Abstract{}), a, out_abs(c));
}

}  // namespace

// Conv2DFusion(x, w[, b]) as Lite's ONNX parser writes it; FusedConv's residual Z is added by an
// AddFusion that then carries the activation (Y = act(conv + Z)).
void export_fused_conv(WriteCtx& c) {
  int r = rank_of(c, 1);
  if (r != 4) fail_unsupported("{}: FusedConv is written to MindIR for 2-D convolutions only (Conv2DFusion)", label(c));
  auto wd = dims_of(c, 1);
  std::vector<int64_t> k = ints_attr(c, "kernel_shape").value_or(std::vector<int64_t>{wd[2], wd[3]});
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
  int64_t pad_mode = 0;  // PAD
  if (auto_pad == "VALID") pad_mode = 2;
  else if (auto_pad == "SAME_UPPER") pad_mode = 1;
  else if (auto_pad != "NOTSET") fail_unsupported("{}: auto_pad {} has no Conv2DFusion form", label(c), auto_pad);
  int64_t group = int_attr(c, "group", 1);
  Attrs a{{"kernel_size", MsValue::of_ints(k)},
          {"stride", MsValue::of_ints(ints_attr(c, "strides").value_or(std::vector<int64_t>{1, 1}))},
          {"dilation", MsValue::of_ints(ints_attr(c, "dilations").value_or(std::vector<int64_t>{1, 1}))},
          {"pad_mode", MsValue::of_int(pad_mode)},
          {"pad_list", MsValue::of_ints({pads[0], pads[2], pads[1], pads[3]})},
          {"group", MsValue::of_int(group)},
          {"format", MsValue::of_int(0)}};
  if (wd.size() == 4 && wd[0] >= 0 && wd[1] >= 0) {
    a["out_channel"] = MsValue::of_int(wd[0]);
    a["in_channel"] = MsValue::of_int(wd[1] * group);
    a["is_depth_wise"] = MsValue::of_bool(group > 1 && group == wd[0] && wd[1] == 1);
  }
  std::vector<std::string> ins{c.in(0), c.in(1)};
  if (has_in(c, 2)) ins.push_back(c.in(2));
  if (!has_in(c, 3)) {
    c.bind(out0(c), with_activation(c, "Conv2DFusion", a, ins));
    return;
  }
  a["activation_type"] = MsValue::of_int(kNone);
  std::string conv = c.call("Conv2DFusion", a, ins, Abstract{});
  c.bind(out0(c), with_activation(c, "AddFusion", {}, {conv, c.in(3)}));
}

// MatMulFusion(a, b[, bias]): the bias is what FusedMatMul adds (1-D over the last dim).
void export_fused_mat_mul(WriteCtx& c) {
  std::vector<std::string> ins{c.in(0), c.in(1)};
  if (has_in(c, 2)) ins.push_back(c.in(2));
  Attrs a{{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(false)}};
  c.bind(out0(c), with_activation(c, "MatMulFusion", a, ins));
}

// Gemm with alpha 1 and a 1-D C (beta 1) is MatMulFusion(a, b, c); otherwise MatMulFusion and the
// scaling / addition as MulFusion / AddFusion, the last one carrying the activation.
void export_fused_gemm(WriteCtx& c) {
  Emit e{c};
  float alpha = float_attr(c, "alpha", 1.f), beta = float_attr(c, "beta", 1.f);
  Attrs a{{"transpose_a", MsValue::of_bool(int_attr(c, "transA", 0) != 0)},
          {"transpose_b", MsValue::of_bool(int_attr(c, "transB", 0) != 0)}};
  bool bias_1d = has_in(c, 2) && rank_of(c, 2) == 1 && beta == 1.f;
  if (alpha == 1.f && (!has_in(c, 2) || bias_1d || beta == 0.f)) {
    std::vector<std::string> ins{c.in(0), c.in(1)};
    if (bias_1d) ins.push_back(c.in(2));
    c.bind(out0(c), with_activation(c, "MatMulFusion", a, ins));
    return;
  }
  DType dt = out_abs(c).dtype;
  a["activation_type"] = MsValue::of_int(kNone);
  std::string y = c.call("MatMulFusion", a, {c.in(0), c.in(1)}, Abstract{});
  if (alpha != 1.f) y = c.call("MulFusion", {{"activation_type", MsValue::of_int(kNone)}}, {y, e.scalar(dt, alpha)}, Abstract{});
  if (!has_in(c, 2) || beta == 0.f) {
    // Only an activation remains: Lite's Activation primitive, or the separate form.
    Activation act = activation_of(c);
    std::optional<int64_t> t = lite_type(act);
    if (act.name.empty()) y = c.call("Identity", {}, {y}, out_abs(c));
    else if (t) y = c.call("Activation", {{"activation_type", MsValue::of_int(*t)}}, {y}, out_abs(c));
    else y = separate_activation(c, y, act, out_abs(c));
    c.bind(out0(c), y);
    return;
  }
  std::string bias = c.in(2);
  if (beta != 1.f) bias = c.call("MulFusion", {{"activation_type", MsValue::of_int(kNone)}}, {bias, e.scalar(dt, beta)}, Abstract{});
  c.bind(out0(c), with_activation(c, "AddFusion", {}, {y, bias}));
}

void export_ms_gelu(WriteCtx& c) {
  c.bind(out0(c), c.call("GeLU", {{"approximate", MsValue::of_string(str_attr(c, "approximate", "none"))}}, {c.in(0)}, out_abs(c)));
}

// Y = merge(Softmax(heads(Q) * heads(K)^T * scale + mask) * heads(V)), the chain the op's
// reference kernel runs, in BatchMatMul / Softmax / Transpose / Reshape primitives. Head shapes
// come from TensorShape at run time.
void export_multi_head_attention(WriteCtx& c) {
  Emit e{c};
  int64_t heads = int_attr(c, "num_heads", 0);
  auto qd = dims_of(c, 0);
  if (heads <= 0 || qd.size() != 3 || qd[2] < 0 || qd[2] % heads)
    fail_unsupported("{}: MultiHeadAttention needs Q of known last dimension divisible by num_heads for MindIR", label(c));
  double scale = float_attr(c, "scale", 0.f);
  if (scale == 0) scale = 1.0 / std::sqrt(static_cast<double>(qd[2] / heads));
  DType dt = c.abstract(c.node().inputs[0]).dtype;
  auto split = [&](size_t i, std::vector<int64_t> perm) {
    std::string lead = e.gather(e.op("TensorShape", {c.in(i)}), e.int_tensor({0, 1}, {2}));
    std::string shape = e.concat({lead, e.int_tensor({heads, -1}, {2})});
    return e.op("Transpose", {e.op("Reshape", {c.in(i), shape}), e.ints(perm)});
  };
  Attrs mm{{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(false)}};
  std::string s = e.op("BatchMatMul", {split(0, {0, 2, 1, 3}), split(1, {0, 2, 3, 1})}, mm);
  s = e.op("Mul", {s, e.scalar(dt, scale)});
  if (has_in(c, 3)) s = e.op("Add", {s, c.in(3)});
  std::string p = e.op("Softmax", {s}, {{"axis", MsValue::of_ints({-1})}});
  std::string o = e.op("Transpose", {e.op("BatchMatMul", {p, split(2, {0, 2, 1, 3})}, mm), e.ints({0, 2, 1, 3})});
  std::string lead = e.gather(e.op("TensorShape", {c.in(0)}), e.int_tensor({0, 1}, {2}));
  c.bind(out0(c), c.call("Reshape", {}, {o, e.concat({lead, e.int_tensor({-1}, {1})})}, out_abs(c)));
}

// Lite's DetectionPostProcess(box_encodings, class_predictions, anchors) with its schema's fields.
void export_detection_post_process(WriteCtx& c) {
  const Node& n = c.node();
  Attrs a{{"format", MsValue::of_int(0)},
          {"input_size", MsValue::of_int(0)},
          {"scale", MsValue::of_floats({float_attr(c, "y_scale", 10.f), float_attr(c, "x_scale", 10.f), float_attr(c, "h_scale", 5.f),
                                        float_attr(c, "w_scale", 5.f)})},
          {"nms_iou_threshold", MsValue::of_float(float_attr(c, "nms_iou_threshold", 0.5f))},
          {"nms_score_threshold", MsValue::of_float(float_attr(c, "nms_score_threshold", 0.f))},
          {"max_detections", MsValue::of_int(int_attr(c, "max_detections", 10))},
          {"detections_per_class", MsValue::of_int(int_attr(c, "detections_per_class", 100))},
          {"max_classes_per_detection", MsValue::of_int(int_attr(c, "max_classes_per_detection", 1))},
          {"num_classes", MsValue::of_int(int_attr(c, "num_classes", 1))},
          {"use_regular_nms", MsValue::of_bool(int_attr(c, "use_regular_nms", 0) != 0)},
          {"out_quantized", MsValue::of_bool(false)}};
  std::vector<Abstract> abs;
  for (size_t i = 0; i < 4; ++i) abs.push_back(has_out(c, i) ? out_abs(c, i) : Abstract{});
  std::string t = c.call("DetectionPostProcess", a, {c.in(0), c.in(1), c.in(2)}, tuple_abs(abs));
  for (size_t i = 0; i < 4; ++i)
    if (has_out(c, i)) c.bind(n.outputs[i], c.get_item(t, static_cast<int64_t>(i), abs[i]));
}

RVal import_detection_post_process(ReadCtx& c) {
  auto num = [&](const char* name, double def) {
    const MsValue* v = c.attr(name);
    return v ? v->as_double() : def;
  };
  std::vector<double> scale{10, 10, 5, 5};
  if (const MsValue* s = c.attr("scale")) {
    scale = s->as_doubles();
    if (scale.size() != 4) fail("{}: DetectionPostProcess scale needs 4 values, got {}", c.what(), s->str());
  }
  if (num("out_quantized", 0) != 0) fail_unsupported("{}: quantized DetectionPostProcess outputs are not supported", c.what());
  auto f = [](double v) { return Attribute::of_float(static_cast<float>(v)); };
  auto i = [](double v) { return Attribute::of_int(static_cast<int64_t>(v)); };
  std::map<std::string, Attribute> a{{"max_detections", i(num("max_detections", 10))},
                                     {"max_classes_per_detection", i(num("max_classes_per_detection", 1))},
                                     {"detections_per_class", i(num("detections_per_class", 100))},
                                     {"use_regular_nms", i(num("use_regular_nms", 0))},
                                     {"num_classes", i(num("num_classes", 1))},
                                     {"nms_score_threshold", f(num("nms_score_threshold", 0))},
                                     {"nms_iou_threshold", f(num("nms_iou_threshold", 0.5))},
                                     {"y_scale", f(scale[0])},
                                     {"x_scale", f(scale[1])},
                                     {"h_scale", f(scale[2])},
                                     {"w_scale", f(scale[3])}};
  auto outs = c.add("DetectionPostProcess", {c.tensor(0), c.tensor(1), c.tensor(2)}, a, 4);
  if (Node* p = c.producer(outs[0])) p->domain = kMsDomain;  // the project's op, not ONNX's
  const Abstract& oa = c.out_abstract();
  std::vector<RVal> r;
  for (size_t k = 0; k < 4; ++k)
    r.push_back(RVal::tensor(outs[k], oa.kind == Abstract::Kind::Tuple && k < oa.elems.size() ? oa.elems[k] : Abstract{}));
  return RVal::tuple(std::move(r));
}

}  // namespace ms::mindir
