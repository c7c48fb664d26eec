#include "formats/mindir/mindir_native_forms.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

DType dtype_in(WriteCtx& c, size_t i) {
  if (const Tensor* t = c.constant(c.node().inputs[i])) return t->dtype();
  return c.abstract(c.node().inputs[i]).dtype;
}
// A scalar integer operand: a Constant when the input is an initializer, else the tensor as int64 0-d.
std::string int_scalar(WriteCtx& c, size_t i) {
  Emit e{c};
  if (const Tensor* t = c.constant(c.node().inputs[i]); t && t->numel() == 1)
    return c.constant_node(MsValue::of_int(static_cast<int64_t>(t->as_double(0))));
  std::string v = e.op("Reshape", {c.in(i), c.constant_node(MsValue::of_ints({}))});
  return dtype_in(c, i) == DType::Int64 ? v : e.cast(v, DType::Int64);
}
Tensor i64(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }
bool flag(ReadCtx& c, size_t input, const char* name) { return c.has_const_arg(input, name) && c.const_arg(input, name).as_int() != 0; }

}  // namespace

// topk(x, k, axis, largest) = transpose(topk_last(transpose(x, axis<->last)), axis<->last) and
// smallest(x) = -largest(-x) (exact for floats and signed integers away from their minimum).
void export_top_k(WriteCtx& c) {
  Emit e{c};
  int r = rank_of(c, 0);
  int64_t axis = int_attr(c, "axis", -1);
  bool largest = int_attr(c, "largest", 1) != 0;
  DType dt = dtype_in(c, 0);
  if (axis < 0 && r >= 0) axis += r;
  if (r < 0 && axis != -1) fail_unsupported("{}: TopK on an axis of an input of unknown rank cannot be written to MindIR", label(c));
  if (!largest && (dt == DType::UInt8 || dt == DType::UInt16 || dt == DType::UInt32 || dt == DType::UInt64 || dt == DType::Bool))
    fail_unsupported("{}: TopK of the smallest {} values has no MindSpore form", label(c), dtype_name(dt));
  std::vector<int64_t> perm;
  if (r >= 0 && axis != r - 1) {
    for (int64_t k = 0; k < r; ++k) perm.push_back(k);
    std::swap(perm[axis], perm[r - 1]);
  }
  std::string x = c.in(0);
  if (!largest) x = e.op("Neg", {x});
  if (!perm.empty()) x = e.op("Transpose", {x, c.constant_node(MsValue::of_ints(perm))});
  std::string t = c.call("TopK", {{"sorted", MsValue::of_bool(int_attr(c, "sorted", 1) != 0)}}, {x, int_scalar(c, 1)},
                         tuple_abs({Abstract{}, Abstract{}}));
  std::string v = c.get_item(t, 0, Abstract{}), i = c.get_item(t, 1, Abstract{});
  if (!perm.empty()) {
    v = e.op("Transpose", {v, c.constant_node(MsValue::of_ints(perm))});
    i = e.op("Transpose", {i, c.constant_node(MsValue::of_ints(perm))});
  }
  if (!largest) v = e.op("Neg", {v});
  const Node& n = c.node();
  if (has_out(c, 0)) c.bind(n.outputs[0], v);
  if (has_out(c, 1)) c.bind(n.outputs[1], c.call("Cast", {}, {i, c.constant_node(MsValue::of_dtype(DType::Int64))}, out_abs(c, 1)));
}

RVal import_top_k(ReadCtx& c) {
  std::string k;
  if (c.has_const_arg(1, "k")) k = c.add_const(i64({c.const_arg(1, "k").as_int()}), "k");
  else k = c.add1("Reshape", {c.add1("Cast", {c.tensor(1)}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int64))}}), c.add_const(i64({1}), "shape")});
  bool sorted = !c.has_const_arg(2, "sorted") || flag(c, 2, "sorted");
  auto outs = c.add("TopK", {c.tensor(0), k}, {{"axis", Attribute::of_int(-1)}, {"sorted", Attribute::of_int(sorted)}}, 2);
  // MindSpore's TopK returns int32 indices.
  std::string idx = c.add1("Cast", {outs[1]}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int32))}});
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  return RVal::tuple({RVal::tensor(outs[0], ab(0)), RVal::tensor(idx, ab(1))});
}

