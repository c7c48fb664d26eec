#include "formats/mindir/mindir_quant_forms.h"

#include "formats/mindir/mindir_write_util.h"

#include <algorithm>

namespace ms::mindir {

namespace {

using namespace wu;

Abstract typed(DType dt) {
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = dt;
  return a;
}

}  // namespace

// lo = min(0, min x), hi = max(0, max x), scale = (hi - lo) / 255,
// zero_point = clip(round(0 - lo / scale), 0, 255), y = clip(round(x / scale) + zero_point, 0, 255).
// An all-zero x has scale 0: dividing by 1 instead gives the op's zero point 0 and y 0.
void export_dynamic_quantize_linear(WriteCtx& c) {
  Emit e{c};
  if (c.abstract(c.node().inputs[0]).dtype != DType::Float32)
    fail_unsupported("{}: DynamicQuantizeLinear is written to MindIR for float32 input only", label(c));
  auto f = [&](const std::string& prim, std::vector<std::string> ins) { return c.call(prim, {}, ins, typed(DType::Float32)); };
  auto k = [&](float v) { return e.scalar(DType::Float32, v); };
  std::string flat = f("Reshape", {c.in(0), e.ints({-1})});
  std::string lo = f("Minimum", {e.reduce("ReduceMin", flat, {0}, false), k(0)});
  std::string hi = f("Maximum", {e.reduce("ReduceMax", flat, {0}, false), k(0)});
  std::string scale = f("RealDiv", {f("Sub", {hi, lo}), k(255)});
  std::string divisor = f("Select", {e.op("Equal", {scale, k(0)}), k(1), scale});
  auto to_u8 = [&](const std::string& v, size_t out) {
    std::string clipped = f("ClipByValue", {v, k(0), k(255)});
    return c.call("Cast", {}, {clipped, c.constant_node(MsValue::of_dtype(DType::UInt8))}, out_abs(c, out));
  };
  std::string zp = f("Round", {f("Sub", {k(0), f("RealDiv", {lo, divisor})})});
  const Node& n = c.node();
  if (has_out(c, 0)) c.bind(n.outputs[0], to_u8(f("Add", {f("Round", {f("RealDiv", {c.in(0), divisor})}), zp}), 0));
  if (has_out(c, 1)) c.bind(n.outputs[1], c.call("Identity", {}, {scale}, out_abs(c, 1)));
  if (has_out(c, 2)) c.bind(n.outputs[2], to_u8(zp, 2));
}

namespace {

// (a - a_zero_point) @ (b - b_zero_point) in int32; per-row parameters of a become columns.
std::string integer_product(WriteCtx& c, size_t a, size_t azp, size_t b, size_t bzp) {
  Emit e{c};
  auto i32 = [&](const std::string& v) { return c.call("Cast", {}, {v, c.constant_node(MsValue::of_dtype(DType::Int32))}, typed(DType::Int32)); };
  auto operand = [&](size_t i, size_t zp, bool per_row) {
    std::string v = i32(c.in(i));
    if (!has_in(c, zp)) return v;
    std::string z = i32(c.in(zp));
    if (per_row && rank_of(c, zp) == 1) z = c.call("Reshape", {}, {z, e.ints({-1, 1})}, typed(DType::Int32));
    return c.call("Sub", {}, {v, z}, typed(DType::Int32));
  };
  bool two_d = rank_of(c, a) == 2 && rank_of(c, b) == 2;
  std::map<std::string, MsValue> attrs{{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(false)}};
  if (two_d) {
    attrs["transpose_x1"] = MsValue::of_bool(false);
    attrs["transpose_x2"] = MsValue::of_bool(false);
  }
  return c.call(two_d ? "MatMul" : "BatchMatMul", attrs, {operand(a, azp, true), operand(b, bzp, false)}, typed(DType::Int32));
}

}  // namespace

void export_mat_mul_integer(WriteCtx& c) {
  std::string y = integer_product(c, 0, 2, 1, 3);
  c.bind(out0(c), c.call("Identity", {}, {y}, out_abs(c)));
}

void export_qlinear_mat_mul(WriteCtx& c) {
  Emit e{c};
  auto f32 = [&](const std::string& prim, std::vector<std::string> ins) { return c.call(prim, {}, ins, typed(DType::Float32)); };
  auto as_f32 = [&](size_t i) {
    const Tensor* t = c.constant(c.node().inputs[i]);
    DType dt = t ? t->dtype() : c.abstract(c.node().inputs[i]).dtype;
    return dt == DType::Float32 ? c.in(i) : f32("Cast", {c.in(i), c.constant_node(MsValue::of_dtype(DType::Float32))});
  };
  const Tensor* yzp = c.constant(c.node().inputs[7]);
  DType q = yzp ? yzp->dtype() : c.abstract(c.node().inputs[7]).dtype;
  if (q != DType::UInt8 && q != DType::Int8) fail_unsupported("{}: QLinearMatMul output must be uint8 or int8 for MindIR", label(c));
  std::string a_scale = as_f32(1);
  if (rank_of(c, 1) == 1) a_scale = f32("Reshape", {a_scale, e.ints({-1, 1})});  // per row
  std::string mult = f32("RealDiv", {f32("Mul", {a_scale, as_f32(4)}), as_f32(6)});
  std::string acc = f32("Cast", {integer_product(c, 0, 2, 3, 5), c.constant_node(MsValue::of_dtype(DType::Float32))});
  std::string y = f32("Add", {f32("Round", {f32("Mul", {acc, mult})}), as_f32(7)});
  float lo = q == DType::UInt8 ? 0.f : -128.f, hi = q == DType::UInt8 ? 255.f : 127.f;
  y = f32("ClipByValue", {y, e.scalar(DType::Float32, lo), e.scalar(DType::Float32, hi)});
  c.bind(out0(c), c.call("Cast", {}, {y, c.constant_node(MsValue::of_dtype(q))}, out_abs(c)));
}

}  // namespace ms::mindir

