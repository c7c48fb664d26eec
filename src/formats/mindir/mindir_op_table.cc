// The two mapping tables IR op <-> MindSpore primitive (see mindir_ops.h), and the small functions
// for the conversions that are not one-to-one. Primitive names and attribute forms follow
// shared/docs/mindir-format.md §3 (core primitives as mindspore.export writes them; Lite *Fusion
// primitives where no core primitive carries the ONNX semantics).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>

#include "formats/mindir/mindir_composed_export.h"
#include "formats/mindir/mindir_fused_forms.h"
#include "formats/mindir/mindir_index_forms.h"
#include "formats/mindir/mindir_quant_forms.h"
#include "formats/mindir/mindir_signal_forms.h"
#include "formats/mindir/mindir_native_forms.h"
#include "formats/mindir/mindir_ops.h"
#include "formats/mindir/mindir_recurrence.h"
#include "formats/mindir/mindir_sequence_forms.h"
#include "formats/mindir/mindir_write_util.h"
#include "ops/ms_domain.h"
#include "ops/op.h"

namespace ms::mindir {

namespace {

using AP = mind_ir::AttributeProto;
using Attrs = std::map<std::string, MsValue>;

// ---------------------------------------------------------------------------------------------
// Writing helpers
using namespace wu;

// ONNX pads [b1..bn, e1..en] -> MindSpore pairs (b1,e1,b2,e2,...).
std::vector<int64_t> pads_to_pairs(const std::vector<int64_t>& pads, int sp) {
  std::vector<int64_t> r(2 * sp, 0);
  if (pads.size() == static_cast<size_t>(2 * sp))
    for (int k = 0; k < sp; ++k) {
      r[2 * k] = pads[k];
      r[2 * k + 1] = pads[sp + k];
    }
  return r;
}
std::vector<int64_t> pairs_to_pads(const std::vector<int64_t>& pairs, int sp) {
  std::vector<int64_t> r(2 * sp, 0);
  if (pairs.size() == static_cast<size_t>(2 * sp))
    for (int k = 0; k < sp; ++k) {
      r[k] = pairs[2 * k];
      r[sp + k] = pairs[2 * k + 1];
    }
  return r;
}
std::vector<int64_t> with_ones(const std::vector<int64_t>& v) {
  std::vector<int64_t> r{1, 1};
  r.insert(r.end(), v.begin(), v.end());
  return r;
}

// SAME padding resolved against known input dims; nullopt when a dim is unknown.
std::optional<std::vector<int64_t>> resolve_same(WriteCtx& c, const std::string& auto_pad, const std::vector<int64_t>& k,
                                                 const std::vector<int64_t>& s, const std::vector<int64_t>& d) {
  auto dims = dims_of(c, 0);
  int sp = static_cast<int>(k.size());
  if (static_cast<int>(dims.size()) != sp + 2) return std::nullopt;
  std::vector<int64_t> pads(2 * sp);
  for (int i = 0; i < sp; ++i) {
    int64_t in = dims[2 + i];
    if (in < 0) return std::nullopt;
    int64_t out = (in + s[i] - 1) / s[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in);
    int64_t small = total / 2, big = total - small;
    pads[i] = auto_pad == "SAME_LOWER" ? big : small;
    pads[sp + i] = auto_pad == "SAME_LOWER" ? small : big;
  }
  return pads;
}

// ---------------------------------------------------------------------------------------------
// Irregular exports

// 1-D conv/pool: MindSpore has no 1-D primitive; nn.Conv1d itself lifts to 2-D with ExpandDims on
// axis 2, runs the 2-D primitive with a 1-high kernel and Squeezes axis 2 again. Same here.
std::string expand2(WriteCtx& c, const std::string& ref) {
  return c.call("ExpandDims", {}, {ref, c.constant_node(MsValue::of_int(2))}, Abstract{});
}
std::string squeeze2(WriteCtx& c, const std::string& ref) {
  return c.call("Squeeze", {{"axis", MsValue::of_ints({2})}}, {ref}, out_abs(c));
}

void export_conv(WriteCtx& c) {
  int r = rank_of(c, 1);
  if (r < 0) fail_unsupported("{}: Conv needs a weight of known rank for MindIR", label(c));
  int sp = r - 2;
  if (sp == 1) {
    auto wd = dims_of(c, 1);
    Attrs a;
    std::vector<int64_t> k{1, ints_attr(c, "kernel_shape").value_or(std::vector<int64_t>{wd.size() > 2 ? wd[2] : 1})[0]};
    std::vector<int64_t> s{1, ints_attr(c, "strides").value_or(std::vector<int64_t>{1})[0]};
    std::vector<int64_t> d{1, ints_attr(c, "dilations").value_or(std::vector<int64_t>{1})[0]};
    std::vector<int64_t> p = ints_attr(c, "pads").value_or(std::vector<int64_t>{0, 0});
    std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
    if (auto_pad != "NOTSET") fail_unsupported("{}: 1-D Conv with auto_pad {} is not supported in MindIR", label(c), auto_pad);
    std::vector<int64_t> pairs{0, 0, p[0], p[1]};
    a["kernel_size"] = MsValue::of_ints(k);
    a["mode"] = MsValue::of_int(1);
    if (!wd.empty() && wd[0] >= 0) a["out_channel"] = MsValue::of_int(wd[0]);
    a["pad_mode"] = MsValue::of_string("pad");
    a["pad"] = MsValue::of_ints(pairs);
    a["pad_list"] = MsValue::of_ints(pairs);
    a["stride"] = MsValue::of_ints(with_ones(s));
    a["dilation"] = MsValue::of_ints(with_ones(d));
    a["group"] = MsValue::of_int(int_attr(c, "group", 1));
    a["groups"] = MsValue::of_int(int_attr(c, "group", 1));
    a["format"] = MsValue::of_string("NCHW");
    std::string out = c.call("Conv2D", a, {expand2(c, c.in(0)), expand2(c, c.in(1))}, Abstract{});
    if (has_in(c, 2)) out = c.call("BiasAdd", {{"format", MsValue::of_string("NCHW")}}, {out, c.in(2)}, Abstract{});
    c.bind(out0(c), squeeze2(c, out));
    return;
  }
  if (sp != 2 && sp != 3) fail_unsupported("{}: {}-D Conv has no MindSpore primitive (Conv2D/Conv3D)", label(c), sp);
  auto wd = dims_of(c, 1);
  std::vector<int64_t> k;
  if (auto ks = ints_attr(c, "kernel_shape")) k = *ks;
  else if (static_cast<int>(wd.size()) == sp + 2) k.assign(wd.begin() + 2, wd.end());
  if (static_cast<int>(k.size()) != sp || std::any_of(k.begin(), k.end(), [](int64_t v) { return v <= 0; }))
    fail_unsupported("{}: Conv needs kernel_shape or a weight of known shape for MindIR", label(c));
  std::vector<int64_t> s = ints_attr(c, "strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> d = ints_attr(c, "dilations").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>(2 * sp, 0));
  std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
  Attrs a;
  std::string pad_mode = "pad";
  if (auto_pad == "VALID") {
    pad_mode = "valid";
    pads.assign(2 * sp, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    if (auto p = resolve_same(c, auto_pad, k, s, d)) {
      pads = *p;
    } else {
      pad_mode = "same";
      pads.assign(2 * sp, 0);
      if (auto_pad == "SAME_LOWER") a["auto_pad"] = MsValue::of_string(auto_pad);
    }
  }
  auto pairs = pads_to_pairs(pads, sp);
  a["kernel_size"] = MsValue::of_ints(k);
  a["mode"] = MsValue::of_int(1);
  if (!wd.empty() && wd[0] >= 0) a["out_channel"] = MsValue::of_int(wd[0]);
  a["pad_mode"] = MsValue::of_string(pad_mode);
  a["pad"] = MsValue::of_ints(pairs);
  a["pad_list"] = MsValue::of_ints(pairs);
  a["stride"] = MsValue::of_ints(with_ones(s));
  a["dilation"] = MsValue::of_ints(with_ones(d));
  a["group"] = MsValue::of_int(int_attr(c, "group", 1));
  a["groups"] = MsValue::of_int(int_attr(c, "group", 1));
  a["format"] = MsValue::of_string(sp == 2 ? "NCHW" : "NCDHW");
  a["input_names"] = strs({"x", "w"});
  a["output_names"] = strs({"output"});
  std::string out = c.call(sp == 2 ? "Conv2D" : "Conv3D", a, {c.in(0), c.in(1)}, out_abs(c));
  if (has_in(c, 2)) {
    Attrs b{{"format", MsValue::of_string(sp == 2 ? "NCHW" : "NCDHW")},
            {"input_names", strs({"x", "b"})},
            {"output_names", strs({"output"})}};
    out = c.call("BiasAdd", b, {out, c.in(2)}, out_abs(c));
  }
  c.bind(out0(c), out);
}

void export_pool(WriteCtx& c, bool is_max) {
  if (has_out(c, 1)) return export_max_pool_with_indices(c);
  auto k = ints_attr(c, "kernel_shape");
  if (!k) fail("{}: pool without kernel_shape", label(c));
  int sp = static_cast<int>(k->size());
  if (sp == 1) {
    sp = 2;
    std::vector<int64_t> p = ints_attr(c, "pads").value_or(std::vector<int64_t>{0, 0});
    k = std::vector<int64_t>{1, (*k)[0]};
    Attrs a;
    std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID") fail_unsupported("{}: 1-D pooling with auto_pad {} is not supported in MindIR", label(c), auto_pad);
    bool zero = p[0] == 0 && p[1] == 0 && !int_attr(c, "ceil_mode", 0);
    a["kernel_size"] = MsValue::of_ints(with_ones(*k));
    a["strides"] = MsValue::of_ints(with_ones({1, ints_attr(c, "strides").value_or(std::vector<int64_t>{1})[0]}));
    a["pad_mode"] = MsValue::of_string(zero ? "VALID" : "PAD");
    if (!zero) a["pad_list"] = MsValue::of_ints({0, 0, p[0], p[1]});
    a["format"] = MsValue::of_string("NCHW");
    if (int_attr(c, "ceil_mode", 0)) a["ceil_mode"] = MsValue::of_int(1);
    if (auto dl = ints_attr(c, "dilations")) a["dilation"] = MsValue::of_ints({1, (*dl)[0]});
    if (!is_max) a["count_include_pad"] = MsValue::of_bool(int_attr(c, "count_include_pad", 0) != 0);
    std::string out = c.call(is_max ? "MaxPool" : "AvgPool", a, {expand2(c, c.in(0))}, Abstract{});
    c.bind(out0(c), squeeze2(c, out));
    return;
  }
  if (sp != 2 && sp != 3) fail_unsupported("{}: {}-D pooling has no MindSpore primitive (2-D and 3-D only)", label(c), sp);
  std::vector<int64_t> s = ints_attr(c, "strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>(2 * sp, 0));
  std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
  Attrs a;
  std::string mode = "PAD";
  if (auto_pad == "VALID") mode = "VALID";
  else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    mode = "SAME";
    if (auto_pad == "SAME_LOWER") a["auto_pad"] = MsValue::of_string(auto_pad);
  } else if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }) && !int_attr(c, "ceil_mode", 0)) {
    mode = "VALID";
  }
  a["kernel_size"] = MsValue::of_ints(with_ones(*k));
  a["strides"] = MsValue::of_ints(with_ones(s));
  a["pad_mode"] = MsValue::of_string(mode);
  if (mode == "PAD") a["pad_list"] = MsValue::of_ints(pads_to_pairs(pads, sp));
  a["format"] = MsValue::of_string(sp == 2 ? "NCHW" : "NCDHW");
  if (int_attr(c, "ceil_mode", 0)) a["ceil_mode"] = MsValue::of_int(1);
  if (auto dl = ints_attr(c, "dilations")) a["dilation"] = MsValue::of_ints(*dl);
  if (!is_max) a["count_include_pad"] = MsValue::of_bool(int_attr(c, "count_include_pad", 0) != 0);
  a["input_names"] = strs({"x"});
  a["output_names"] = strs({"output"});
  std::string prim = std::string(is_max ? "MaxPool" : "AvgPool") + (sp == 3 ? "3D" : "");
  c.bind(out0(c), c.call(prim, a, {c.in(0)}, out_abs(c)));
}

void export_global_pool(WriteCtx& c, const std::string& prim) {
  int r = rank_of(c, 0);
  if (r < 3) fail_unsupported("{}: global pooling needs an input of known rank for MindIR", label(c));
  std::vector<int64_t> axes;
  for (int i = 2; i < r; ++i) axes.push_back(i);
  Attrs a{{"keep_dims", MsValue::of_bool(true)}};
  c.bind(out0(c), c.call(prim, a, {c.in(0), c.constant_node(MsValue::of_ints(axes))}, out_abs(c)));
}

void export_batch_norm(WriteCtx& c) {
  const Node& n = c.node();
  if (int_attr(c, "training_mode", 0)) return export_batch_norm_training(c);
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty()) fail_unsupported("{}: BatchNormalization statistics outputs outside training mode are not supported in MindIR", label(c));
  Attrs a{{"is_training", MsValue::of_bool(false)},
          {"epsilon", MsValue::of_float(float_attr(c, "epsilon", 1e-5f))},
          {"momentum", MsValue::of_float(float_attr(c, "momentum", 0.9f))},
          {"format", MsValue::of_string("NCHW")},
          {"input_names", strs({"x", "scale", "offset", "mean", "variance"})},
          {"output_names", strs({"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"})}};
  Abstract y = out_abs(c);
  Abstract ch = c.abstract(n.inputs[1]);
  std::string t = c.call("BatchNorm", a, {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}, tuple_abs({y, ch, ch, ch, ch}));
  c.bind(out0(c), c.get_item(t, 0, y));
}