// ONNX indices may be negative (counted from depth) and of any numeric type; MindSpore's OneHot
// takes int32/int64 indices in [0, depth): idx = i < 0 ? i + depth : i, as int64.
void export_one_hot(WriteCtx& c) {
  Emit e{c};
  std::string idx = c.in(0);
  DType it = dtype_in(c, 0);
  if (it != DType::Int64) idx = e.cast(idx, DType::Int64);
  std::string depth = int_scalar(c, 1);
  std::string zero = c.constant_node(MsValue::of_tensor(Tensor::scalar<int64_t>(0)));
  idx = e.op("Select", {e.op("Less", {idx, zero}), e.op("Add", {idx, depth}), idx});
  std::string on, off;
  if (const Tensor* v = c.constant(c.node().inputs.at(2)); v && v->numel() == 2) {
    Tensor o(v->dtype(), {}), f(v->dtype(), {});
    std::memcpy(f.raw(), v->raw(), f.nbytes());
    std::memcpy(o.raw(), static_cast<const char*>(v->raw()) + o.nbytes(), o.nbytes());
    on = c.constant_node(MsValue::of_tensor(o));
    off = c.constant_node(MsValue::of_tensor(f));
  } else {
    std::string axis0 = c.constant_node(MsValue::of_int(0));
    on = e.op("Gather", {c.in(2), c.constant_node(MsValue::of_tensor(Tensor::scalar<int64_t>(1))), axis0});
    off = e.op("Gather", {c.in(2), zero, axis0});
  }
  c.bind(out0(c), c.call("OneHot", {{"axis", MsValue::of_int(int_attr(c, "axis", -1))}}, {idx, depth, on, off}, out_abs(c)));
}

namespace {

// The static output (H, W) of a 4-D Resize that scales only H and W, or nothing. With scales the
// output must be exactly in * scale: ONNX maps coordinates with the given scale, MindSpore with
// in / out, and the two agree only then.
std::optional<std::vector<int64_t>> static_hw(WriteCtx& c) {
  auto dims = dims_of(c, 0);
  if (dims.size() != 4) return std::nullopt;
  if (auto sizes = const_ints(c, 3); sizes && sizes->size() == 4) {
    for (int k = 0; k < 2; ++k)
      if (dims[k] < 0 || (*sizes)[k] != dims[k]) return std::nullopt;
    return std::vector<int64_t>{(*sizes)[2], (*sizes)[3]};
  }
  size_t at = c.node().inputs.size() == 2 ? 1 : 2;  // Resize-10 is (X, scales)
  const Tensor* s = has_in(c, at) ? c.constant(c.node().inputs[at]) : nullptr;
  if (!s || s->numel() != 4 || s->as_double(0) != 1 || s->as_double(1) != 1) return std::nullopt;
  std::vector<int64_t> hw;
  for (int k = 2; k < 4; ++k) {
    double out = static_cast<double>(dims[k]) * static_cast<float>(s->as_double(k));
    if (dims[k] < 0 || out != std::floor(out) || out < 1) return std::nullopt;
    hw.push_back(static_cast<int64_t>(out));
  }
  return hw;
}

}  // namespace

void export_resize(WriteCtx& c) {
  std::string mode = str_attr(c, "mode", "nearest"), ctm = str_attr(c, "coordinate_transformation_mode", "half_pixel");
  std::string nearest = str_attr(c, "nearest_mode", "round_prefer_floor");
  auto hw = static_hw(c);
  bool plain = int_attr(c, "antialias", 0) == 0 && !ints_attr(c, "axes");
  std::optional<std::pair<bool, bool>> flags;  // align_corners, half_pixel_centers
  if (mode == "linear") {
    if (ctm == "align_corners") flags = {true, false};
    else if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && hw && (*hw)[0] > 1 && (*hw)[1] > 1)) flags = {false, true};
    else if (ctm == "asymmetric") flags = {false, false};
  } else if (mode == "nearest") {
    // TensorFlow's nearest rules: floor(x * in/out), floor((x + 0.5) * in/out), round(x * (in-1)/(out-1)).
    if (ctm == "asymmetric" && nearest == "floor") flags = {false, false};
    else if (ctm == "tf_half_pixel_for_nn" && nearest == "floor") flags = {false, true};
    else if (ctm == "align_corners" && nearest == "round_prefer_ceil") flags = {true, false};
  }
  if (!hw || !plain || !flags) {
    if (c.node().inputs.size() == 2) fail_unsupported("{}: this opset-10 Resize form is not supported in MindIR", label(c));
    return c.write_generic("Resize");
  }
  Attrs a{{"align_corners", MsValue::of_bool(flags->first)}, {"half_pixel_centers", MsValue::of_bool(flags->second)}};
  std::string p = mode == "linear" ? "ResizeBilinearV2" : "ResizeNearestNeighborV2";
  c.bind(out0(c), c.call(p, a, {c.in(0), c.constant_node(MsValue::of_ints(*hw))}, out_abs(c)));
}

