// fuse_quantized_conv: the QDQ form `ms quant` (and other quantizers) write becomes convolutions
// that compute in int8 (the runtime's oneDNN int8 kernels):
//   Q(Conv(DQ(x_q), DQ(w_q), B), y_s, y_zp)
//       = QLinearConv(x_q, x_s, x_zp, w_q, w_s, w_zp, y_s, y_zp, round(B / (x_s·w_s)))
//     (ONNX's own op; its bias is int32 at scale x_s·w_s[m], zero point 0, as ONNX specifies. The
//     only change of value is that bias rounding: at most half a unit of x_s·w_s, far below y_s.)
//   Q(Relu(Conv(...))) = Q(Conv(...)) when y_zp is the lowest value of its type: Q saturates there,
//     so the Relu (which maps to y_zp) changes nothing.
//   act(Conv(DQ(x_q), DQ(w_q), B) + z) = QConvFloatOut(x_q, x_s, x_zp, w_q, w_s, w_zp, B, z, act)
//     when the result is not quantized again (a residual add, a graph output): int8 accumulation,
//     float tail (ops/q_conv_float_out.cc; its reference kernel is the QDQ graph itself).
//   Q(MatMul(DQ(a_q), DQ(b_q))) = QLinearMatMul(...), see QuantizedMatMulPattern.
// Runs before fold_constants in the cpu pipeline: folding would turn DQ(w_q) back into float weights.
// x must be quantized per tensor, w per tensor or per output channel with zero points 0 (symmetric,
// as ms quant writes it). B is a float constant (ms quant) or DQ(b_q) of a constant int32 b_q, as
// ONNX Runtime's quantizer writes it (scale x_s·w_s: its QLinearConv bias comes back exactly).
#include <cmath>
#include <optional>

#include "ops/fused_activation.h"
#include "ops/op_call.h"
#include "ops/ms_domain.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t conv;
  std::vector<size_t> absorbed;  // Add / activation / QuantizeLinear after the Conv, in order
  const Node* dq_x = nullptr;
  const Node* dq_w = nullptr;
  FusedActivation act;
  std::string z;
  const Node* quantize = nullptr;  // the QuantizeLinear that becomes the output (QLinearConv form)
  std::optional<Tensor> bias;      // the float bias values, when the Conv has a bias
};

bool is_int8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// The float values of a Conv bias: a float32 constant, or DequantizeLinear of a constant int32
// tensor with constant scales and zero points (computed with DequantizeLinear's reference kernel).
std::optional<Tensor> float_bias(Rewriter& rw, const Node& conv, const std::string& name) {
  if (const Tensor* b = rw.constant(name)) {
    if (b->dtype() == DType::Float32) return *b;
    return std::nullopt;
  }
  const Node* dq = input_producer(rw, conv, 2, "DequantizeLinear");
  if (!dq || dq->inputs.size() < 2) return std::nullopt;
  std::vector<Tensor> in;
  for (const auto& i : dq->inputs) {
    const Tensor* t = i.empty() ? nullptr : rw.constant(i);
    if (!t && !i.empty()) return std::nullopt;
    in.push_back(t ? *t : Tensor());
  }
  if (in[0].dtype() != DType::Int32 || in[1].dtype() != DType::Float32) return std::nullopt;
  return call_reference(dq->op_type, in, dq->attrs, rw.opset(), dq->name).at(0);
}

bool all_zero(const Tensor* t) {
  if (!t) return true;
  for (double v : t->to_double_vector())
    if (v != 0) return false;
  return true;
}

// A per-tensor DequantizeLinear/QuantizeLinear: constant scalar scale, constant scalar zero point.
bool per_tensor_params(Rewriter& rw, const Node& n) {
  if (n.inputs.size() < 3 || n.inputs[2].empty()) return false;
  const Tensor* s = rw.constant(n.inputs[1]);
  const Tensor* z = rw.constant(n.inputs[2]);
  return s && z && s->numel() == 1 && z->numel() == 1 && s->dtype() == DType::Float32 && is_int8(z->dtype()) &&
         s->as_double(0) > 0;
}

