// Import rules for the primitives MindSpore Lite's converter writes into a MindIR (saveType MINDIR):
// the *Fusion forms of conv/pool/matmul/elementwise ops, which carry a fused `activation_type`,
// and `Activation`. Attributes are int64 enums (shared/docs/mindir-format.md §3.3, §3.4):
// PadMode PAD 0 / SAME 1 / VALID 2, Format NCHW 0 / NHWC 1, RoundMode FLOOR 0 / CEIL 1.
#include <cmath>
#include <limits>

#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

namespace {

// Lite ActivationType (§3.4).
enum LiteActivation : int64_t {
  kNoActivation = 0, kRelu = 1, kSigmoid = 2, kRelu6 = 3, kElu = 4, kLeakyRelu = 5, kAbs = 6, kRelu1 = 7,
  kSoftsign = 8, kSoftplus = 9, kTanh = 10, kSelu = 11, kHSwish = 12, kHSigmoid = 13, kHardTanh = 16,
  kSign = 17, kSwish = 18, kGelu = 19
};

int64_t int_attr(ReadCtx& c, const char* name, int64_t def) {
  const MsValue* v = c.attr(name);
  return v ? v->as_int() : def;
}
float float_attr(ReadCtx& c, const char* name, float def) {
  const MsValue* v = c.attr(name);
  return v ? static_cast<float>(v->as_double()) : def;
}
std::vector<int64_t> ints_attr(ReadCtx& c, const char* name) {
  const MsValue* v = c.attr(name);
  return v ? v->as_ints() : std::vector<int64_t>{};
}

// A Lite file converted from TFLite/TF keeps NHWC; the IR's conv and pool ops are NCHW.
void require_nchw(ReadCtx& c) {
  if (int_attr(c, "format", 0) == 1)
    fail_unsupported("{}: NHWC layout (format 1) is not supported; convert the source model with NCHW layout", c.what());
}

Tensor scalar_of(DType dt, double v) {
  if (dt == DType::Float16) return Tensor::scalar<uint16_t>(float_to_half_bits(static_cast<float>(v))).bitcast(DType::Float16);
  if (dt == DType::Float64) return Tensor::scalar<double>(v);
  return Tensor::scalar<float>(static_cast<float>(v));
}

// y with the node's fused activation applied (min_val/max_val/alpha as Lite's Activation has them).
std::string apply_activation(ReadCtx& c, std::string y, int64_t type, DType dt) {
  if (dt == DType::Undefined) dt = DType::Float32;
  auto clip = [&](double lo, double hi) {
    return c.add1("Clip", {y, c.add_const(scalar_of(dt, lo), "min"), c.add_const(scalar_of(dt, hi), "max")});
  };
  float alpha = float_attr(c, "alpha", 0.2f);
  switch (type) {
    case kNoActivation: return y;
    case kRelu: return c.add1("Relu", {y});
    case kRelu6: return clip(0, 6);
    case kRelu1: return clip(-1, 1);
    case kHardTanh: return clip(float_attr(c, "min_val", -1.f), float_attr(c, "max_val", 1.f));
    case kSigmoid: return c.add1("Sigmoid", {y});
    case kTanh: return c.add1("Tanh", {y});
    case kElu: return c.add1("Elu", {y}, {{"alpha", Attribute::of_float(float_attr(c, "alpha", 1.f))}});
    case kLeakyRelu: return c.add1("LeakyRelu", {y}, {{"alpha", Attribute::of_float(alpha)}});
    case kAbs: return c.add1("Abs", {y});
    case kSoftsign: return c.add1("Softsign", {y});
    case kSoftplus: return c.add1("Softplus", {y});
    case kSelu: return c.add1("Selu", {y});
    case kHSwish: return c.add1("HardSwish", {y});
    // Lite's HSIGMOID is relu6(x + 3) / 6, ONNX HardSigmoid with alpha 1/6, beta 0.5.
    case kHSigmoid:
      return c.add1("HardSigmoid", {y}, {{"alpha", Attribute::of_float(1.f / 6.f)}, {"beta", Attribute::of_float(0.5f)}});
    case kSign: return c.add1("Sign", {y});
    case kSwish: return c.add1("Mul", {y, c.add1("Sigmoid", {y})});
    case kGelu: {
      const MsValue* approx = c.attr("approximate");
      bool tanh = approx && approx->as_int() != 0;
      return c.add1("Gelu", {y}, {{"approximate", Attribute::of_string(tanh ? "tanh" : "none")}});
    }
    default:
      fail_unsupported("{}: Lite activation_type {} is not supported", c.what(), type);
  }
}

RVal finish(ReadCtx& c, const std::string& y) {
  return RVal::tensor(apply_activation(c, y, int_attr(c, "activation_type", kNoActivation), c.dtype(0)), c.out_abstract());
}

// (t, b, l, r) -> ONNX pads (t, l, b, r).
std::vector<int64_t> lite_pads(const std::vector<int64_t>& p) {
  if (p.size() != 4) return {0, 0, 0, 0};
  return {p[0], p[2], p[1], p[3]};
}

void pad_mode_attrs(ReadCtx& c, const char* pads_name, std::map<std::string, Attribute>& a) {
  int64_t mode = int_attr(c, "pad_mode", 0);
  if (mode == 1) a["auto_pad"] = Attribute::of_string("SAME_UPPER");
  else if (mode == 2) a["auto_pad"] = Attribute::of_string("VALID");
  else if (mode == 0) a["pads"] = Attribute::of_ints(lite_pads(ints_attr(c, pads_name)));
  else fail_unsupported("{}: pad_mode {} is not supported", c.what(), mode);
}

std::vector<int64_t> pair_or(ReadCtx& c, const char* name, int64_t def) {
  auto v = ints_attr(c, name);
  if (v.empty()) return {def, def};
  if (v.size() == 1) return {v[0], v[0]};
  return {v[v.size() - 2], v[v.size() - 1]};
}

RVal import_conv2d_fusion(ReadCtx& c) {
  require_nchw(c);
  std::map<std::string, Attribute> a{{"strides", Attribute::of_ints(pair_or(c, "stride", 1))},
                                     {"dilations", Attribute::of_ints(pair_or(c, "dilation", 1))},
                                     {"group", Attribute::of_int(int_attr(c, "group", 1))}};
  if (c.attr("kernel_size")) a["kernel_shape"] = Attribute::of_ints(pair_or(c, "kernel_size", 1));
  pad_mode_attrs(c, "pad_list", a);
  std::vector<std::string> ins{c.tensor(0), c.tensor(1)};
  if (c.inputs().size() > 2 && c.inputs()[2].kind != RVal::Kind::None) ins.push_back(c.tensor(2));
  return finish(c, c.add1("Conv", ins, a));
}

RVal import_pool_fusion(ReadCtx& c, bool is_max) {
  require_nchw(c);
  const MsValue* g = c.attr("global");
  if (g && g->as_int()) return finish(c, c.add1(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {c.tensor(0)}));
  std::map<std::string, Attribute> a{{"kernel_shape", Attribute::of_ints(pair_or(c, "kernel_size", 1))},
                                     {"strides", Attribute::of_ints(pair_or(c, "strides", 1))}};
  pad_mode_attrs(c, "pad", a);
  if (int_attr(c, "round_mode", 0) == 1) a["ceil_mode"] = Attribute::of_int(1);
  // Lite's average pooling divides by the cells inside the input.
  if (!is_max) a["count_include_pad"] = Attribute::of_int(0);
  return finish(c, c.add1(is_max ? "MaxPool" : "AveragePool", {c.tensor(0)}, a));
}

RVal import_matmul_fusion(ReadCtx& c) {
  bool ta = int_attr(c, "transpose_a", 0) != 0, tb = int_attr(c, "transpose_b", 0) != 0;
  auto swap_last = [&](std::string v, size_t i) {
    int r = c.rank(i);
    if (r < 2) fail_unsupported("{}: transposed MatMulFusion on an input of unknown rank", c.what());
    std::vector<int64_t> perm;
    for (int k = 0; k < r; ++k) perm.push_back(k);
    std::swap(perm[r - 1], perm[r - 2]);
    return c.add1("Transpose", {std::move(v)}, {{"perm", Attribute::of_ints(perm)}});
  };
  std::string a = c.tensor(0), b = c.tensor(1);
  if (ta) a = swap_last(a, 0);
  if (tb) b = swap_last(b, 1);
  std::string y = c.add1("MatMul", {a, b});
  if (c.inputs().size() > 2 && c.inputs()[2].kind != RVal::Kind::None) y = c.add1("Add", {y, c.tensor(2)});
  return finish(c, y);
}

RVal import_binary_fusion(ReadCtx& c, const char* op) { return finish(c, c.add1(op, {c.tensor(0), c.tensor(1)})); }

RVal import_activation(ReadCtx& c) {
  return RVal::tensor(apply_activation(c, c.tensor(0), int_attr(c, "activation_type", kNoActivation), c.dtype(0)),
                      c.out_abstract());
}

// PReLUFusion(x, slope): the slope has one value per channel (axis 1 of NCHW) or one in all.
RVal import_prelu_fusion(ReadCtx& c) {
  std::string slope = c.tensor(1);
  auto sd = c.dims(1);
  int r = c.rank(0);
  if (sd.size() == 1 && sd[0] > 1 && r > 2) {
    std::vector<int64_t> axes;
    for (int k = 1; k < r - 1; ++k) axes.push_back(k);
    slope = c.add1("Unsqueeze", {slope, c.add_const(Tensor::from_vector<int64_t>(axes, {static_cast<int64_t>(axes.size())}), "axes")});
  }
  return RVal::tensor(c.add1("PRelu", {c.tensor(0), slope}), c.out_abstract());
}

// An int64 shape-like operand (ONNX's Reshape shape, Tile repeats) from input i, which Lite writes
// as an int32 tensor and mindspore.export as a tuple.
std::string int64_operand(ReadCtx& c, size_t i) {
  const RVal& v = c.inputs().at(i);
  if (v.kind == RVal::Kind::Const) {
    auto ints = v.c.as_ints();
    return c.add_const(Tensor::from_vector<int64_t>(ints, {static_cast<int64_t>(ints.size())}), "shape");
  }
  std::string t = c.tensor(i);
  if (c.dtype(i) != DType::Int64) t = c.add1("Cast", {t}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int64))}});
  return t;
}