RVal import_resize_v2(ReadCtx& c, bool bilinear) {
  if (!c.has_const_arg(1, "size")) fail_unsupported("{}: resize to a size computed at run time is not supported", c.what());
  auto size = c.const_arg(1, "size").as_ints();
  bool align = flag(c, 2, "align_corners"), half = flag(c, 3, "half_pixel_centers");
  if (align && half) fail("{}: align_corners and half_pixel_centers cannot both be set", c.what());
  std::map<std::string, Attribute> a;
  if (bilinear) {
    a["mode"] = Attribute::of_string("linear");
    a["coordinate_transformation_mode"] = Attribute::of_string(align ? "align_corners" : half ? "half_pixel" : "asymmetric");
  } else {
    a["mode"] = Attribute::of_string("nearest");
    a["coordinate_transformation_mode"] = Attribute::of_string(align ? "align_corners" : half ? "tf_half_pixel_for_nn" : "asymmetric");
    a["nearest_mode"] = Attribute::of_string(align ? "round_prefer_ceil" : "floor");
  }
  std::string x = c.tensor(0);
  std::string nc = c.add1("Shape", {x}, {{"end", Attribute::of_int(2)}});
  std::string sizes = c.add1("Concat", {nc, c.add_const(i64(size), "size")}, {{"axis", Attribute::of_int(0)}});
  return RVal::tensor(c.add1("Resize", {x, "", "", sizes}, a), c.out_abstract());
}

namespace {

constexpr double kHammingAlpha = 25.0 / 46.0;  // ONNX's Hamming coefficients: a0 = 25/46, a1 = 1 - a0

}  // namespace

void export_window(WriteCtx& c) {
  const std::string& op = c.node().op_type;
  Attrs a{{"periodic", MsValue::of_bool(int_attr(c, "periodic", 1) != 0)},
          {"dtype", MsValue::of_dtype(static_cast<DType>(int_attr(c, "output_datatype", 1)))}};
  if (op != "BlackmanWindow") {
    double alpha = op == "HannWindow" ? 0.5 : kHammingAlpha;
    a["alpha"] = MsValue::of_float(alpha, mind_ir::AttributeProto::DOUBLE);
    a["beta"] = MsValue::of_float(1.0 - alpha, mind_ir::AttributeProto::DOUBLE);
  }
  c.bind(out0(c), c.call(op == "BlackmanWindow" ? "BlackmanWindow" : "HammingWindow", a, {c.in(0)}, out_abs(c)));
}

RVal import_window(ReadCtx& c, bool blackman) {
  std::string op = "BlackmanWindow";
  if (!blackman) {
    double alpha = c.attr("alpha") ? c.attr("alpha")->as_double() : 0.54, beta = c.attr("beta") ? c.attr("beta")->as_double() : 0.46;
    auto near = [](double a, double b) { return std::fabs(a - b) < 1e-7; };
    if (near(alpha, 0.5) && near(beta, 0.5)) op = "HannWindow";
    else if (near(alpha, kHammingAlpha) && near(beta, 1 - kHammingAlpha)) op = "HammingWindow";
    else fail_unsupported("{}: HammingWindow with alpha {} and beta {} has no ONNX equivalent", c.what(), alpha, beta);
  }
  std::map<std::string, Attribute> a{{"periodic", Attribute::of_int(!c.attr("periodic") || c.attr("periodic")->as_int() != 0)}};
  if (const MsValue* d = c.attr("dtype"); d && d->kind == MsValue::Kind::DType)
    a["output_datatype"] = Attribute::of_int(static_cast<int64_t>(d->dtype));
  return RVal::tensor(c.add1(op, {c.tensor(0)}, a), c.out_abstract());
}

