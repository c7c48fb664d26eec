// fuse_activation: Conv, Gemm and MatMul absorb what follows them into one com.mstools op
// (ops/fused_conv.cc, fused_gemm.cc, fused_mat_mul.cc):
//   act(Conv(x))       = FusedConv(x, activation = act)      act: ops/fused_activation.h (Relu,
//   act(Gemm(a, b))    = FusedGemm(a, b, activation = act)   Clip/Relu6, Sigmoid, HardSigmoid,
//   act(MatMul(a, b))  = FusedMatMul(a, b, activation = act) HardSwish, LeakyRelu, Tanh, Gelu)
//   y * Sigmoid(y)     = fused op with activation Swish (SiLU), y = Conv/Gemm/MatMul(...)
//   Conv(x) + z        = FusedConv(x, Z = z)  (residual add before the activation: the add of a
//                        same-shaped tensor, so that a following Relu fuses too)
// Only when the output format can hold com.mstools ops, and only when nothing else reads the
// intermediate values.
#include "ops/fused_activation.h"
#include "ops/ms_domain.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t producer;
  std::vector<size_t> absorbed;  // the nodes folded into the producer, last one gives the name
  FusedActivation act;
  std::string z;                 // residual input ("" when none)
};

Node fused_node(Rewriter& rw, const Found& f) {
  Node n = rw.node(f.producer);
  n.op_type = *fused_form_of(n);
  n.domain = kMsDomain;
  if (!f.act.name.empty()) {
    n.attrs["activation"] = Attribute::of_string(f.act.name);
    n.attrs["activation_params"] = Attribute::of_floats(f.act.params);
  }
  if (!f.z.empty()) {
    n.inputs.resize(4);
    n.inputs[3] = f.z;
  }
  n.outputs = {rw.node(f.absorbed.back()).outputs[0]};
  return n;
}

class FusePattern : public TypedPattern<Found> {
 public:
  void rewrite(Rewriter& rw, const Found& f) override {
    Node n = fused_node(rw, f);
    rw.require_domain(kMsDomain, kMsDomainVersion);
    std::vector<size_t> remove = f.absorbed;
    remove.push_back(f.producer);
    rw.replace(remove, {std::move(n)});
  }

 protected:
  // The producer of `v` when it can absorb an activation and only `reader` reads `v`.
  std::variant<size_t, NoMatch> absorbing_producer(Rewriter& rw, const std::string& v, size_t reader) {
    const int p = rw.producer_index(v);
    if (p < 0 || !fused_form_of(rw.node(p))) return NoMatch{};
    if (!rw.only_used_by(v, reader)) return NoMatch{"the pre-activation value has another reader"};
    return static_cast<size_t>(p);
  }
};

class ActivationPattern : public FusePattern {
 public:
  std::vector<std::string> anchors() const override { return {}; }  // which ops are activations: ops/fused_activation.h
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    auto act = fusable_activation_of(n, [&](const std::string& v) { return rw.constant(v); });
    if (!act || n.inputs.empty()) return NoMatch{};
    auto p = absorbing_producer(rw, n.inputs[0], index);
    if (auto* no = std::get_if<NoMatch>(&p)) return *no;
    return Found{std::get<size_t>(p), {index}, *act, ""};
  }
};

class SwishPattern : public FusePattern {
 public:
  std::vector<std::string> anchors() const override { return {"Mul"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& mul = rw.node(index);
    if (mul.inputs.size() != 2) return NoMatch{};
    for (size_t s = 0; s < 2; ++s) {
      const Node* sig = input_producer(rw, mul, s, "Sigmoid");
      const std::string& y = mul.inputs[1 - s];
      if (!sig || sig->inputs[0] != y || !rw.only_used_by(mul.inputs[s], index)) continue;
      const int p = rw.producer_index(y);
      if (p < 0 || !fused_form_of(rw.node(p))) return NoMatch{};
      if (rw.consumers(y).size() != 2 || rw.is_graph_output(y)) return NoMatch{"the pre-activation value has another reader"};
      return Found{static_cast<size_t>(p), {static_cast<size_t>(rw.producer_index(mul.inputs[s])), index}, {"Swish", {}}, ""};
    }
    return NoMatch{};
  }
};

class ResidualAddPattern : public FusePattern {
 public:
  std::vector<std::string> anchors() const override { return {"Add"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& add = rw.node(index);
    if (add.inputs.size() != 2 || add.inputs[0] == add.inputs[1]) return NoMatch{};
    NoMatch why;  // of the last candidate: the other input may still qualify
    for (size_t c = 0; c < 2; ++c) {
      const int p = rw.producer_index(add.inputs[c]);
      if (p < 0) continue;
      const Node& conv = rw.node(p);
      if (fused_form_of(conv) != std::optional<std::string>("FusedConv")) continue;
      if (conv.inputs.size() > 3 && !conv.inputs[3].empty()) continue;
      auto sy = rw.static_shape(add.inputs[c]), sz = rw.static_shape(add.inputs[1 - c]);
      const TypeInfo *ty = rw.type(add.inputs[c]), *tz = rw.type(add.inputs[1 - c]);
      if (!rw.only_used_by(add.inputs[c], index)) why = {"the convolution output has another reader"};
      else if (rw.constant(add.inputs[1 - c])) why = {"a constant addend is a bias (fold_scale_shift)"};
      else if (!sy || !sz || *sy != *sz) why = {"the addend does not have the convolution's shape"};
      else if (!ty || !tz || ty->dtype != tz->dtype) why = {"dtypes differ"};
      else return Found{static_cast<size_t>(p), {index}, {}, add.inputs[1 - c]};
    }
    return why;
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_activation() {
  return std::make_unique<PatternPass>(
      "fuse_activation", "Conv/Gemm/MatMul + activation (and Conv + residual Add) -> com.mstools fused ops",
      [](const PassContext& ctx) {
        std::vector<std::unique_ptr<Pattern>> p;
        if (!ctx.allow_ms_domain) return p;
        // Residual adds first: in Conv -> Add -> Relu the Add must be inside before the Relu can follow.
        p.push_back(std::make_unique<ResidualAddPattern>());
        p.push_back(std::make_unique<SwishPattern>());
        p.push_back(std::make_unique<ActivationPattern>());
        return p;
      });
}

}  // namespace ms::passes