RVal import_reshape(ReadCtx& c) {
  if (c.inputs().size() < 2) fail("{}: Reshape without a shape input", c.what());
  std::map<std::string, Attribute> a;
  if (const MsValue* z = c.attr("allowzero")) a["allowzero"] = Attribute::of_int(z->as_int() != 0);
  return RVal::tensor(c.add1("Reshape", {c.tensor(0), int64_operand(c, 1)}, a), c.out_abstract());
}

RVal import_tile(ReadCtx& c) {
  if (c.inputs().size() < 2) fail("{}: Tile without multiples", c.what());
  return RVal::tensor(c.add1("Tile", {c.tensor(0), int64_operand(c, 1)}), c.out_abstract());
}

Tensor i64_tensor(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

// ScaleFusion(x, scale[, bias]): scale and bias cover the dims of x from `axis` on, y = x * scale + bias.
RVal import_scale_fusion(ReadCtx& c) {
  int r = c.rank(0);
  auto sd = c.dims(1);
  if (r < 0 || sd.empty()) fail_unsupported("{}: ScaleFusion on an input of unknown rank", c.what());
  int64_t axis = int_attr(c, "axis", -1);
  if (axis < 0) axis += r;
  int64_t trailing = r - axis - static_cast<int64_t>(sd.size());
  if (axis < 0 || trailing < 0) fail("{}: ScaleFusion axis {} does not fit an input of rank {} and a scale of rank {}", c.what(), axis, r, sd.size());
  auto aligned = [&](size_t i) {
    std::vector<int64_t> shape = c.dims(i);
    shape.insert(shape.end(), static_cast<size_t>(trailing), 1);
    return c.add1("Reshape", {c.tensor(i), c.add_const(i64_tensor(shape), "shape")});
  };
  std::string y = c.add1("Mul", {c.tensor(0), aligned(1)});
  if (c.inputs().size() > 2 && c.inputs()[2].kind != RVal::Kind::None) y = c.add1("Add", {y, aligned(2)});
  return finish(c, y);
}

// PowFusion(x, power): (scale * x + shift) ^ power.
RVal import_pow_fusion(ReadCtx& c) {
  DType dt = c.dtype(0);
  std::string base = c.tensor(0);
  float scale = float_attr(c, "scale", 1.f), shift = float_attr(c, "shift", 0.f);
  if (scale != 1.f) base = c.add1("Mul", {base, c.add_const(scalar_of(dt, scale), "scale")});
  if (shift != 0.f) base = c.add1("Add", {base, c.add_const(scalar_of(dt, shift), "shift")});
  return RVal::tensor(c.add1("Pow", {base, c.tensor(1)}), c.out_abstract());
}

// LayerNormFusion(x, gamma, beta): normalized over the dims from begin_norm_axis on.
RVal import_layer_norm_fusion(ReadCtx& c) {
  int64_t axis = int_attr(c, "begin_norm_axis", -1), params_axis = int_attr(c, "begin_params_axis", axis);
  int r = c.rank(0);
  if (r >= 0 && (axis < 0 ? axis + r : axis) != (params_axis < 0 ? params_axis + r : params_axis))
    fail_unsupported("{}: LayerNormFusion with begin_params_axis {} != begin_norm_axis {}", c.what(), params_axis, axis);
  std::vector<std::string> ins{c.tensor(0), c.tensor(1)};
  if (c.inputs().size() > 2 && c.inputs()[2].kind != RVal::Kind::None) ins.push_back(c.tensor(2));
  auto outs = c.add("LayerNormalization", ins,
                    {{"axis", Attribute::of_int(axis)}, {"epsilon", Attribute::of_float(float_attr(c, "epsilon", 1e-5f))}}, 3);
  c.optional(outs[1]);
  c.optional(outs[2]);
  return RVal::tensor(outs[0], c.out_abstract());
}

// SliceFusion(x, begin, size) over `axes` (all axes when absent); size -1 runs to the end.
RVal import_slice_fusion(ReadCtx& c) {
  if (c.inputs().size() < 3 || c.inputs()[1].kind != RVal::Kind::Const || c.inputs()[2].kind != RVal::Kind::Const)
    fail_unsupported("{}: SliceFusion with begin/size computed at run time", c.what());
  auto begin = c.inputs()[1].c.as_ints(), size = c.inputs()[2].c.as_ints();
  auto axes = ints_attr(c, "axes");
  if (axes.empty())
    for (size_t k = 0; k < begin.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (size.size() != begin.size() || axes.size() != begin.size())
    fail("{}: SliceFusion with {} begins, {} sizes and {} axes", c.what(), begin.size(), size.size(), axes.size());
  std::vector<int64_t> ends;
  for (size_t k = 0; k < begin.size(); ++k)
    ends.push_back(size[k] < 0 ? std::numeric_limits<int64_t>::max() : begin[k] + size[k]);
  return RVal::tensor(c.add1("Slice", {c.tensor(0), c.add_const(i64_tensor(begin), "starts"), c.add_const(i64_tensor(ends), "ends"),
                                       c.add_const(i64_tensor(axes), "axes")}),
                      c.out_abstract());
}

// ArgMaxFusion / ArgMinFusion: the index only (out_max_value false, top_k 1), in the dtype the
// node declares (Lite writes int32).
RVal import_arg_fusion(ReadCtx& c, bool is_max) {
  if (int_attr(c, "out_max_value", 0) || int_attr(c, "top_k", 1) != 1)
    fail_unsupported("{}: {} with out_max_value or top_k > 1 is not supported", c.what(), c.prim());
  std::string y = c.add1(is_max ? "ArgMax" : "ArgMin", {c.tensor(0)},
                         {{"axis", Attribute::of_int(int_attr(c, "axis", 0))}, {"keepdims", Attribute::of_int(int_attr(c, "keep_dims", 0))}});
  DType want = c.out_abstract().dtype;
  if (want != DType::Undefined && want != DType::Int64) y = c.add1("Cast", {y}, {{"to", Attribute::of_int(static_cast<int64_t>(want))}});
  return RVal::tensor(y, c.out_abstract());
}

}  // namespace

const std::vector<ImportRule>& lite_import_rules() {
  auto R = [](std::string prim, ImportFn fn) { return ImportRule{std::move(prim), "", {}, std::move(fn)}; };
  static const std::vector<ImportRule> rules = {
      R("Conv2DFusion", import_conv2d_fusion),
      R("MaxPoolFusion", [](ReadCtx& c) { return import_pool_fusion(c, true); }),
      R("AvgPoolFusion", [](ReadCtx& c) { return import_pool_fusion(c, false); }),
      R("MatMulFusion", import_matmul_fusion),
      R("AddFusion", [](ReadCtx& c) { return import_binary_fusion(c, "Add"); }),
      R("SubFusion", [](ReadCtx& c) { return import_binary_fusion(c, "Sub"); }),
      R("MulFusion", [](ReadCtx& c) { return import_binary_fusion(c, "Mul"); }),
      R("DivFusion", [](ReadCtx& c) { return import_binary_fusion(c, "Div"); }),
      R("Activation", import_activation),
      R("PReLUFusion", import_prelu_fusion),
      R("Reshape", import_reshape),
      R("TileFusion", import_tile),
      R("ScaleFusion", import_scale_fusion),
      R("PowFusion", import_pow_fusion),
      R("LayerNormFusion", import_layer_norm_fusion),
      R("SliceFusion", import_slice_fusion),
      R("ArgMaxFusion", [](ReadCtx& c) { return import_arg_fusion(c, true); }),
      R("ArgMinFusion", [](ReadCtx& c) { return import_arg_fusion(c, false); }),
  };
  return rules;
}

}  // namespace ms::mindir