void export_matmul(WriteCtx& c) {
  bool two_d = rank_of(c, 0) == 2 && rank_of(c, 1) == 2;
  Attrs a{{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(false)}};
  if (two_d) {
    a["transpose_x1"] = MsValue::of_bool(false);
    a["transpose_x2"] = MsValue::of_bool(false);
  }
  a["input_names"] = strs({"x1", "x2"});
  a["output_names"] = strs({"output"});
  c.bind(out0(c), c.call(two_d ? "MatMul" : "BatchMatMul", a, {c.in(0), c.in(1)}, out_abs(c)));
}

void export_gemm(WriteCtx& c) {
  bool ta = int_attr(c, "transA", 0) != 0, tb = int_attr(c, "transB", 0) != 0;
  float alpha = float_attr(c, "alpha", 1.f), beta = float_attr(c, "beta", 1.f);
  Attrs a{{"transpose_a", MsValue::of_bool(ta)}, {"transpose_b", MsValue::of_bool(tb)},
          {"transpose_x1", MsValue::of_bool(ta)}, {"transpose_x2", MsValue::of_bool(tb)},
          {"input_names", strs({"x1", "x2"})}, {"output_names", strs({"output"})}};
  Abstract y = out_abs(c);
  std::string out = c.call("MatMul", a, {c.in(0), c.in(1)}, y);
  DType dt = y.dtype != DType::Undefined ? y.dtype : c.abstract(c.node().inputs[0]).dtype;
  auto scalar = [&](float v) {
    if (dt == DType::Float64) return MsValue::of_tensor(Tensor::scalar<double>(v));
    if (dt != DType::Float32 && dt != DType::Undefined)
      fail_unsupported("{}: Gemm with alpha/beta != 1 on {} is not supported in MindIR", label(c), dtype_name(dt));
    return MsValue::of_tensor(Tensor::scalar<float>(v));
  };
  if (alpha != 1.f) out = c.call("Mul", {}, {out, c.constant_node(scalar(alpha))}, y);
  if (has_in(c, 2) && beta != 0.f) {
    std::string cin = c.in(2);
    if (beta != 1.f) cin = c.call("Mul", {}, {cin, c.constant_node(scalar(beta))}, c.abstract(c.node().inputs[2]));
    out = c.call("Add", {}, {out, cin}, y);
  }
  c.bind(out0(c), out);
}

void export_concat(WriteCtx& c) {
  std::vector<std::string> refs;
  std::vector<Abstract> abs;
  for (size_t i = 0; i < c.node().inputs.size(); ++i) {
    refs.push_back(c.in(i));
    abs.push_back(c.abstract(c.node().inputs[i]));
  }
  std::string t = c.call("MakeTuple", {}, refs, tuple_abs(abs));
  Attrs a{{"axis", MsValue::of_int(int_attr(c, "axis", 0))}, {"inputNums", MsValue::of_int(static_cast<int64_t>(refs.size()))}};
  c.bind(out0(c), c.call("Concat", a, {t}, out_abs(c)));
}

void export_transpose(WriteCtx& c) {
  auto perm = ints_attr(c, "perm");
  if (!perm) {
    int r = rank_of(c, 0);
    if (r < 0) fail_unsupported("{}: Transpose without perm needs an input of known rank", label(c));
    perm = std::vector<int64_t>();
    for (int i = r - 1; i >= 0; --i) perm->push_back(i);
  }
  c.bind(out0(c), c.call("Transpose", {{"input_names", strs({"x", "perm"})}, {"output_names", strs({"output"})}},
                         {c.in(0), c.constant_node(MsValue::of_ints(*perm))}, out_abs(c)));
}

void export_softmax(WriteCtx& c, bool log) {
  int64_t axis = int_attr(c, "axis", -1);
  Attrs a{{"axis", log ? MsValue::of_int(axis) : MsValue::of_ints({axis})}};
  c.bind(out0(c), c.call(log ? "LogSoftmax" : "Softmax", a, {c.in(0)}, out_abs(c)));
}

std::vector<int64_t> axes_of(WriteCtx& c, size_t input, bool* present) {
  *present = true;
  if (has_in(c, input)) {
    auto v = const_ints(c, input);
    if (!v) fail_unsupported("{}: axes computed at run time cannot be written to MindIR", label(c));
    return *v;
  }
  if (auto v = ints_attr(c, "axes")) return *v;
  *present = false;
  return {};
}

bool runtime_axes(WriteCtx& c) { return has_in(c, 1) && !const_ints(c, 1); }

void export_squeeze(WriteCtx& c) {
  if (runtime_axes(c)) return export_squeeze_runtime_axes(c);
  bool present;
  auto axes = axes_of(c, 1, &present);
  c.bind(out0(c), c.call("Squeeze", {{"axis", MsValue::of_ints(axes)}}, {c.in(0)}, out_abs(c)));
}

void export_unsqueeze(WriteCtx& c) {
  if (runtime_axes(c)) return export_unsqueeze_runtime_axes(c);
  bool present;
  auto axes = axes_of(c, 1, &present);
  int r = rank_of(c, 0);
  int out_rank = r < 0 ? -1 : r + static_cast<int>(axes.size());
  // One axis: ExpandDims counts a negative axis from the output rank, as ONNX does.
  for (auto& a : axes)
    if (a < 0 && axes.size() > 1) {
      if (out_rank < 0) fail_unsupported("{}: negative Unsqueeze axes need an input of known rank", label(c));
      a += out_rank;
    }
  std::sort(axes.begin(), axes.end());
  std::string cur = c.in(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    Abstract ab = i + 1 == axes.size() ? out_abs(c) : Abstract{};
    cur = c.call("ExpandDims", {{"input_names", strs({"x", "axis"})}, {"output_names", strs({"output"})}},
                 {cur, c.constant_node(MsValue::of_int(axes[i]))}, ab);
  }
  c.bind(out0(c), cur);
}

void export_gather(WriteCtx& c) {
  Attrs a{{"batch_dims", MsValue::of_int(0)}, {"input_names", strs({"params", "indices", "axis"})},
          {"output_names", strs({"output"})}};
  c.bind(out0(c), c.call("Gather", a, {c.in(0), c.in(1), c.constant_node(MsValue::of_int(int_attr(c, "axis", 0)))}, out_abs(c)));
}

void export_gather_elements(WriteCtx& c) {
  c.bind(out0(c), c.call("GatherD", {}, {c.in(0), c.constant_node(MsValue::of_int(int_attr(c, "axis", 0))), c.in(1)}, out_abs(c)));
}

void write_cast(WriteCtx& c, DType to) {
  if (!dtype_is_valid(static_cast<int32_t>(to)) || to == DType::String)
    fail_unsupported("{}: Cast to this dtype is not supported in MindIR", label(c));
  c.bind(out0(c), c.call("Cast", {{"input_names", strs({"x", "dst_type"})}, {"output_names", strs({"output"})}},
                         {c.in(0), c.constant_node(MsValue::of_dtype(to))}, out_abs(c)));
}

void export_cast(WriteCtx& c) { write_cast(c, static_cast<DType>(int_attr(c, "to", 0))); }

// CastLike(x, like) is Cast to the static dtype of `like`.
void export_cast_like(WriteCtx& c) {
  const Tensor* t = c.constant(c.node().inputs.at(1));
  DType to = t ? t->dtype() : c.abstract(c.node().inputs[1]).dtype;
  if (to == DType::Undefined) fail_unsupported("{}: CastLike needs a target of known dtype for MindIR", label(c));
  write_cast(c, to);
}

int64_t reduce_mode(const std::string& op) {
  static const std::map<std::string, int64_t> m{{"ReduceSumSquare", 5}, {"ReduceL2", 8}, {"ReduceL1", 9},
                                                {"ReduceLogSum", 10}, {"ReduceLogSumExp", 11}};
  return m.at(op);
}

void export_reduce(WriteCtx& c, const std::string& prim) {
  bool keep = int_attr(c, "keepdims", 1) != 0;
  if (prim == "ReduceSum" && runtime_axes(c)) {
    // MindSpore's ReduceSum takes the axis as a tensor input; skip_mode is ONNX's
    // noop_with_empty_axes (an empty axis leaves the input as it is).
    Attrs a{{"keep_dims", MsValue::of_bool(keep)}, {"skip_mode", MsValue::of_bool(int_attr(c, "noop_with_empty_axes", 0) != 0)}};
    c.bind(out0(c), c.call(prim, a, {c.in(0), c.in(1)}, out_abs(c)));
    return;
  }
  bool present;
  auto axes = axes_of(c, 1, &present);
  if (axes.empty() && int_attr(c, "noop_with_empty_axes", 0)) {
    c.bind(out0(c), c.call("Identity", {}, {c.in(0)}, out_abs(c)));
    return;
  }
  Attrs a{{"keep_dims", MsValue::of_bool(keep)}};
  if (prim == "ReduceFusion") {
    a["mode"] = MsValue::of_int(reduce_mode(c.node().op_type));
    a["reduce_to_end"] = MsValue::of_bool(false);
  }
  a["input_names"] = strs({"input_x", "axis"});
  a["output_names"] = strs({"y"});
  c.bind(out0(c), c.call(prim, a, {c.in(0), c.constant_node(MsValue::of_ints(axes))}, out_abs(c)));
}