class QuantizedConvPattern : public TypedPattern<Found> {
 public:
  explicit QuantizedConvPattern(const PassContext& ctx) : allow_ms_(ctx.allow_ms_domain) {}
  std::vector<std::string> anchors() const override { return {"Conv"}; }

  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& conv = rw.node(index);
    if (conv.inputs.size() < 2 || conv.outputs.size() != 1) return NoMatch{};
    Found f;
    f.conv = index;
    f.dq_x = input_producer(rw, conv, 0, "DequantizeLinear");
    f.dq_w = input_producer(rw, conv, 1, "DequantizeLinear");
    if (!f.dq_x || !f.dq_w) return NoMatch{};
    if (!per_tensor_params(rw, *f.dq_x)) return NoMatch{"the input is not quantized per tensor with a zero point"};
    const TypeInfo* tx = rw.type(f.dq_x->inputs[0]);
    if (!tx || !is_int8(tx->dtype)) return NoMatch{"the quantized input is not int8/uint8"};
    const Tensor* wq = rw.constant(f.dq_w->inputs[0]);
    const Tensor* ws = f.dq_w->inputs.size() > 1 ? rw.constant(f.dq_w->inputs[1]) : nullptr;
    const Tensor* wz = f.dq_w->inputs.size() > 2 && !f.dq_w->inputs[2].empty() ? rw.constant(f.dq_w->inputs[2]) : nullptr;
    if (!wq || !ws || wq->dtype() != DType::Int8 || wq->rank() < 3 || ws->dtype() != DType::Float32)
      return NoMatch{"the weight is not a constant int8 tensor with constant float scales"};
    if (f.dq_w->inputs.size() > 2 && !f.dq_w->inputs[2].empty() && !wz) return NoMatch{"the weight zero point is not constant"};
    if (!all_zero(wz)) return NoMatch{"the weight is quantized asymmetrically"};
    if (ws->numel() != 1) {
      const Attribute* axis = f.dq_w->attr("axis");
      const int64_t a = axis ? axis->i : 1;
      if (ws->numel() != wq->dim(0) || (a != 0 && a != -int64_t(wq->rank())))
        return NoMatch{"the weight scales are not per output channel"};
    }
    for (double s : ws->to_double_vector())
      if (!(s > 0)) return NoMatch{"a weight scale is not positive"};
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) {
      f.bias = float_bias(rw, conv, conv.inputs[2]);
      if (!f.bias) return NoMatch{"the bias is neither a constant float tensor nor DequantizeLinear of a constant int32 one"};
    }
    // The tail: an optional residual add, an optional activation, an optional QuantizeLinear.
    std::string v = conv.outputs[0];
    auto sole_reader = [&](const std::string& value) -> const Node* {
      const auto& c = rw.consumers(value);
      if (c.size() != 1 || rw.is_graph_output(value)) return nullptr;
      return &rw.node(c[0]);
    };
    if (const Node* add = sole_reader(v); add && add->op_type == "Add" && add->domain.empty() && add->inputs.size() == 2 &&
                                           add->inputs[0] != add->inputs[1]) {
      const std::string other = add->inputs[0] == v ? add->inputs[1] : add->inputs[0];
      auto sy = rw.static_shape(v), sz = rw.static_shape(other);
      const TypeInfo* tz = rw.type(other);
      if (!rw.constant(other) && sy && sz && *sy == *sz && tz && tz->dtype == DType::Float32) {
        f.z = other;
        f.absorbed.push_back(rw.consumers(v)[0]);
        v = add->outputs[0];
      }
    }
    if (const Node* act_node = sole_reader(v)) {
      if (auto act = fusable_activation_of(*act_node, [&](const std::string& s) { return rw.constant(s); })) {
        f.act = *act;
        f.absorbed.push_back(rw.consumers(v)[0]);
        v = act_node->outputs[0];
      }
    }
    if (const Node* q = sole_reader(v); q && f.z.empty() && q->op_type == "QuantizeLinear" && q->domain.empty() &&
                                        per_tensor_params(rw, *q) && relu_is_noop(rw, f.act, *q)) {
      f.quantize = q;
      f.absorbed.push_back(rw.consumers(v)[0]);
      return f;
    }
    if (!allow_ms_) return NoMatch{"the output is not quantized again and com.mstools ops are not allowed"};
    return f;
  }

  void rewrite(Rewriter& rw, const Found& f) override {
    const Node& conv = rw.node(f.conv);
    Node n;
    n.name = conv.name;
    n.attrs = conv.attrs;
    const std::string w_zp = f.dq_w->inputs.size() > 2 && !f.dq_w->inputs[2].empty()
                                 ? f.dq_w->inputs[2]
                                 : rw.add_initializer(conv.name + "_w_zero_point", Tensor::scalar<int8_t>(0));
    n.inputs = {f.dq_x->inputs[0], f.dq_x->inputs[1], f.dq_x->inputs[2], f.dq_w->inputs[0], f.dq_w->inputs[1], w_zp};
    const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    if (f.quantize) {
      n.op_type = "QLinearConv";
      n.inputs.push_back(f.quantize->inputs[1]);
      n.inputs.push_back(f.quantize->inputs[2]);
      if (has_bias) n.inputs.push_back(rw.add_initializer(conv.name + "_bias_int32", int32_bias(rw, f)));
      n.outputs = f.quantize->outputs;
    } else {
      n.op_type = "QConvFloatOut";
      n.domain = kMsDomain;
      std::string bias;
      if (has_bias) bias = rw.constant(conv.inputs[2]) ? conv.inputs[2] : rw.add_initializer(conv.name + "_bias", *f.bias);
      n.inputs.push_back(bias);
      if (!f.z.empty()) n.inputs.push_back(f.z);
      if (!f.act.name.empty()) {
        n.attrs["activation"] = Attribute::of_string(f.act.name);
        n.attrs["activation_params"] = Attribute::of_floats(f.act.params);
      }
      n.outputs = {f.absorbed.empty() ? conv.outputs[0] : rw.node(f.absorbed.back()).outputs[0]};
      rw.require_domain(kMsDomain, kMsDomainVersion);
    }
    std::vector<size_t> remove = {f.conv};
    remove.insert(remove.end(), f.absorbed.begin(), f.absorbed.end());
    rw.replace(remove, {std::move(n)});
  }

 private:
  // Relu (or nothing) before Q with y_zp at its type's lowest value: Q's saturation already clips.
  static bool relu_is_noop(Rewriter& rw, const FusedActivation& act, const Node& q) {
    if (act.name.empty()) return true;
    if (act.name != "Relu") return false;
    const Tensor* z = rw.constant(q.inputs[2]);
    const double lowest = z->dtype() == DType::UInt8 ? 0 : -128;
    return z->as_double(0) == lowest;
  }

  static Tensor int32_bias(Rewriter& rw, const Found& f) {
    const auto b = f.bias->to_double_vector();
    const auto ws = rw.constant(f.dq_w->inputs[1])->to_double_vector();
    const float xs = float(rw.constant(f.dq_x->inputs[1])->as_double(0));
    std::vector<int32_t> q(b.size());
    for (size_t m = 0; m < b.size(); ++m) {
      const double unit = double(xs * float(ws[ws.size() == 1 ? 0 : m]));
      q[m] = int32_t(std::clamp(std::nearbyint(b[m] / unit), -2147483648.0, 2147483647.0));
    }
    return Tensor::from_vector<int32_t>(q, {int64_t(q.size())});
  }

  bool allow_ms_;
};

