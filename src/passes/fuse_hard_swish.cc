// fuse_hard_swish: the spelled-out hard activations that exporters write (PaddlePaddle, older
// PyTorch) become one HardSigmoid / HardSwish node, which fuse_activation then puts into the
// convolution before them. Around a Clip(Add(y, 3), 0, 6):
//   Clip(y + 3, 0, 6) / 6        = clamp(y/6 + 1/2, 0, 1)     = HardSigmoid(y, alpha 1/6, beta 1/2)
//   y * (Clip(y + 3, 0, 6) / 6)  = y * clamp(y/6 + 1/2, 0, 1) = HardSwish(y)
//   (y * Clip(y + 3, 0, 6)) / 6  = the same product, divided last (PaddlePaddle's order)
// "/ 6" may also be "* (1/6)"; the Add, Mul operands in either order. Every intermediate value
// must have no reader outside the chain.
#include <utility>

#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  std::vector<size_t> nodes;  // the chain, the last one produces `out`
  std::string y, out;
  bool swish = false;         // HardSwish (else HardSigmoid)
};

// The other input of binary node `n` when one input is the scalar constant `v`; "" otherwise.
std::string operand_besides(Rewriter& rw, const Node& n, double v) {
  if (n.inputs.size() != 2) return "";
  const bool commutes = n.op_type == "Add" || n.op_type == "Mul";
  for (size_t c = commutes ? 0 : 1; c < 2; ++c) {
    auto s = scalar_constant(rw, n.inputs[c]);
    if (s && near(*s, v)) return n.inputs[1 - c];
  }
  return "";
}

// True when n computes v / 6 (Div by 6 or Mul by 1/6) of its value `v`.
bool is_sixth_of(Rewriter& rw, const Node& n, const std::string& v) {
  if (!n.domain.empty()) return false;
  if (n.op_type == "Div") return operand_besides(rw, n, 6.0) == v;
  if (n.op_type == "Mul") return operand_besides(rw, n, 1.0 / 6.0) == v;
  return false;
}

// True when n is Mul(a, b) in either order.
bool is_product_of(const Node& n, const std::string& a, const std::string& b) {
  return n.domain.empty() && n.op_type == "Mul" && n.inputs.size() == 2 &&
         ((n.inputs[0] == a && n.inputs[1] == b) || (n.inputs[0] == b && n.inputs[1] == a));
}

// The only reader of `v` (not a graph output), or -1.
int sole_reader(Rewriter& rw, const std::string& v) {
  const auto& c = rw.consumers(v);
  if (c.size() != 1 || rw.is_graph_output(v)) return -1;
  return static_cast<int>(c[0]);
}

// Clip's bounds: constant inputs (opset >= 11) or the min/max attributes of the older form
// (models imported below opset 11 keep it).
std::pair<std::optional<double>, std::optional<double>> clip_bounds(Rewriter& rw, const Node& clip) {
  if (clip.inputs.size() == 3) return {scalar_constant(rw, clip.inputs[1]), scalar_constant(rw, clip.inputs[2])};
  const Attribute* lo = clip.attr("min");
  const Attribute* hi = clip.attr("max");
  if (clip.inputs.size() != 1 || !lo || !hi) return {};
  return {static_cast<double>(lo->f), static_cast<double>(hi->f)};
}

class HardActivationPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Clip"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& clip = rw.node(index);
    if (!clip.domain.empty() || clip.inputs.empty()) return NoMatch{};
    auto [lo, hi] = clip_bounds(rw, clip);
    if (!lo || !hi || *lo != 0.0 || *hi != 6.0) return NoMatch{};
    const Node* add = input_producer(rw, clip, 0, "Add");
    if (!add || !rw.only_used_by(clip.inputs[0], index)) return NoMatch{};
    Found f;
    f.y = operand_besides(rw, *add, 3.0);
    if (f.y.empty()) return NoMatch{"the Clip's input is not y + 3"};
    f.nodes = {static_cast<size_t>(rw.producer_index(clip.inputs[0])), index};
    const std::string& r = clip.outputs[0];
    const int next = sole_reader(rw, r);
    if (next < 0) return NoMatch{"the Clip's output has other readers"};
    const Node& n1 = rw.node(next);
    if (is_sixth_of(rw, n1, r)) {  // Clip / 6: HardSigmoid, and HardSwish when y * it follows
      f.nodes.push_back(next);
      f.out = n1.outputs[0];
      const int m = sole_reader(rw, f.out);
      if (m >= 0 && is_product_of(rw.node(m), f.y, f.out)) {
        f.nodes.push_back(m);
        f.out = rw.node(m).outputs[0];
        f.swish = true;
      }
      return f;
    }
    if (is_product_of(n1, f.y, r)) {  // (y * Clip) / 6
      const int d = sole_reader(rw, n1.outputs[0]);
      if (d < 0 || !is_sixth_of(rw, rw.node(d), n1.outputs[0])) return NoMatch{"y * Clip(y + 3, 0, 6) is not divided by 6"};
      f.nodes.insert(f.nodes.end(), {static_cast<size_t>(next), static_cast<size_t>(d)});
      f.out = rw.node(d).outputs[0];
      f.swish = true;
      return f;
    }
    return NoMatch{"Clip(y + 3, 0, 6) is not divided by 6"};
  }

  void rewrite(Rewriter& rw, const Found& f) override {
    Node n;
    n.op_type = f.swish ? "HardSwish" : "HardSigmoid";
    n.name = rw.fresh_name(f.out + "_" + n.op_type);
    n.inputs = {f.y};
    n.outputs = {f.out};
    if (!f.swish) {
      n.attrs["alpha"] = Attribute::of_float(1.f / 6.f);
      n.attrs["beta"] = Attribute::of_float(0.5f);
    }
    rw.replace(f.nodes, {std::move(n)});
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_hard_swish() {
  return std::make_unique<PatternPass>("fuse_hard_swish", "y * Clip(y + 3, 0, 6) / 6 -> HardSwish, Clip(y + 3, 0, 6) / 6 -> HardSigmoid",
                                       single_pattern<HardActivationPattern>());
}

}  // namespace ms::passes