void export_split(WriteCtx& c) {
  const Node& n = c.node();
  int64_t axis = int_attr(c, "axis", 0);
  int64_t num = static_cast<int64_t>(n.outputs.size());
  std::optional<std::vector<int64_t>> sizes;
  if (has_in(c, 1)) {
    sizes = const_ints(c, 1);
    if (!sizes) return export_split_runtime_sizes(c, axis);
  } else if (auto s = ints_attr(c, "split")) {
    sizes = s;
  }
  if (c.attr("num_outputs") && !sizes) {
    // opset 18 uneven split: the last chunk may be smaller; sizes are needed then.
    auto dims = dims_of(c, 0);
    int r = static_cast<int>(dims.size());
    int64_t ax = axis < 0 ? axis + r : axis;
    if (ax < 0 || ax >= r || dims[ax] < 0) fail_unsupported("{}: Split with num_outputs needs a known dimension", label(c));
    if (dims[ax] % num) {
      int64_t chunk = (dims[ax] + num - 1) / num;
      sizes = std::vector<int64_t>(num, chunk);
      sizes->back() = dims[ax] - chunk * (num - 1);
    }
  }
  std::vector<Abstract> abs;
  for (const auto& o : n.outputs) abs.push_back(o.empty() ? Abstract{} : c.abstract(o));
  bool equal = !sizes || std::all_of(sizes->begin(), sizes->end(), [&](int64_t v) { return v == (*sizes)[0]; });
  std::string t;
  if (equal) {
    t = c.call("Split", {{"axis", MsValue::of_int(axis)}, {"output_num", MsValue::of_int(num)}, {"num_split", MsValue::of_int(num)}},
               {c.in(0)}, tuple_abs(abs));
  } else {
    t = c.call("SplitV", {{"size_splits", MsValue::of_ints(*sizes)}, {"split_dim", MsValue::of_int(axis)}, {"num_split", MsValue::of_int(num)}},
               {c.in(0)}, tuple_abs(abs));
  }
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty()) c.bind(n.outputs[i], c.get_item(t, static_cast<int64_t>(i), abs[i]));
}

void export_slice(WriteCtx& c) {
  auto starts = const_ints(c, 1), ends = const_ints(c, 2);
  auto axes = has_in(c, 3) ? const_ints(c, 3) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
  auto steps = has_in(c, 4) ? const_ints(c, 4) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
  if (c.node().attr("starts")) {  // opset < 10: bounds are attributes
    starts = ints_attr(c, "starts").value_or(std::vector<int64_t>{});
    ends = ints_attr(c, "ends").value_or(std::vector<int64_t>{});
    axes = ints_attr(c, "axes").value_or(std::vector<int64_t>{});
  }
  int r = rank_of(c, 0);
  if (starts && ends && axes && steps && r >= 0) {
    std::vector<int64_t> b(r, 0), e(r, 0), s(r, 1);
    int64_t bm = (int64_t(1) << r) - 1, em = bm;
    for (size_t k = 0; k < starts->size(); ++k) {
      int64_t ax = axes->empty() ? static_cast<int64_t>(k) : (*axes)[k];
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r) fail("{}: Slice axis out of range", label(c));
      b[ax] = (*starts)[k];
      e[ax] = (*ends)[k];
      s[ax] = steps->empty() ? 1 : (*steps)[k];
      bm &= ~(int64_t(1) << ax);
      em &= ~(int64_t(1) << ax);
    }
    Attrs a{{"begin_mask", MsValue::of_int(bm)}, {"end_mask", MsValue::of_int(em)}, {"ellipsis_mask", MsValue::of_int(0)},
            {"new_axis_mask", MsValue::of_int(0)}, {"shrink_axis_mask", MsValue::of_int(0)},
            {"input_names", strs({"x", "begin", "end", "strides"})}, {"output_names", strs({"output"})}};
    c.bind(out0(c), c.call("StridedSlice", a,
                           {c.in(0), c.constant_node(MsValue::of_ints(b)), c.constant_node(MsValue::of_ints(e)),
                            c.constant_node(MsValue::of_ints(s))}, out_abs(c)));
    return;
  }
  // Lite form: StridedSlice(x, starts, ends, axes, steps) with tensors.
  Attrs a{{"fmk_type", MsValue::of_int(2)}};
  c.bind(out0(c), c.call("StridedSlice", a, {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}, out_abs(c)));
}

void export_variadic(WriteCtx& c, const std::string& prim) {
  size_t n = c.node().inputs.size();
  if (n == 1) {
    c.bind(out0(c), c.call("Identity", {}, {c.in(0)}, out_abs(c)));
    return;
  }
  std::string cur = c.in(0);
  for (size_t i = 1; i < n; ++i) cur = c.call(prim, {}, {cur, c.in(i)}, i + 1 == n ? out_abs(c) : Abstract{});
  c.bind(out0(c), cur);
}

void export_sum(WriteCtx& c, bool mean) {
  size_t n = c.node().inputs.size();
  std::vector<std::string> refs;
  std::vector<Abstract> abs;
  for (size_t i = 0; i < n; ++i) {
    refs.push_back(c.in(i));
    abs.push_back(c.abstract(c.node().inputs[i]));
  }
  std::string t = c.call("MakeTuple", {}, refs, tuple_abs(abs));
  std::string out = c.call("AddN", {}, {t}, mean ? Abstract{} : out_abs(c));
  if (mean) {
    DType dt = out_abs(c).dtype;
    MsValue k;
    if (dt == DType::Float64) k = MsValue::of_tensor(Tensor::scalar<double>(static_cast<double>(n)));
    else if (dt == DType::Float32) k = MsValue::of_tensor(Tensor::scalar<float>(static_cast<float>(n)));
    else fail_unsupported("{}: Mean needs a known float32/float64 type for MindIR", label(c));
    out = c.call("RealDiv", {}, {out, c.constant_node(k)}, out_abs(c));
  }
  c.bind(out0(c), out);
}

void export_mod(WriteCtx& c) {
  c.bind(out0(c), c.call(int_attr(c, "fmod", 0) ? "Mod" : "FloorMod", {}, {c.in(0), c.in(1)}, out_abs(c)));
}

void export_bitshift(WriteCtx& c) {
  std::string dir = str_attr(c, "direction", "");
  c.bind(out0(c), c.call(dir == "LEFT" ? "LeftShift" : "RightShift", {}, {c.in(0), c.in(1)}, out_abs(c)));
}

void export_nonzero(WriteCtx& c) {
  int r = rank_of(c, 0);
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = DType::Int64;
  a.rank_known = true;
  a.dims = {-1, r};
  std::string nz = c.call("NonZero", {}, {c.in(0)}, a);
  c.bind(out0(c), c.call("Transpose", {}, {nz, c.constant_node(MsValue::of_ints({1, 0}))}, out_abs(c)));
}

void export_constant_of_shape(WriteCtx& c) {
  const Attribute* v = c.attr("value");
  Tensor val = v && v->type == AttrType::Tensor ? v->t : Tensor::from_vector<float>({0.f}, {1});
  c.bind(out0(c), c.call("FillV2", {}, {c.in(0), c.constant_node(MsValue::of_tensor(val))}, out_abs(c)));
}

void export_pad(WriteCtx& c) {
  if (has_in(c, 3)) fail_unsupported("{}: Pad with axes is not supported in MindIR", label(c));
  std::string mode = str_attr(c, "mode", "constant");
  int64_t pm = mode == "reflect" ? 1 : mode == "edge" ? 2 : 0;
  if (mode == "wrap") fail_unsupported("{}: Pad mode 'wrap' has no MindSpore primitive", label(c));
  std::string pads;
  if (auto p = const_ints(c, 1)) {
    int64_t n = static_cast<int64_t>(p->size()) / 2;
    Tensor t(DType::Int64, {n, 2});
    for (int64_t i = 0; i < n; ++i) {
      t.data<int64_t>()[2 * i] = (*p)[i];
      t.data<int64_t>()[2 * i + 1] = (*p)[n + i];
    }
    pads = c.constant_node(MsValue::of_tensor(t));
  } else {
    Abstract a;
    a.kind = Abstract::Kind::Tensor;
    a.dtype = DType::Int64;
    std::string r = c.call("Reshape", {}, {c.in(1), c.constant_node(MsValue::of_ints({2, -1}))}, a);
    pads = c.call("Transpose", {}, {r, c.constant_node(MsValue::of_ints({1, 0}))}, a);
  }
  Attrs a{{"padding_mode", MsValue::of_int(pm)}, {"mode", MsValue::of_string(mode)}};
  std::vector<std::string> ins{c.in(0), pads};
  if (has_in(c, 2)) ins.push_back(c.in(2));
  c.bind(out0(c), c.call("PadFusion", a, ins, out_abs(c)));
}

void export_lrn(WriteCtx& c) {
  int64_t size = int_attr(c, "size", 1);
  Attrs a{{"depth_radius", MsValue::of_int((size - 1) / 2)},
          {"bias", MsValue::of_float(float_attr(c, "bias", 1.f))},
          {"alpha", MsValue::of_float(float_attr(c, "alpha", 1e-4f) / static_cast<float>(size))},
          {"beta", MsValue::of_float(float_attr(c, "beta", 0.75f))},
          {"norm_region", MsValue::of_string("ACROSS_CHANNELS")},
          {"size", MsValue::of_int(size)},
          {"onnx_alpha", MsValue::of_float(float_attr(c, "alpha", 1e-4f))}};
  c.bind(out0(c), c.call("LRN", a, {c.in(0)}, out_abs(c)));
}

void export_dropout(WriteCtx& c) {
  if (has_out(c, 1) || has_in(c, 2)) return export_dropout_general(c);
  c.bind(out0(c), c.call("Identity", {}, {c.in(0)}, out_abs(c)));
}

void export_scatter_nd(WriteCtx& c) {
  std::string red = str_attr(c, "reduction", "none");
  std::string prim = red == "add" ? "TensorScatterAdd" : red == "mul" ? "TensorScatterMul"
                     : red == "max" ? "TensorScatterMax" : red == "min" ? "TensorScatterMin" : "TensorScatterUpdate";
  c.bind(out0(c), c.call(prim, {}, {c.in(0), c.in(1), c.in(2)}, out_abs(c)));
}

// Generic entry with some inputs written as Constant tuples when they are constant initializers.
ExportFn with_tuple_inputs(std::string prim, std::vector<size_t> idx) {
  return [prim, idx](WriteCtx& c) {
    const Node& n = c.node();
    std::vector<std::string> ins;
    size_t last = n.inputs.size();
    while (last > 0 && n.inputs[last - 1].empty()) --last;
    for (size_t i = 0; i < last; ++i) {
      if (std::find(idx.begin(), idx.end(), i) != idx.end() && has_in(c, i)) {
        const Tensor* t = c.constant(n.inputs[i]);
        if (t && t->dtype() == DType::Int64 && t->rank() == 1) {
          ins.push_back(c.constant_node(MsValue::of_ints(t->to_int64_vector())));
          continue;
        }
      }
      ins.push_back(c.in(i));
    }
    Attrs a;
    for (const auto& [k, v] : n.attrs) a[k] = value_from_attr(v);
    c.bind(out0(c), c.call(prim, a, ins, out_abs(c)));
  };
}

