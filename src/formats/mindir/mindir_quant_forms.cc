#include "formats/mindir/mindir_quant_forms.h"

#include "formats/mindir/mindir_write_util.h"

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