//   Q(MatMul(DQ(a_q), DQ(b_q)), y_s, y_zp) = QLinearMatMul(a_q, a_s, a_zp, b_q, b_s, b_zp, y_s, y_zp)
// b a constant 2-D int8 matrix, per tensor or per column, symmetric. A MatMul whose output stays
// float keeps its QDQ form.
struct FoundMatMul {
  size_t matmul, quantize;
  const Node* dq_a = nullptr;
  const Node* dq_b = nullptr;
};

class QuantizedMatMulPattern : public TypedPattern<FoundMatMul> {
 public:
  std::vector<std::string> anchors() const override { return {"MatMul"}; }

  MatchResult<FoundMatMul> match(Rewriter& rw, size_t index) override {
    const Node& mm = rw.node(index);
    if (mm.inputs.size() != 2 || mm.outputs.size() != 1) return NoMatch{};
    FoundMatMul f{index, 0, input_producer(rw, mm, 0, "DequantizeLinear"), input_producer(rw, mm, 1, "DequantizeLinear")};
    if (!f.dq_a || !f.dq_b) return NoMatch{};
    if (!per_tensor_params(rw, *f.dq_a)) return NoMatch{"the input is not quantized per tensor with a zero point"};
    const TypeInfo* ta = rw.type(f.dq_a->inputs[0]);
    if (!ta || !is_int8(ta->dtype)) return NoMatch{"the quantized input is not int8/uint8"};
    const Tensor* b = rw.constant(f.dq_b->inputs[0]);
    const Tensor* bs = f.dq_b->inputs.size() > 1 ? rw.constant(f.dq_b->inputs[1]) : nullptr;
    const bool has_bz = f.dq_b->inputs.size() > 2 && !f.dq_b->inputs[2].empty();
    const Tensor* bz = has_bz ? rw.constant(f.dq_b->inputs[2]) : nullptr;
    if (!b || !bs || b->dtype() != DType::Int8 || b->rank() != 2 || bs->dtype() != DType::Float32 || (has_bz && !bz) ||
        !all_zero(bz))
      return NoMatch{"the second input is not a constant symmetric int8 matrix"};
    if (bs->numel() != 1) {
      const Attribute* axis = f.dq_b->attr("axis");
      const int64_t a = axis ? axis->i : 1;
      if (bs->numel() != b->dim(1) || (a != 1 && a != -1)) return NoMatch{"the scales are not per column"};
    }
    const auto& readers = rw.consumers(mm.outputs[0]);
    if (readers.size() != 1 || rw.is_graph_output(mm.outputs[0])) return NoMatch{};
    const Node& q = rw.node(readers[0]);
    if (q.op_type != "QuantizeLinear" || !q.domain.empty() || !per_tensor_params(rw, q)) return NoMatch{};
    f.quantize = readers[0];
    return f;
  }

