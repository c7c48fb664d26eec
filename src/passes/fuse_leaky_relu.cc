// fuse_leaky_relu: the leaky ReLU that TensorFlow's tf.maximum(x, alpha * x) spells out (Keras
// models converted by tf2onnx, openWakeWord's) becomes one LeakyRelu node, which fuse_activation
// then puts into the convolution before it:
//   Max(x, alpha * x) = LeakyRelu(x, alpha)   for 0 <= alpha <= 1
// (x >= 0: alpha * x <= x; x < 0: alpha * x >= x). The Max and Mul operands in either order; the
// product must have no other reader.
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  std::vector<size_t> nodes;  // Mul, then Max
  std::string x, out;
  float alpha = 0;
};

class LeakyReluPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Max"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& max = rw.node(index);
    if (!max.domain.empty() || max.inputs.size() != 2) return NoMatch{};
    for (size_t side = 0; side < 2; ++side) {
      const Node* mul = input_producer(rw, max, side, "Mul");
      if (!mul || mul->inputs.size() != 2) continue;
      const std::string& x = max.inputs[1 - side];
      for (size_t c = 0; c < 2; ++c) {
        if (mul->inputs[1 - c] != x) continue;
        const auto alpha = scalar_constant(rw, mul->inputs[c]);
        if (!alpha) continue;
        if (*alpha < 0 || *alpha > 1) return NoMatch{"Max(x, a * x) with a outside [0, 1] is not a leaky ReLU"};
        if (!rw.only_used_by(max.inputs[side], index)) return NoMatch{"the product a * x has other readers"};
        Found f;
        f.nodes = {static_cast<size_t>(rw.producer_index(max.inputs[side])), index};
        f.x = x;
        f.out = max.outputs[0];
        f.alpha = static_cast<float>(*alpha);
        return f;
      }
    }
    return NoMatch{};
  }

  void rewrite(Rewriter& rw, const Found& f) override {
    Node n;
    n.op_type = "LeakyRelu";
    n.name = rw.fresh_name(f.out + "_LeakyRelu");
    n.inputs = {f.x};
    n.outputs = {f.out};
    n.attrs["alpha"] = Attribute::of_float(f.alpha);
    rw.replace(f.nodes, {std::move(n)});
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_leaky_relu() {
  return std::make_unique<PatternPass>("fuse_leaky_relu", "Max(x, a * x) with 0 <= a <= 1 -> LeakyRelu(x, a)",
                                       single_pattern<LeakyReluPattern>());
}

}  // namespace ms::passes