using WFn = void (*)(WriteCtx&);
ExportRule R(std::string op, std::string prim, std::vector<std::pair<std::string, std::string>> ren = {}) {
  return ExportRule{std::move(op), std::move(prim), std::move(ren), nullptr};
}
// Export table key of a project-domain op (the writer looks those up as "<domain>.<op>").
std::string ms_op(const char* op) { return std::string(kMsDomain) + "." + op; }
ExportRule F(std::string op, std::string prim, ExportFn fn) { return ExportRule{std::move(op), std::move(prim), {}, std::move(fn)}; }

const std::vector<ExportRule>& export_rules() {
  static const std::vector<ExportRule> rules = {
      // elementwise, one to one
      R("Abs", "Abs"), R("Acos", "ACos"), R("Acosh", "Acosh"), R("Asin", "Asin"), R("Asinh", "Asinh"),
      R("Atan", "Atan"), R("Atanh", "Atanh"), R("Ceil", "Ceil"), R("Cos", "Cos"), R("Cosh", "Cosh"),
      R("Erf", "Erf"), R("Exp", "Exp"), R("Floor", "Floor"), R("Log", "Log"), R("Neg", "Neg"),
      R("Reciprocal", "Reciprocal"), R("Round", "Round"), R("Sigmoid", "Sigmoid"), R("Sign", "Sign"),
      R("Sin", "Sin"), R("Sinh", "Sinh"), R("Sqrt", "Sqrt"), R("Tan", "Tan"), R("Tanh", "Tanh"),
      R("Relu", "ReLU"), R("Not", "LogicalNot"), R("IsNaN", "IsNan"), R("IsInf", "IsInf"),
      R("Softplus", "Softplus"), R("Softsign", "Softsign"), R("HardSwish", "HSwish"), R("Mish", "Mish"),
      R("Selu", "SeLU"), R("Elu", "Elu"), R("Celu", "CeLU"), R("LeakyRelu", "LeakyReLU"),
      R("HardSigmoid", "HSigmoid"), R("Gelu", "GeLU"), R("Identity", "Identity"), R("PRelu", "PReLU"),
      R("ThresholdedRelu", "Threshold", {{"alpha", "threshold"}}),
      R("Add", "Add"), R("Sub", "Sub"), R("Mul", "Mul"), R("Div", "Div"), R("Pow", "Pow"),
      R("Equal", "Equal"), R("Greater", "Greater"), R("Less", "Less"), R("GreaterOrEqual", "GreaterEqual"),
      R("LessOrEqual", "LessEqual"), R("And", "LogicalAnd"), R("Or", "LogicalOr"), R("Xor", "LogicalXor"),
      R("BitwiseAnd", "BitwiseAnd"), R("BitwiseOr", "BitwiseOr"), R("BitwiseXor", "BitwiseXor"),
      R("BitwiseNot", "Invert"), R("Where", "Select"), R("Clip", "ClipByValue"),
      F("Mod", "FloorMod", export_mod), F("BitShift", "RightShift", export_bitshift),
      F("Max", "Maximum", [](WriteCtx& c) { export_variadic(c, "Maximum"); }),
      F("Min", "Minimum", [](WriteCtx& c) { export_variadic(c, "Minimum"); }),
      F("Sum", "AddN", [](WriteCtx& c) { export_sum(c, false); }),
      F("Mean", "AddN", [](WriteCtx& c) { export_sum(c, true); }),
      // nn
      F("Conv", "Conv2D", export_conv),
      F("MaxPool", "MaxPool", [](WriteCtx& c) { export_pool(c, true); }),
      F("AveragePool", "AvgPool", [](WriteCtx& c) { export_pool(c, false); }),
      F("GlobalAveragePool", "ReduceMean", [](WriteCtx& c) { export_global_pool(c, "ReduceMean"); }),
      F("GlobalMaxPool", "ReduceMax", [](WriteCtx& c) { export_global_pool(c, "ReduceMax"); }),
      F("BatchNormalization", "BatchNorm", export_batch_norm),
      R("InstanceNormalization", "InstanceNorm"),
      F("LayerNormalization", "LayerNorm", export_layer_norm_with_stats),
      F("LRN", "LRN", export_lrn),
      F("MatMul", "MatMul", export_matmul), F("Gemm", "MatMul", export_gemm),
      F("Softmax", "Softmax", [](WriteCtx& c) { export_softmax(c, false); }),
      F("LogSoftmax", "LogSoftmax", [](WriteCtx& c) { export_softmax(c, true); }),
      F("Dropout", "Identity", export_dropout),
      F("If", "Switch", export_if), F("Loop", "Switch", export_loop), F("Scan", "Switch", export_scan),
      F("Hardmax", "OneHot", export_hardmax), F("Shrink", "Select", export_shrink), F("Compress", "Gather", export_compress),
      R("Det", "MatrixDeterminant"),
      F("HannWindow", "HammingWindow", export_window), F("HammingWindow", "HammingWindow", export_window),
      F("BlackmanWindow", "BlackmanWindow", export_window),
      F("NegativeLogLikelihoodLoss", "GatherD", export_nll_loss),
      F("SoftmaxCrossEntropyLoss", "LogSoftmax", export_softmax_cross_entropy),
      R("DepthToSpace", "DepthToSpace", {{"blocksize", "block_size"}}),
      R("SpaceToDepth", "SpaceToDepth", {{"blocksize", "block_size"}}),
      F("Resize", "ResizeBilinearV2", export_resize), R("Einsum", "Einsum"), R("CumSum", "CumSum"),
      R("QuantizeLinear", "QuantizeLinear"), R("DequantizeLinear", "DequantizeLinear"),
      R("RoiAlign", "ROIAlign"), R("NonMaxSuppression", "NonMaxSuppression"),
      F("LSTM", "LSTM", export_lstm), F("GRU", "Switch", export_gru), F("RNN", "Switch", export_rnn),
      // shape and data movement
      F("Concat", "Concat", export_concat), F("Transpose", "Transpose", export_transpose),
      F("Reshape", "Reshape", with_tuple_inputs("Reshape", {1})),
      F("Tile", "Tile", with_tuple_inputs("Tile", {1})),
      F("Expand", "BroadcastTo", with_tuple_inputs("BroadcastTo", {1})),
      F("Squeeze", "Squeeze", export_squeeze), F("Unsqueeze", "ExpandDims", export_unsqueeze),
      R("Flatten", "Flatten"), F("Shape", "TensorShape", with_tuple_inputs("TensorShape", {})), R("Size", "Size"),
      F("Gather", "Gather", export_gather), F("GatherElements", "GatherD", export_gather_elements),
      R("GatherND", "GatherNd"), F("ScatterND", "TensorScatterUpdate", export_scatter_nd),
      R("ScatterElements", "TensorScatterElements"),
      F("Cast", "Cast", export_cast), F("CastLike", "Cast", export_cast_like), F("Slice", "StridedSlice", export_slice), F("Split", "Split", export_split),
      F("Pad", "PadFusion", export_pad), F("ConstantOfShape", "FillV2", export_constant_of_shape),
      F("NonZero", "NonZero", export_nonzero), R("Range", "Range"), F("OneHot", "OneHot", export_one_hot),
      F("TopK", "TopK", export_top_k), R("ArgMax", "Argmax"), R("ArgMin", "Argmin"), R("Trilu", "Triu"),
      R("ReverseSequence", "ReverseSequence"), R("GridSample", "GridSampler2D"), R("EyeLike", "Eye"),
      R("MeanVarianceNormalization", "MeanVarianceNormalization"), R("ConvTranspose", "Conv2DTranspose"),
      F("MaxUnpool", "MaxUnpool2D", export_max_unpool), F("Unique", "Unique2", export_unique),
      F("DFT", "FFT", export_dft), F("STFT", "RFFT", export_stft),
      F("DynamicQuantizeLinear", "RealDiv", export_dynamic_quantize_linear), F("MatMulInteger", "MatMul", export_mat_mul_integer),
      F("ConvInteger", "BatchMatMul", export_conv_integer),
      F("QLinearMatMul", "MatMul", export_qlinear_mat_mul),
      // the project's fused ops (keyed "<domain>.<op>"), as MindSpore Lite writes fused graphs
      F(ms_op("FusedConv"), "Conv2DFusion", export_fused_conv),
      F(ms_op("FusedGemm"), "MatMulFusion", export_fused_gemm),
      F(ms_op("FusedMatMul"), "MatMulFusion", export_fused_mat_mul),
      F(ms_op("Gelu"), "GeLU", export_ms_gelu),
      F(ms_op("MultiHeadAttention"), "BatchMatMul", export_multi_head_attention),
      F(ms_op("DetectionPostProcess"), "DetectionPostProcess", export_detection_post_process),
      // reductions
      F("ReduceMean", "ReduceMean", [](WriteCtx& c) { export_reduce(c, "ReduceMean"); }),
      F("ReduceSum", "ReduceSum", [](WriteCtx& c) { export_reduce(c, "ReduceSum"); }),
      F("ReduceMax", "ReduceMax", [](WriteCtx& c) { export_reduce(c, "ReduceMax"); }),
      F("ReduceMin", "ReduceMin", [](WriteCtx& c) { export_reduce(c, "ReduceMin"); }),
      F("ReduceProd", "ReduceProd", [](WriteCtx& c) { export_reduce(c, "ReduceProd"); }),
      F("ReduceSumSquare", "ReduceFusion", [](WriteCtx& c) { export_reduce(c, "ReduceFusion"); }),
      F("ReduceL1", "ReduceFusion", [](WriteCtx& c) { export_reduce(c, "ReduceFusion"); }),
      F("ReduceL2", "ReduceFusion", [](WriteCtx& c) { export_reduce(c, "ReduceFusion"); }),
      F("ReduceLogSum", "ReduceFusion", [](WriteCtx& c) { export_reduce(c, "ReduceFusion"); }),
      F("ReduceLogSumExp", "ReduceFusion", [](WriteCtx& c) { export_reduce(c, "ReduceFusion"); }),
  };
  return rules;
}

// ---------------------------------------------------------------------------------------------
// Reading helpers