  void rewrite(Rewriter& rw, const FoundMatMul& f) override {
    const Node& mm = rw.node(f.matmul);
    const Node& q = rw.node(f.quantize);
    Node n;
    n.name = mm.name;
    n.op_type = "QLinearMatMul";
    const std::string b_zp = f.dq_b->inputs.size() > 2 && !f.dq_b->inputs[2].empty()
                                 ? f.dq_b->inputs[2]
                                 : rw.add_initializer(mm.name + "_b_zero_point", Tensor::scalar<int8_t>(0));
    n.inputs = {f.dq_a->inputs[0], f.dq_a->inputs[1], f.dq_a->inputs[2], f.dq_b->inputs[0], f.dq_b->inputs[1], b_zp,
                q.inputs[1], q.inputs[2]};
    n.outputs = q.outputs;
    rw.replace({f.matmul, f.quantize}, {std::move(n)});
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_quantized_conv() {
  return std::make_unique<PatternPass>(
      "fuse_quantized_conv",
      "DQ -> Conv [-> Add] [-> act] [-> Q] -> QLinearConv / com.mstools QConvFloatOut; DQ -> MatMul -> Q -> QLinearMatMul",
      [](const PassContext& ctx) {
        std::vector<std::unique_ptr<Pattern>> p;
        p.push_back(std::make_unique<QuantizedConvPattern>(ctx));
        p.push_back(std::make_unique<QuantizedMatMulPattern>());
        return p;
      });
}

}  // namespace ms::passes