namespace {

// The ONNX LSTM weights as MindSpore's flat weight [W_ih, W_hh, b_ih, b_hh], shape [n, 1, 1].
// ONNX stacks the gates i, o, f, c; MindSpore (like PyTorch) i, f, g, o: ONNX blocks 0, 2, 3, 1.
std::optional<Tensor> flat_lstm_weight(const Tensor& W, const Tensor& R, const Tensor* B, int64_t H) {
  if (W.dtype() != R.dtype() || (B && B->dtype() != W.dtype())) return std::nullopt;
  const int64_t I = W.dim(2), es = static_cast<int64_t>(dtype_size(W.dtype()));
  const int64_t total = 4 * H * (I + H) + 8 * H;
  Tensor flat(W.dtype(), {total, 1, 1});
  char* out = static_cast<char*>(flat.raw());
  auto gates = [&](const char* src, int64_t block) {  // block = elements per gate
    for (int64_t g : {0, 2, 3, 1}) {
      std::memcpy(out, src + g * block * es, static_cast<size_t>(block * es));
      out += block * es;
    }
  };
  gates(static_cast<const char*>(W.raw()), H * I);
  gates(static_cast<const char*>(R.raw()), H * H);
  if (B) {
    gates(static_cast<const char*>(B->raw()), H);
    gates(static_cast<const char*>(B->raw()) + 4 * H * es, H);
  } else {
    std::memset(out, 0, static_cast<size_t>(8 * H * es));
  }
  return flat;
}

}  // namespace

void export_lstm(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  auto ctensor = [&](size_t i) { return has_in(c, i) ? c.constant(n.inputs[i]) : nullptr; };
  const Tensor *W = ctensor(1), *R = ctensor(2), *B = ctensor(3);
  const Attribute* acts = c.attr("activations");
  bool default_acts = !acts || acts->strings.empty() || acts->strings == std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  bool fits = W && R && (B || !has_in(c, 3)) && W->rank() == 3 && W->dim(0) == 1 && default_acts && !c.attr("clip") &&
              str_attr(c, "direction", "forward") == "forward" && int_attr(c, "input_forget", 0) == 0 &&
              int_attr(c, "layout", 0) == 0 && !has_in(c, 4) && !has_in(c, 7) && rank_of(c, 0) == 3;
  int64_t H = fits ? R->dim(2) : 0;
  std::optional<Tensor> w = fits ? flat_lstm_weight(*W, *R, B, H) : std::nullopt;
  if (!w) return c.write_generic("LSTM");
  DType dt = W->dtype();
  // Missing initial states are zeros of [1, batch, H].
  auto state = [&](size_t i) {
    if (has_in(c, i)) return c.in(i);
    std::string batch = e.gather(e.op("TensorShape", {c.in(0)}), e.int_tensor({1}, {1}));
    Tensor zero(dt, {});
    std::memset(zero.raw(), 0, zero.nbytes());
    return e.op("FillV2", {e.concat({e.int_tensor({1}, {1}), batch, e.int_tensor({H}, {1})}), c.constant_node(MsValue::of_tensor(zero))});
  };
  Attrs a{{"input_size", MsValue::of_int(W->dim(2))}, {"hidden_size", MsValue::of_int(H)}, {"num_layers", MsValue::of_int(1)},
          {"has_bias", MsValue::of_bool(true)}, {"bidirectional", MsValue::of_bool(false)}, {"dropout", MsValue::of_float(0.0)}};
  std::string h0 = state(5), c0 = state(6);
  std::string t = c.call("LSTM", a, {c.in(0), h0, c0, c.constant_node(MsValue::of_tensor(std::move(*w)))},
                         tuple_abs({Abstract{}, Abstract{}, Abstract{}, Abstract{}, Abstract{}}));
  if (has_out(c, 0))
    c.bind(n.outputs[0], c.call("ExpandDims", {}, {c.get_item(t, 0, Abstract{}), c.constant_node(MsValue::of_int(1))}, out_abs(c, 0)));
  if (has_out(c, 1)) c.bind(n.outputs[1], c.get_item(t, 1, out_abs(c, 1)));
  if (has_out(c, 2)) c.bind(n.outputs[2], c.get_item(t, 2, out_abs(c, 2)));
}

}  // namespace ms::mindir