std::vector<int64_t> last_n(const std::vector<int64_t>& v, int n) {
  if (static_cast<int>(v.size()) <= n) {
    if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
    return v;
  }
  return std::vector<int64_t>(v.end() - n, v.end());
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// pad_mode as a string (any case) or PadMode int64 (PAD 0, SAME 1, VALID 2).
std::string pad_mode_of(const MsValue& v) {
  if (v.kind == MsValue::Kind::String) return upper(v.s);
  int64_t m = v.as_int();
  return m == 1 ? "SAME" : m == 2 ? "VALID" : "PAD";
}

Tensor i64(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

void check_format(ReadCtx& c) {
  if (const MsValue* f = c.attr("format")) {
    bool nhwc = (f->kind == MsValue::Kind::String && upper(f->s) == "NHWC") || (f->kind == MsValue::Kind::Int && f->i == 1);
    if (nhwc) fail_unsupported("{}: NHWC layout is not supported", c.what());
  }
}

RVal import_conv(ReadCtx& c, int sp) {
  check_format(c);
  std::map<std::string, Attribute> a;
  if (const MsValue* k = c.attr("kernel_size")) a["kernel_shape"] = Attribute::of_ints(last_n(k->as_ints(), sp));
  if (const MsValue* s = c.attr("stride")) a["strides"] = Attribute::of_ints(last_n(s->as_ints(), sp));
  if (const MsValue* d = c.attr("dilation")) a["dilations"] = Attribute::of_ints(last_n(d->as_ints(), sp));
  int64_t group = 1;
  if (const MsValue* g = c.attr("group")) group = g->as_int();
  else if (const MsValue* g2 = c.attr("groups")) group = g2->as_int();
  a["group"] = Attribute::of_int(group);
  std::string mode = "PAD";
  if (const MsValue* m = c.attr("pad_mode")) mode = pad_mode_of(*m);
  if (mode == "VALID") {
    a["auto_pad"] = Attribute::of_string("VALID");
  } else if (mode == "SAME") {
    const MsValue* ap = c.attr("auto_pad");
    a["auto_pad"] = Attribute::of_string(ap && ap->kind == MsValue::Kind::String ? ap->s : "SAME_UPPER");
  } else {
    const MsValue* p = c.attr("pad_list");
    if (!p || p->as_ints().size() != static_cast<size_t>(2 * sp)) p = c.attr("pad");
    if (p) {
      auto v = p->as_ints();
      if (v.size() == 1) v.assign(2 * sp, v[0]);
      a["pads"] = Attribute::of_ints(pairs_to_pads(v, sp));
    }
  }
  std::string y = c.add1("Conv", {c.tensor(0), c.tensor(1)}, a);
  return RVal::tensor(y, c.out_abstract());
}

RVal import_pool(ReadCtx& c, bool is_max, int sp) {
  check_format(c);
  std::map<std::string, Attribute> a;
  MsValue k = c.const_arg(1, "kernel_size");
  MsValue s = c.has_const_arg(2, "strides") ? c.const_arg(2, "strides") : k;
  a["kernel_shape"] = Attribute::of_ints(last_n(k.as_ints(), sp));
  a["strides"] = Attribute::of_ints(last_n(s.as_ints(), sp));
  std::string mode = c.has_const_arg(3, "pad_mode") ? pad_mode_of(c.const_arg(3, "pad_mode")) : "VALID";
  if (mode == "VALID") {
    a["auto_pad"] = Attribute::of_string("VALID");
  } else if (mode == "SAME") {
    const MsValue* ap = c.attr("auto_pad");
    a["auto_pad"] = Attribute::of_string(ap && ap->kind == MsValue::Kind::String ? ap->s : "SAME_UPPER");
  } else if (const MsValue* p = c.attr("pad_list")) {
    a["pads"] = Attribute::of_ints(pairs_to_pads(p->as_ints(), sp));
  }
  if (const MsValue* cm = c.attr("ceil_mode")) a["ceil_mode"] = Attribute::of_int(cm->as_int());
  if (const MsValue* d = c.attr("dilation")) a["dilations"] = Attribute::of_ints(last_n(d->as_ints(), sp));
  if (!is_max) {
    const MsValue* cip = c.attr("count_include_pad");
    a["count_include_pad"] = Attribute::of_int(cip ? cip->as_int() : 0);
  }
  std::string y = c.add1(is_max ? "MaxPool" : "AveragePool", {c.tensor(0)}, a);
  return RVal::tensor(y, c.out_abstract());
}

RVal import_bias_add(ReadCtx& c) {
  check_format(c);
  const RVal& x = c.inputs().at(0);
  // Conv2D + BiasAdd as MindSpore writes a biased convolution: fold the bias back into the Conv.
  if (x.kind == RVal::Kind::Tensor && c.use_count(0) == 1) {
    Node* p = c.producer(x.name);
    if (p && p->op_type == "Conv" && p->inputs.size() == 2) {
      p->inputs.push_back(c.tensor(1));
      return RVal::tensor(c.reclaim(x.name), c.out_abstract());
    }
  }
  int r = c.rank(0);
  if (r < 0) fail_unsupported("{}: BiasAdd on an input of unknown rank", c.what());
  std::string b = c.tensor(1);
  if (r > 2) {
    std::vector<int64_t> axes;
    for (int i = 1; i < r - 1; ++i) axes.push_back(i);
    b = c.add1("Unsqueeze", {b, c.add_const(i64(axes), "bias_axes")});
  }
  return RVal::tensor(c.add1("Add", {c.tensor(0), b}), c.out_abstract());
}

bool flag_attr(ReadCtx& c, std::initializer_list<const char*> names, size_t input_index) {
  for (const char* n : names)
    if (const MsValue* v = c.attr(n)) return v->as_int() != 0;
  if (input_index < c.inputs().size() && c.inputs()[input_index].kind == RVal::Kind::Const)
    return c.inputs()[input_index].c.as_int() != 0;
  return false;
}

RVal import_matmul(ReadCtx& c, bool batch) {
  bool ta = flag_attr(c, {"transpose_a", "transpose_x1", "adj_x1"}, 2);
  bool tb = flag_attr(c, {"transpose_b", "transpose_x2", "adj_x2"}, 3);
  std::string a = c.tensor(0), b = c.tensor(1);
  if (!batch && (ta || tb)) {
    std::map<std::string, Attribute> at{{"transA", Attribute::of_int(ta)}, {"transB", Attribute::of_int(tb)}};
    return RVal::tensor(c.add1("Gemm", {a, b}, at), c.out_abstract());
  }
  auto swap_last = [&](std::string v, size_t i) {
    int r = c.rank(i);
    if (r < 2) fail_unsupported("{}: transposed BatchMatMul on an input of unknown rank", c.what());
    std::vector<int64_t> perm;
    for (int k = 0; k < r; ++k) perm.push_back(k);
    std::swap(perm[r - 1], perm[r - 2]);
    return c.add1("Transpose", {std::move(v)}, {{"perm", Attribute::of_ints(perm)}});
  };
  if (ta) a = swap_last(a, 0);
  if (tb) b = swap_last(b, 1);
  return RVal::tensor(c.add1("MatMul", {a, b}), c.out_abstract());
}

RVal import_batch_norm(ReadCtx& c) {
  check_format(c);
  if (c.has_const_arg(5, "is_training") && c.const_arg(5, "is_training").as_int())
    fail_unsupported("{}: training-mode BatchNorm is not supported", c.what());
  std::map<std::string, Attribute> a;
  if (c.has_const_arg(6, "epsilon")) a["epsilon"] = Attribute::of_float(static_cast<float>(c.const_arg(6, "epsilon").as_double()));
  if (c.has_const_arg(7, "momentum")) a["momentum"] = Attribute::of_float(static_cast<float>(c.const_arg(7, "momentum").as_double()));
  std::string y = c.add1("BatchNormalization", {c.tensor(0), c.tensor(1), c.tensor(2), c.tensor(3), c.tensor(4)}, a);
  RVal none;
  Abstract ya = c.out_abstract().kind == Abstract::Kind::Tuple && !c.out_abstract().elems.empty() ? c.out_abstract().elems[0] : Abstract{};
  return RVal::tuple({RVal::tensor(y, ya), none, none, none, none});
}

RVal import_concat(ReadCtx& c) {
  const RVal& t = c.inputs().at(0);
  std::vector<std::string> ins;
  if (t.kind == RVal::Kind::Tuple) {
    for (const auto& e : t.elems) ins.push_back(c.tensor_of(e));
  } else {
    // legacy files may pass the tensors directly
    for (size_t i = 0; i < c.inputs().size(); ++i)
      if (c.inputs()[i].kind == RVal::Kind::Tensor) ins.push_back(c.tensor(i));
  }
  int64_t axis = c.has_const_arg(1, "axis") && t.kind == RVal::Kind::Tuple ? c.const_arg(1, "axis").as_int()
                                                                           : (c.attr("axis") ? c.attr("axis")->as_int() : 0);
  return RVal::tensor(c.add1("Concat", ins, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
}

RVal import_transpose(ReadCtx& c) {
  if (!c.has_const_arg(1, "perm")) fail_unsupported("{}: Transpose with a permutation computed at run time", c.what());
  auto perm = c.const_arg(1, "perm").as_ints();
  return RVal::tensor(c.add1("Transpose", {c.tensor(0)}, {{"perm", Attribute::of_ints(perm)}}), c.out_abstract());
}

RVal import_softmax(ReadCtx& c, bool log) {
  int64_t axis = c.has_const_arg(1, "axis") ? c.const_arg(1, "axis").as_ints().at(0) : -1;
  return RVal::tensor(c.add1(log ? "LogSoftmax" : "Softmax", {c.tensor(0)}, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
}

RVal import_squeeze(ReadCtx& c) {
  std::vector<int64_t> axes = c.has_const_arg(1, "axis") ? c.const_arg(1, "axis").as_ints() : std::vector<int64_t>{};
  std::vector<std::string> ins{c.tensor(0)};
  if (!axes.empty()) ins.push_back(c.add_const(i64(axes), "axes"));
  return RVal::tensor(c.add1("Squeeze", ins), c.out_abstract());
}

RVal import_expand_dims(ReadCtx& c) {
  if (!c.has_const_arg(1, "axis")) fail_unsupported("{}: ExpandDims with an axis computed at run time", c.what());
  auto axes = c.const_arg(1, "axis").as_ints();
  return RVal::tensor(c.add1("Unsqueeze", {c.tensor(0), c.add_const(i64(axes), "axes")}), c.out_abstract());
}

RVal import_gather(ReadCtx& c) {
  int64_t axis = c.has_const_arg(2, "axis") ? c.const_arg(2, "axis").as_int() : 0;
  if (c.has_const_arg(3, "batch_dims") && c.const_arg(3, "batch_dims").as_int() != 0)
    fail_unsupported("{}: Gather with batch_dims is not supported", c.what());
  return RVal::tensor(c.add1("Gather", {c.tensor(0), c.tensor(1)}, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
}

RVal import_gather_d(ReadCtx& c) {
  int64_t axis = c.const_arg(1, "dim").as_int();
  return RVal::tensor(c.add1("GatherElements", {c.tensor(0), c.tensor(2)}, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
}

RVal import_cast(ReadCtx& c) {
  MsValue to;
  if (c.has_const_arg(1, "dst_type")) to = c.const_arg(1, "dst_type");
  else if (const MsValue* t = c.attr("to")) to = *t;
  else fail("{}: Cast without a target type", c.what());
  DType dt = to.kind == MsValue::Kind::DType ? to.dtype : dtype_from_type_id(to.as_int(), c.what());
  return RVal::tensor(c.add1("Cast", {c.tensor(0)}, {{"to", Attribute::of_int(static_cast<int64_t>(dt))}}), c.out_abstract());
}

RVal import_reduce(ReadCtx& c, std::string op) {
  if (op == "ReduceFusion") {
    const MsValue* m = c.attr("mode");
    int64_t mode = m ? m->as_int() : 0;
    static const std::map<int64_t, std::string> modes{{0, "ReduceMean"}, {1, "ReduceMax"}, {2, "ReduceMin"}, {3, "ReduceProd"},
                                                      {4, "ReduceSum"}, {5, "ReduceSumSquare"}, {8, "ReduceL2"}, {9, "ReduceL1"},
                                                      {10, "ReduceLogSum"}, {11, "ReduceLogSumExp"}};
    auto it = modes.find(mode);
    if (it == modes.end()) fail_unsupported("{}: ReduceFusion mode {} is not supported", c.what(), mode);
    op = it->second;
  }
  bool keep = c.has_const_arg(2, "keep_dims") ? c.const_arg(2, "keep_dims").as_int() != 0 : false;
  std::map<std::string, Attribute> a{{"keepdims", Attribute::of_int(keep)}};
  if (c.inputs().size() > 1 && c.inputs()[1].kind == RVal::Kind::Tensor) {
    if (op != "ReduceSum") fail_unsupported("{}: {} with an axis computed at run time is not supported", c.what(), op);
    const MsValue* skip = c.attr("skip_mode");
    a["noop_with_empty_axes"] = Attribute::of_int(skip && skip->as_int() != 0);
    return RVal::tensor(c.add1(op, {c.tensor(0), c.tensor(1)}, a), c.out_abstract());
  }
  std::vector<int64_t> axes = c.has_const_arg(1, "axis") ? c.const_arg(1, "axis").as_ints() : std::vector<int64_t>{};
  std::vector<std::string> ins{c.tensor(0)};
  if (!axes.empty()) {
    if (op == "ReduceSum") ins.push_back(c.add_const(i64(axes), "axes"));
    else a["axes"] = Attribute::of_ints(axes);
  }
  return RVal::tensor(c.add1(op, ins, a), c.out_abstract());
}

RVal import_split(ReadCtx& c, bool v) {
  int64_t axis, num;
  std::vector<std::string> ins{c.tensor(0)};
  if (v) {
    axis = c.attr("split_dim") ? c.attr("split_dim")->as_int() : 0;
    auto sizes = c.attr("size_splits")->as_ints();
    num = static_cast<int64_t>(sizes.size());
    ins.push_back(c.add_const(i64(sizes), "split"));
  } else {
    axis = c.has_const_arg(1, "axis") ? c.const_arg(1, "axis").as_int() : 0;
    num = c.has_const_arg(2, "output_num") ? c.const_arg(2, "output_num").as_int() : 1;
  }
  auto outs = c.add("Split", ins, {{"axis", Attribute::of_int(axis)}}, static_cast<int>(num));
  std::vector<RVal> e;
  for (size_t i = 0; i < outs.size(); ++i) {
    Abstract ab = c.out_abstract().kind == Abstract::Kind::Tuple && i < c.out_abstract().elems.size() ? c.out_abstract().elems[i] : Abstract{};
    e.push_back(RVal::tensor(outs[i], ab));
  }
  return RVal::tuple(std::move(e));
}

RVal import_strided_slice(ReadCtx& c) {
  if (c.inputs().size() == 5) {  // Lite / mstools dynamic form: (x, starts, ends, axes, steps)
    std::vector<std::string> ins;
    for (size_t i = 0; i < 5; ++i) ins.push_back(c.tensor(i));
    while (!ins.empty() && ins.back().empty()) ins.pop_back();
    return RVal::tensor(c.add1("Slice", ins), c.out_abstract());
  }
  auto mask = [&](size_t i, const char* n) -> int64_t {
    return c.has_const_arg(i, n) ? c.const_arg(i, n).as_int() : 0;
  };
  int64_t bm = mask(4, "begin_mask"), em = mask(5, "end_mask"), elm = mask(6, "ellipsis_mask"),
          nm = mask(7, "new_axis_mask"), sm = mask(8, "shrink_axis_mask");
  if (elm || nm) fail_unsupported("{}: StridedSlice with ellipsis/new_axis masks is not supported", c.what());
  if (!c.has_const_arg(1, "begin") || !c.has_const_arg(2, "end") || !c.has_const_arg(3, "strides"))
    fail_unsupported("{}: StridedSlice with bounds computed at run time", c.what());
  auto b = c.const_arg(1, "begin").as_ints(), e = c.const_arg(2, "end").as_ints(), s = c.const_arg(3, "strides").as_ints();
  std::vector<int64_t> starts, ends, axes, steps, shrink;
  for (size_t k = 0; k < b.size(); ++k) {
    int64_t st = k < s.size() ? s[k] : 1;
    int64_t bb = b[k], ee = k < e.size() ? e[k] : 0;
    if (bm >> k & 1) bb = st > 0 ? 0 : INT64_MAX;
    if (em >> k & 1) ee = st > 0 ? INT64_MAX : INT64_MIN;
    if (sm >> k & 1) {
      ee = bb == -1 ? INT64_MAX : bb + 1;
      st = 1;
      shrink.push_back(static_cast<int64_t>(k));
    }
    starts.push_back(bb);
    ends.push_back(ee);
    axes.push_back(static_cast<int64_t>(k));
    steps.push_back(st);
  }
  std::string y = c.add1("Slice", {c.tensor(0), c.add_const(i64(starts), "starts"), c.add_const(i64(ends), "ends"),
                                   c.add_const(i64(axes), "axes"), c.add_const(i64(steps), "steps")});
  if (!shrink.empty()) y = c.add1("Squeeze", {y, c.add_const(i64(shrink), "axes")});
  return RVal::tensor(y, c.out_abstract());
}

RVal import_pad(ReadCtx& c) {
  std::string mode = "constant";
  if (const MsValue* m = c.attr("mode"); m && m->kind == MsValue::Kind::String) mode = m->s;
  else if (const MsValue* pm = c.attr("padding_mode")) mode = pm->as_int() == 1 ? "reflect" : pm->as_int() == 2 ? "edge" : "constant";
  std::string pads;
  const RVal& p = c.inputs().at(1);
  if (p.kind == RVal::Kind::Const || (p.kind == RVal::Kind::Tensor && false)) {
    auto v = p.c.as_ints();
    int64_t n = static_cast<int64_t>(v.size()) / 2;
    std::vector<int64_t> o(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      o[i] = v[2 * i];
      o[n + i] = v[2 * i + 1];
    }
    pads = c.add_const(i64(o), "pads");
  } else {
    std::string t = c.add1("Transpose", {c.tensor(1)}, {{"perm", Attribute::of_ints({1, 0})}});
    pads = c.add1("Reshape", {t, c.add_const(i64({-1}), "shape")});
  }
  std::vector<std::string> ins{c.tensor(0), pads};
  if (c.inputs().size() > 2) ins.push_back(c.tensor(2));
  else if (const MsValue* cv = c.attr("constant_value"); cv && cv->as_double() != 0) {
    DType dt = c.dtype(0);
    if (dt == DType::Float32) ins.push_back(c.add_const(Tensor::scalar<float>(static_cast<float>(cv->as_double())), "pad_value"));
  }
  return RVal::tensor(c.add1("Pad", ins, {{"mode", Attribute::of_string(mode)}}), c.out_abstract());
}

RVal import_fill(ReadCtx& c) {
  const RVal& v = c.inputs().at(1);
  if (v.kind != RVal::Kind::Const) fail_unsupported("{}: FillV2 with a value computed at run time", c.what());
  Tensor t = v.c.kind == MsValue::Kind::Tensor ? v.c.t : Tensor::from_vector<float>({static_cast<float>(v.c.as_double())}, {1});
  return RVal::tensor(c.add1("ConstantOfShape", {c.tensor(0)}, {{"value", Attribute::of_tensor(t.reshaped({1}))}}), c.out_abstract());
}

RVal import_lrn(ReadCtx& c) {
  int64_t size = c.attr("size") ? c.attr("size")->as_int() : 2 * (c.attr("depth_radius") ? c.attr("depth_radius")->as_int() : 5) + 1;
  float alpha = c.attr("onnx_alpha") ? static_cast<float>(c.attr("onnx_alpha")->as_double())
                                     : static_cast<float>(c.attr("alpha") ? c.attr("alpha")->as_double() * size : 1e-4);
  std::map<std::string, Attribute> a{{"size", Attribute::of_int(size)}, {"alpha", Attribute::of_float(alpha)}};
  if (c.attr("beta")) a["beta"] = Attribute::of_float(static_cast<float>(c.attr("beta")->as_double()));
  if (c.attr("bias")) a["bias"] = Attribute::of_float(static_cast<float>(c.attr("bias")->as_double()));
  return RVal::tensor(c.add1("LRN", {c.tensor(0)}, a), c.out_abstract());
}

Tensor scalar_like(DType dt, double v) {
  switch (dt) {
    case DType::Float64: return Tensor::scalar<double>(v);
    case DType::Float16: return Tensor::scalar<float16_t>(float16_t(static_cast<float>(v)));
    default: return Tensor::scalar<float>(static_cast<float>(v));
  }
}

RVal import_layer_norm(ReadCtx& c) {
  int64_t axis = c.has_const_arg(3, "begin_norm_axis") ? c.const_arg(3, "begin_norm_axis").as_int() : -1;
  float eps = c.has_const_arg(5, "epsilon") ? static_cast<float>(c.const_arg(5, "epsilon").as_double()) : 1e-5f;
  std::map<std::string, Attribute> a{{"axis", Attribute::of_int(axis)}, {"epsilon", Attribute::of_float(eps)}};
  if (c.attr("stash_type")) a["stash_type"] = Attribute::of_int(c.attr("stash_type")->as_int());
  std::vector<std::string> ins{c.tensor(0), c.tensor(1)};
  std::string b = c.tensor(2);
  if (!b.empty()) ins.push_back(b);
  auto outs = c.add("LayerNormalization", ins, a, 3);
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  // MindSpore returns the variance where ONNX returns InvStdDev: var = 1 / inv^2 - eps. The reader
  // drops these nodes again when nothing uses the variance.
  DType sdt = ab(2).dtype != DType::Undefined ? ab(2).dtype : DType::Float32;
  std::string sq = c.add1("Mul", {outs[2], outs[2]});
  std::string rec = c.add1("Reciprocal", {sq});
  std::string var = c.add1("Sub", {rec, c.add_const(scalar_like(sdt, eps), "epsilon")});
  for (const auto& v : {sq, rec, var}) c.optional(v);
  return RVal::tuple({RVal::tensor(outs[0], ab(0)), RVal::tensor(outs[1], ab(1)), RVal::tensor(var, ab(2))});
}

RVal import_variadic_sum(ReadCtx& c) {
  const RVal& t = c.inputs().at(0);
  std::vector<std::string> ins;
  if (t.kind == RVal::Kind::Tuple)
    for (const auto& e : t.elems) ins.push_back(c.tensor_of(e));
  else
    for (size_t i = 0; i < c.inputs().size(); ++i) ins.push_back(c.tensor(i));
  return RVal::tensor(c.add1("Sum", ins), c.out_abstract());
}

RVal import_one_hot(ReadCtx& c) {
  int64_t axis = c.attr("axis") ? c.attr("axis")->as_int() : (c.has_const_arg(4, "axis") ? c.const_arg(4, "axis").as_int() : -1);
  if (c.inputs().size() >= 4 && c.inputs()[3].kind != RVal::Kind::None) {  // MindSpore form: indices, depth, on, off
    std::string off = c.add1("Reshape", {c.tensor(3), c.add_const(i64({1}), "shape")});
    std::string on = c.add1("Reshape", {c.tensor(2), c.add_const(i64({1}), "shape")});
    std::string vals = c.add1("Concat", {off, on}, {{"axis", Attribute::of_int(0)}});
    return RVal::tensor(c.add1("OneHot", {c.tensor(0), c.tensor(1), vals}, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
  }
  return RVal::tensor(c.add1("OneHot", {c.tensor(0), c.tensor(1), c.tensor(2)}, {{"axis", Attribute::of_int(axis)}}), c.out_abstract());
}

RVal binary_to(ReadCtx& c, const std::string& op, std::map<std::string, Attribute> a = {}) {
  return RVal::tensor(c.add1(op, {c.tensor(0), c.tensor(1)}, std::move(a)), c.out_abstract());
}

// Scalar arithmetic (ScalarMul, ScalarAdd, ...) on 0-d tensors, in the dtype of the declared output.
RVal import_scalar_binary(ReadCtx& c, const std::string& op) {
  DType out = c.out_abstract().dtype;
  std::vector<std::string> ins;
  for (size_t i = 0; i < 2; ++i) {
    std::string t = c.tensor(i);
    if (out != DType::Undefined && c.dtype(i) != out)
      t = c.add1("Cast", {t}, {{"to", Attribute::of_int(static_cast<int64_t>(out))}});
    ins.push_back(t);
  }
  return RVal::tensor(c.add1(op, ins), c.out_abstract());
}

RVal import_celu(ReadCtx& c) {
  const RVal& alpha = c.inputs().size() > 1 ? c.inputs()[1] : RVal{};
  DType dt = c.dtype(0);
  // ONNX defines Celu on float32 only; other dtypes take the formula below.
  if ((alpha.kind == RVal::Kind::Const || c.attr("alpha")) && (dt == DType::Float32 || dt == DType::Undefined)) {
    double a = alpha.kind == RVal::Kind::Const ? alpha.c.as_double() : c.attr("alpha")->as_double();
    return RVal::tensor(c.add1("Celu", {c.tensor(0)}, {{"alpha", Attribute::of_float(static_cast<float>(a))}}), c.out_abstract());
  }
  // alpha computed at run time (or x not float32): celu(x) = max(0,x) + min(0, alpha*(exp(x/alpha)-1))
  std::string x = c.tensor(0);
  std::string a = alpha.kind == RVal::Kind::None && c.attr("alpha")
                      ? c.add_const(scalar_like(dt, c.attr("alpha")->as_double()), "alpha")
                      : c.tensor(1);
  if (c.dtype(1) != dt) a = c.add1("Cast", {a}, {{"to", Attribute::of_int(static_cast<int64_t>(dt))}});
  std::string e = c.add1("Exp", {c.add1("Div", {x, a})});
  std::string s = c.add1("Sub", {e, c.add_const(scalar_like(dt, 1.0), "one")});
  std::string m = c.add1("Min", {c.add1("Mul", {a, s}), c.add_const(scalar_like(dt, 0.0), "zero")});
  return RVal::tensor(c.add1("Add", {c.add1("Relu", {x}), m}), c.out_abstract());
}

RVal import_upsample_nearest(ReadCtx& c, int sp) {
  const RVal& size = c.inputs().at(1);
  const RVal& scale = c.inputs().at(2);
  std::map<std::string, Attribute> a{{"mode", Attribute::of_string("nearest")},
                                     {"coordinate_transformation_mode", Attribute::of_string("asymmetric")},
                                     {"nearest_mode", Attribute::of_string("floor")}};
  // ONNX Runtime has Resize kernels for few dtypes (not float64); with static dims, nearest
  // upsampling is one Gather per spatial axis instead, exact for every dtype.
  std::vector<int64_t> in = c.dims(0);
  bool static_in = static_cast<int>(in.size()) == 2 + sp &&
                   std::all_of(in.begin(), in.end(), [](int64_t d) { return d >= 0; });
  if (c.dtype(0) != DType::Float32 && static_in) {
    std::string y = c.tensor(0);
    for (int k = 0; k < sp; ++k) {
      int64_t n_in = in[2 + k], n_out;
      double sc;
      if (scale.kind == RVal::Kind::Const && scale.c.kind != MsValue::Kind::None) {
        sc = scale.c.as_doubles().at(k);
        n_out = static_cast<int64_t>(std::floor(n_in * sc));
      } else if (size.kind == RVal::Kind::Const && size.c.kind != MsValue::Kind::None) {
        n_out = size.c.as_ints().at(k);
        sc = static_cast<double>(n_out) / static_cast<double>(n_in);
      } else {
        break;
      }
      std::vector<int64_t> idx(n_out);
      for (int64_t o = 0; o < n_out; ++o) idx[o] = std::min<int64_t>(static_cast<int64_t>(std::floor(o / sc)), n_in - 1);
      y = c.add1("Gather", {y, c.add_const(i64(idx), "nearest_index")}, {{"axis", Attribute::of_int(2 + k)}});
      if (k == sp - 1) return RVal::tensor(y, c.out_abstract());
    }
  }
  if (scale.kind == RVal::Kind::Const && scale.c.kind != MsValue::Kind::None) {
    std::vector<float> sc{1.f, 1.f};
    for (double d : scale.c.as_doubles()) sc.push_back(static_cast<float>(d));
    Tensor t = Tensor::from_vector<float>(sc, {static_cast<int64_t>(sc.size())});
    return RVal::tensor(c.add1("Resize", {c.tensor(0), "", c.add_const(t, "scales")}, a), c.out_abstract());
  }
  if (size.kind == RVal::Kind::Const && size.c.kind != MsValue::Kind::None) {
    std::string shp = c.add1("Shape", {c.tensor(0)}, {{"end", Attribute::of_int(2)}});
    std::string sizes = c.add1("Concat", {shp, c.add_const(i64(size.c.as_ints()), "size")}, {{"axis", Attribute::of_int(0)}});
    return RVal::tensor(c.add1("Resize", {c.tensor(0), "", "", sizes}, a), c.out_abstract());
  }
  fail_unsupported("{}: upsampling with sizes computed at run time", c.what());
}

// MindSpore LSTM(x [T,B,I], h0 [L*D,B,H], c0, w flat) -> ONNX LSTM, single layer.
RVal import_ms_lstm(ReadCtx& c) {
  if (c.inputs().size() != 4 || !c.attr("hidden_size") || c.attr("hidden_size")->kind != MsValue::Kind::Int || !c.attr("input_size"))
    return c.generic("LSTM");
  auto geti = [&](const char* n, int64_t d) { return c.attr(n) ? c.attr(n)->as_int() : d; };
  int64_t I = geti("input_size", 0), H = geti("hidden_size", 0), L = geti("num_layers", 1);
  bool bias = geti("has_bias", 1) != 0, bidir = geti("bidirectional", 0) != 0;
  if (L != 1 || bidir) fail_unsupported("{}: MindSpore LSTM with {} layers{} is not supported", c.what(), L, bidir ? ", bidirectional" : "");
  std::string w = c.tensor(3);
  auto slice = [&](int64_t b, int64_t e) {
    return c.add1("Slice", {w, c.add_const(i64({b}), "s"), c.add_const(i64({e}), "e"), c.add_const(i64({0}), "axes")});
  };
  // gate order i,f,g,o (MindSpore/PyTorch) -> i,o,f,c (ONNX)
  auto reorder = [&](std::string flat, int64_t cols) {
    std::string r = c.add1("Reshape", {flat, c.add_const(i64({4, H, cols}), "shape")});
    auto parts = c.add("Split", {r}, {{"axis", Attribute::of_int(0)}}, 4);
    std::string cat = c.add1("Concat", {parts[0], parts[3], parts[1], parts[2]}, {{"axis", Attribute::of_int(0)}});
    return c.add1("Reshape", {cat, c.add_const(i64({1, 4 * H, cols}), "shape")});
  };
  int64_t off = 0;
  std::string W = reorder(slice(off, off + 4 * H * I), I);
  off += 4 * H * I;
  std::string R = reorder(slice(off, off + 4 * H * H), H);
  off += 4 * H * H;
  std::string B = "";
  if (bias) {
    // MindSpore's nn.LSTM passes one combined bias (b_ih + b_hh); cuDNN-style weights carry both.
    int64_t total = 1;
    for (int64_t d : c.dims(3)) total = d < 0 ? -1 : total * d;
    bool two = total == 4 * H * (I + H) + 8 * H;
    std::string bi = reorder(slice(off, off + 4 * H), 1);
    std::string bh = two ? reorder(slice(off + 4 * H, off + 8 * H), 1)
                         : c.add_const(Tensor(c.dtype(3) == DType::Undefined ? DType::Float32 : c.dtype(3), {1, 4 * H, 1}), "zero_bias");
    std::string cat = c.add1("Concat", {bi, bh}, {{"axis", Attribute::of_int(1)}});
    B = c.add1("Reshape", {cat, c.add_const(i64({1, 8 * H}), "shape")});
  }
  auto outs = c.add("LSTM", {c.tensor(0), W, R, B, "", c.tensor(1), c.tensor(2)}, {{"hidden_size", Attribute::of_int(H)}}, 3);
  std::string y = c.add1("Squeeze", {outs[0], c.add_const(i64({1}), "axes")});
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  return RVal::tuple({RVal::tensor(y, ab(0)), RVal::tensor(outs[1], ab(1)), RVal::tensor(outs[2], ab(2)), RVal{}, RVal{}});
}

RVal import_nonzero(ReadCtx& c) {
  std::string nz = c.add1("NonZero", {c.tensor(0)});
  return RVal::tensor(c.add1("Transpose", {nz}, {{"perm", Attribute::of_ints({1, 0})}}), c.out_abstract());
}

RVal import_mod(ReadCtx& c, int64_t fmod) { return binary_to(c, "Mod", {{"fmod", Attribute::of_int(fmod)}}); }

// UniformReal(shape): U[0,1) float32 of that shape; the shape may be computed at run time.
RVal import_uniform_real(ReadCtx& c) {
  std::string zeros = c.add1("ConstantOfShape", {c.tensor(0)}, {{"value", Attribute::of_tensor(Tensor::from_vector<float>({0.f}, {1}))}});
  std::map<std::string, Attribute> a{{"dtype", Attribute::of_int(static_cast<int64_t>(DType::Float32))}};
  int64_t seed = c.attr("seed") ? c.attr("seed")->as_int() : 0, seed2 = c.attr("seed2") ? c.attr("seed2")->as_int() : 0;
  if (seed || seed2) a["seed"] = Attribute::of_float(static_cast<float>(seed ? seed : seed2));
  return RVal::tensor(c.add1("RandomUniformLike", {zeros}, a), c.out_abstract());
}

// floor(a / b): for integers a - floormod(a, b) is a multiple of b, so the truncating Div is exact.
RVal import_floor_div(ReadCtx& c) {
  std::string a = c.tensor(0), b = c.tensor(1);
  if (dtype_is_float(c.dtype(0))) return RVal::tensor(c.add1("Floor", {c.add1("Div", {a, b})}), c.out_abstract());
  std::string m = c.add1("Mod", {a, b}, {{"fmod", Attribute::of_int(0)}});
  return RVal::tensor(c.add1("Div", {c.add1("Sub", {a, m}), b}), c.out_abstract());
}

// MaxPoolWithArgmaxV2 (x) -> (y, argmax within each (n, c) plane). ONNX MaxPool's Indices are flat
// over the input (row-major), so the plane index is Indices mod (H * W).
RVal import_max_pool_argmax(ReadCtx& c) {
  check_format(c);
  auto pair = [&](const char* n, int64_t def) {
    const MsValue* v = c.attr(n);
    return v ? last_n(v->as_ints(), 2) : std::vector<int64_t>{def, def};
  };
  const MsValue* k = c.attr("kernel_size");
  if (!k) fail("{}: MaxPoolWithArgmaxV2 without kernel_size", c.what());
  auto pads = pair("pads", 0);
  std::map<std::string, Attribute> a{{"kernel_shape", Attribute::of_ints(last_n(k->as_ints(), 2))},
                                     {"strides", Attribute::of_ints(pair("strides", 1))},
                                     {"dilations", Attribute::of_ints(pair("dilation", 1))},
                                     {"pads", Attribute::of_ints({pads[0], pads[1], pads[0], pads[1]})}};
  if (const MsValue* cm = c.attr("ceil_mode")) a["ceil_mode"] = Attribute::of_int(cm->as_int() != 0);
  auto outs = c.add("MaxPool", {c.tensor(0)}, a, 2);
  std::string plane = c.add1("ReduceProd", {c.add1("Shape", {c.tensor(0)}, {{"start", Attribute::of_int(2)}})},
                             {{"keepdims", Attribute::of_int(0)}});
  std::string idx = c.add1("Mod", {outs[1], plane}, {{"fmod", Attribute::of_int(0)}});
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  DType want = ab(1).dtype;
  if (const MsValue* t = c.attr("argmax_type"); t && t->kind == MsValue::Kind::DType) want = t->dtype;
  if (want != DType::Undefined && want != DType::Int64)
    idx = c.add1("Cast", {idx}, {{"to", Attribute::of_int(static_cast<int64_t>(want))}});
  return RVal::tuple({RVal::tensor(outs[0], ab(0)), RVal::tensor(idx, ab(1))});
}

ImportRule I(std::string prim, ImportFn fn) { return ImportRule{std::move(prim), "", {}, std::move(fn)}; }

const std::vector<ImportRule>& import_rules() {
  static const std::vector<ImportRule> rules = {
      I("Conv2D", [](ReadCtx& c) { return import_conv(c, 2); }),
      I("Conv3D", [](ReadCtx& c) { return import_conv(c, 3); }),
      I("BiasAdd", import_bias_add),
      I("MaxPool", [](ReadCtx& c) { return import_pool(c, true, 2); }),
      I("AvgPool", [](ReadCtx& c) { return import_pool(c, false, 2); }),
      I("MaxPool3D", [](ReadCtx& c) { return import_pool(c, true, 3); }),
      I("AvgPool3D", [](ReadCtx& c) { return import_pool(c, false, 3); }),
      I("BatchNorm", import_batch_norm),
      I("MatMul", [](ReadCtx& c) { return import_matmul(c, false); }),
      I("BatchMatMul", [](ReadCtx& c) { return import_matmul(c, true); }),
      I("Concat", import_concat),
      I("Transpose", import_transpose),
      I("Softmax", [](ReadCtx& c) { return import_softmax(c, false); }),
      I("LogSoftmax", [](ReadCtx& c) { return import_softmax(c, true); }),
      I("Squeeze", import_squeeze),
      I("ExpandDims", import_expand_dims),
      I("Gather", import_gather),
      I("GatherV2", import_gather),
      I("GatherD", import_gather_d),
      I("Cast", import_cast),
      I("ReduceMean", [](ReadCtx& c) { return import_reduce(c, "ReduceMean"); }),
      I("ReduceSum", [](ReadCtx& c) { return import_reduce(c, "ReduceSum"); }),
      I("ReduceMax", [](ReadCtx& c) { return import_reduce(c, "ReduceMax"); }),
      I("ReduceMin", [](ReadCtx& c) { return import_reduce(c, "ReduceMin"); }),
      I("ReduceProd", [](ReadCtx& c) { return import_reduce(c, "ReduceProd"); }),
      I("ReduceFusion", [](ReadCtx& c) { return import_reduce(c, "ReduceFusion"); }),
      I("Split", [](ReadCtx& c) { return import_split(c, false); }),
      I("SplitV", [](ReadCtx& c) { return import_split(c, true); }),
      I("StridedSlice", import_strided_slice),
      I("PadFusion", import_pad),
      I("FillV2", import_fill),
      I("LRN", import_lrn),
      I("LayerNorm", import_layer_norm),
      I("AddN", import_variadic_sum),
      I("OneHot", import_one_hot),
      I("Maximum", [](ReadCtx& c) { return binary_to(c, "Max"); }),
      I("Minimum", [](ReadCtx& c) { return binary_to(c, "Min"); }),
      I("RealDiv", [](ReadCtx& c) { return binary_to(c, "Div"); }),
      I("FloorMod", [](ReadCtx& c) { return import_mod(c, 0); }),
      I("Mod", [](ReadCtx& c) { return import_mod(c, 1); }),
      I("LeftShift", [](ReadCtx& c) { return binary_to(c, "BitShift", {{"direction", Attribute::of_string("LEFT")}}); }),
      I("RightShift", [](ReadCtx& c) { return binary_to(c, "BitShift", {{"direction", Attribute::of_string("RIGHT")}}); }),
      I("ScalarMul", [](ReadCtx& c) { return import_scalar_binary(c, "Mul"); }),
      I("ScalarAdd", [](ReadCtx& c) { return import_scalar_binary(c, "Add"); }),
      I("ScalarSub", [](ReadCtx& c) { return import_scalar_binary(c, "Sub"); }),
      I("ScalarDiv", [](ReadCtx& c) { return import_scalar_binary(c, "Div"); }),
      I("CeLU", import_celu),
      I("UpsampleNearest3D", [](ReadCtx& c) { return import_upsample_nearest(c, 3); }),
      I("LSTM", import_ms_lstm),
      I("CudnnGRU", import_ms_gru), I("GRUV2", import_ms_gru),
      I("NonZero", import_nonzero),
      I("UniformReal", import_uniform_real),
      I("ArgMaxWithValue", import_arg_max_with_value),
      I("HammingWindow", [](ReadCtx& c) { return import_window(c, false); }),
      I("BlackmanWindow", [](ReadCtx& c) { return import_window(c, true); }),
      I("ZerosLike", [](ReadCtx& c) {
        DType dt = c.dtype(0);
        if (dt == DType::Undefined) fail_unsupported("{}: ZerosLike of a value of unknown dtype", c.what());
        Tensor zero(dt, {1});
        std::memset(zero.raw(), 0, zero.nbytes());
        return RVal::tensor(c.add1("ConstantOfShape", {c.add1("Shape", {c.tensor(0)})}, {{"value", Attribute::of_tensor(zero)}}), c.out_abstract());
      }),
      I("TopK", import_top_k),
      I("ResizeBilinearV2", [](ReadCtx& c) { return import_resize_v2(c, true); }),
      I("ResizeNearestNeighborV2", [](ReadCtx& c) { return import_resize_v2(c, false); }),
      I("Resize", [](ReadCtx& c) { return c.generic("Resize"); }),
      I("FloorDiv", import_floor_div),
      I("MaxPoolWithArgmaxV2", import_max_pool_argmax),
      I("MaxUnpool2D", [](ReadCtx& c) { return import_max_unpool(c, 2); }),
      I("MaxUnpool3D", [](ReadCtx& c) { return import_max_unpool(c, 3); }),
      I("Unique2", import_unique2), I("UniqueDim", import_unique_dim),
      I("DetectionPostProcess", import_detection_post_process),
      I("Complex", import_complex),
      I("Real", [](ReadCtx& c) { return import_complex_part(c, 0); }),
      I("Imag", [](ReadCtx& c) { return import_complex_part(c, 1); }),
      I("FFT", [](ReadCtx& c) { return import_fft(c, false, false); }),
      I("IFFT", [](ReadCtx& c) { return import_fft(c, true, false); }),
      I("RFFT", [](ReadCtx& c) { return import_fft(c, false, true); }),
      I("ReLU6", [](ReadCtx& c) {
        DType dt = c.dtype(0);
        return RVal::tensor(c.add1("Clip", {c.tensor(0), c.add_const(scalar_like(dt, 0), "min"), c.add_const(scalar_like(dt, 6), "max")}),
                            c.out_abstract());
      }),
      I("TensorScatterAdd", [](ReadCtx& c) {
        return RVal::tensor(c.add1("ScatterND", {c.tensor(0), c.tensor(1), c.tensor(2)}, {{"reduction", Attribute::of_string("add")}}), c.out_abstract());
      }),
      I("TensorScatterMul", [](ReadCtx& c) {
        return RVal::tensor(c.add1("ScatterND", {c.tensor(0), c.tensor(1), c.tensor(2)}, {{"reduction", Attribute::of_string("mul")}}), c.out_abstract());
      }),
      I("TensorScatterMax", [](ReadCtx& c) {
        return RVal::tensor(c.add1("ScatterND", {c.tensor(0), c.tensor(1), c.tensor(2)}, {{"reduction", Attribute::of_string("max")}}), c.out_abstract());
      }),
      I("TensorScatterMin", [](ReadCtx& c) {
        return RVal::tensor(c.add1("ScatterND", {c.tensor(0), c.tensor(1), c.tensor(2)}, {{"reduction", Attribute::of_string("min")}}), c.out_abstract());
      }),
      I("TensorScatterUpdate", [](ReadCtx& c) {
        return RVal::tensor(c.add1("ScatterND", {c.tensor(0), c.tensor(1), c.tensor(2)}), c.out_abstract());
      }),
      // MindSpore Lite *Fusion forms of plain ops (Add/Sub/Mul/DivFusion: mindir_lite_import.cc)
      I("ExpFusion", [](ReadCtx& c) { return RVal::tensor(c.add1("Exp", {c.tensor(0)}), c.out_abstract()); }),
  };
  return rules;
}

}  // namespace

const ExportRule* find_export_rule(const std::string& ir_op) {
  static const std::map<std::string, const ExportRule*> index = [] {
    std::map<std::string, const ExportRule*> m;
    for (const auto& r : export_rules()) m.emplace(r.ir_op, &r);
    for (const auto& r : sequence_export_rules()) m.emplace(r.ir_op, &r);
    return m;
  }();
  auto it = index.find(ir_op);
  return it == index.end() ? nullptr : it->second;
}

std::vector<std::string> exportable_ops() {
  std::vector<std::string> r;
  for (const auto& e : export_rules()) r.push_back(e.ir_op);
  for (const auto& e : sequence_export_rules()) r.push_back(e.ir_op);
  return r;
}

const ImportRule* find_import_rule(const std::string& prim) {
  // Explicit import rules first, then Lite's *Fusion rules; then the generic export rules read backwards.
  static const std::map<std::string, ImportRule> index = [] {
    std::map<std::string, ImportRule> m;
    for (const auto& r : import_rules()) m.emplace(r.prim, r);
    for (const auto& r : lite_import_rules()) m.emplace(r.prim, r);
    for (const auto& r : sequence_import_rules()) m.emplace(r.prim, r);
    for (const auto& e : export_rules()) {
      if (e.fn && e.prim != "Reshape" && e.prim != "Tile" && e.prim != "BroadcastTo" && e.prim != "TensorShape") continue;
      if (m.count(e.prim)) continue;
      ImportRule r{e.prim, e.ir_op, {}, nullptr};
      for (const auto& [ir, ms] : e.renames) r.renames.emplace_back(ms, ir);
      m.emplace(e.prim, std::move(r));
    }
    return m;
  }();
  auto it = index.find(prim);
  return it == index.end() ? nullptr : &it->second;
}

}  // namespace ms::mindir