namespace ms::mindir {

// im2col in int32: cols[n, g, c·K + k, o] = (x − xz)[n, g·Cg + c, o·stride + k·dilation − pad_begin]
// (0 in the padding), y[n, g·Mg + m, o] = Σ_j (w − wz)[g·Mg + m, j] · cols[n, g, j, o].
void export_conv_integer(WriteCtx& c) {
  Emit e{c};
  auto i32 = [&](const std::string& v) { return c.call("Cast", {}, {v, c.constant_node(MsValue::of_dtype(DType::Int32))}, typed(DType::Int32)); };
  auto int_op = [&](const std::string& prim, std::vector<std::string> ins, std::map<std::string, MsValue> a = {}) {
    return c.call(prim, a, ins, typed(DType::Int32));
  };
  const std::vector<int64_t> xd = dims_of(c, 0), wd = dims_of(c, 1);
  const int sp = static_cast<int>(wd.size()) - 2;
  if (sp < 1 || xd.size() != wd.size())
    fail_unsupported("{}: ConvInteger needs input and weight of known, equal rank (3 or more) for MindIR", label(c));
  for (int i = 0; i < sp; ++i)
    if (xd[2 + i] < 0) fail_unsupported("{}: ConvInteger needs static spatial input dims for MindIR (its im2col slices them)", label(c));
  for (int64_t d : wd)
    if (d < 0) fail_unsupported("{}: ConvInteger needs a weight of known shape for MindIR", label(c));
  const std::string auto_pad = str_attr(c, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    fail_unsupported("{}: ConvInteger with auto_pad {} is not written to MindIR (explicit pads only)", label(c), auto_pad);
  const int64_t G = int_attr(c, "group", 1), M = wd[0], Cg = wd[1];
  if (G < 1 || M % G || (xd[1] >= 0 && xd[1] != Cg * G)) fail("{}: ConvInteger group {} does not fit x {} and w {}", label(c), G, shape_str(xd), shape_str(wd));
  const std::vector<int64_t> s = ints_attr(c, "strides").value_or(std::vector<int64_t>(sp, 1));
  const std::vector<int64_t> d = ints_attr(c, "dilations").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>(2 * sp, 0));
  if (auto_pad == "VALID") pads.assign(2 * sp, 0);
  if (int(s.size()) != sp || int(d.size()) != sp || int(pads.size()) != 2 * sp)
    fail("{}: ConvInteger strides/dilations/pads do not match {} spatial axes", label(c), sp);
  std::vector<int64_t> out(sp);
  int64_t K = 1, O = 1;
  for (int i = 0; i < sp; ++i) {
    out[i] = (xd[2 + i] + pads[i] + pads[sp + i] - d[i] * (wd[2 + i] - 1) - 1) / s[i] + 1;
    if (out[i] < 1) fail("{}: ConvInteger kernel does not fit the padded input {}", label(c), shape_str(xd));
    K *= wd[2 + i];
    O *= out[i];
  }
  // Shifted operands: the per-channel weight zero point becomes a column [M, 1, ...].
  std::string x = i32(c.in(0));
  if (has_in(c, 2)) x = int_op("Sub", {x, i32(c.in(2))});
  std::string w = i32(c.in(1));
  if (has_in(c, 3)) {
    std::string z = i32(c.in(3));
    if (rank_of(c, 3) == 1) {
      std::vector<int64_t> column(wd.size(), 1);
      column[0] = -1;
      z = int_op("Reshape", {z, e.ints(column)});
    }
    w = int_op("Sub", {w, z});
  }
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; })) {
    Tensor t(DType::Int64, {int64_t(sp) + 2, 2});
    std::fill(t.data<int64_t>(), t.data<int64_t>() + t.numel(), 0);
    for (int i = 0; i < sp; ++i) t.data<int64_t>()[2 * (2 + i)] = pads[i], t.data<int64_t>()[2 * (2 + i) + 1] = pads[sp + i];
    x = int_op("PadFusion", {x, c.constant_node(MsValue::of_tensor(t))},
               {{"padding_mode", MsValue::of_int(0)}, {"mode", MsValue::of_string("constant")}});
  }
  // One strided slice per kernel tap (all batch items and channels), flattened to [N, G, Cg, 1, O].
  std::vector<std::string> taps;
  for (int64_t k = 0; k < K; ++k) {
    std::vector<int64_t> b(sp + 2, 0), en(sp + 2, 0), st(sp + 2, 1);
    for (int i = sp - 1, rem = int(k); i >= 0; --i) {
      const int64_t ki = rem % wd[2 + i];
      rem /= int(wd[2 + i]);
      b[2 + i] = ki * d[i];
      en[2 + i] = b[2 + i] + (out[i] - 1) * s[i] + 1;
      st[2 + i] = s[i];
    }
    // Masks 0b11: the batch and channel axes are taken whole.
    std::map<std::string, MsValue> a{{"begin_mask", MsValue::of_int(3)}, {"end_mask", MsValue::of_int(3)},
                                     {"ellipsis_mask", MsValue::of_int(0)}, {"new_axis_mask", MsValue::of_int(0)},
                                     {"shrink_axis_mask", MsValue::of_int(0)}};
    std::string tap = int_op("StridedSlice", {x, e.ints(b), e.ints(en), e.ints(st)}, a);
    taps.push_back(int_op("Reshape", {tap, e.ints({-1, G, Cg, 1, O})}));
  }
  std::string cols = taps[0];
  if (K > 1) {
    std::string t = c.call("MakeTuple", {}, taps, tuple_abs(std::vector<Abstract>(taps.size())));
    cols = int_op("Concat", {t}, {{"axis", MsValue::of_int(3)}, {"inputNums", MsValue::of_int(K)}});
  }
  cols = int_op("Reshape", {cols, e.ints({-1, G, Cg * K, O})});
  std::string wm = int_op("Reshape", {w, e.ints({G, M / G, Cg * K})});
  std::string y = int_op("BatchMatMul", {wm, cols}, {{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(false)}});
  std::vector<int64_t> ys{-1, M};
  ys.insert(ys.end(), out.begin(), out.end());
  c.bind(out0(c), c.call("Reshape", {}, {y, e.ints(ys)}, out_abs(c)));
}

}  // namespace ms::mindir
