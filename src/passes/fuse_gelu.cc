// fuse_gelu: the decomposed GELU PyTorch exports becomes one Gelu:
//   erf form   0.5 * x * (1 + Erf(x / sqrt(2)))                                  (x * (1/sqrt 2) too)
//   tanh form  0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * Pow(x, 3))))
// with the final products in any of the orders (x * (1 + e)) * 0.5, (x * 0.5) * (1 + e),
// x * ((1 + e) * 0.5). The result is com.mstools Gelu (ONNX has Gelu only from opset 20, above the
// canonical 17); when the output format cannot hold com.mstools ops (MindIR, which has GeLU), the
// IR's own Gelu is written instead.
#include <cmath>

#include "ops/ms_domain.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  std::vector<size_t> nodes;
  std::string x, out;
  bool tanh_form;
};

// The other input of binary node `n` when one input is the constant `v`; "" otherwise.
std::string other_than_constant(Rewriter& rw, const Node& n, double v, double rel = 1e-5) {
  if (n.inputs.size() != 2) return "";
  for (size_t c = 0; c < 2; ++c) {
    auto s = scalar_constant(rw, n.inputs[c]);
    if (s && near(*s, v, rel)) return n.inputs[1 - c];
  }
  return "";
}

// The single reader of value `v` when it is an op of type `op` (and `v` is not a graph output).
const Node* sole_reader(Rewriter& rw, const std::string& v, const std::string& op, size_t& index) {
  const auto& c = rw.consumers(v);
  if (c.size() != 1 || rw.is_graph_output(v)) return nullptr;
  const Node& n = rw.node(c[0]);
  if (!n.domain.empty() || n.op_type != op) return nullptr;
  index = c[0];
  return &n;
}

bool is_pair(const Node& n, const std::string& a, const std::string& b) {
  return n.inputs.size() == 2 && ((n.inputs[0] == a && n.inputs[1] == b) || (n.inputs[0] == b && n.inputs[1] == a));
}

// From e (Erf or Tanh output) to the end: Add 1, then the products with x and 0.5.
bool match_tail(Rewriter& rw, const std::string& e, const std::string& x, Found& f) {
  size_t i1, i2, i3;
  const Node* add1 = sole_reader(rw, e, "Add", i1);
  if (!add1 || other_than_constant(rw, *add1, 1.0) != e) return false;
  const std::string& s = add1->outputs[0];
  const Node* m = sole_reader(rw, s, "Mul", i2);
  if (!m) return false;
  if (is_pair(*m, x, s) || other_than_constant(rw, *m, 0.5) == s) {  // x * (1+e) or (1+e) * 0.5
    const Node* last = sole_reader(rw, m->outputs[0], "Mul", i3);
    if (!last) return false;
    const bool ok = is_pair(*m, x, s) ? other_than_constant(rw, *last, 0.5) == m->outputs[0] : is_pair(*last, x, m->outputs[0]);
    if (!ok) return false;
    f.nodes.insert(f.nodes.end(), {i1, i2, i3});
    f.out = last->outputs[0];
    return true;
  }
  // (x * 0.5) * (1 + e): the half product is a reader of x elsewhere.
  for (const std::string& h : m->inputs) {
    if (h == s) continue;
    const int hp = rw.producer_index(h);
    if (hp < 0) return false;
    const Node& half = rw.node(hp);
    if (half.domain.empty() && half.op_type == "Mul" && other_than_constant(rw, half, 0.5) == x && rw.only_used_by(h, i2)) {
      f.nodes.insert(f.nodes.end(), {i1, static_cast<size_t>(hp), i2});
      f.out = m->outputs[0];
      return true;
    }
  }
  return false;
}

class GeluPattern : public TypedPattern<Found> {
 public:
  explicit GeluPattern(const PassContext& ctx) : allow_ms_domain_(ctx.allow_ms_domain) {}
  std::vector<std::string> anchors() const override { return {"Erf", "Tanh"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& e = rw.node(index);
    Found f;
    f.nodes = {index};
    f.tanh_form = e.op_type == "Tanh";
    const int pi = rw.producer_index(e.inputs[0]);
    if (pi < 0 || !rw.only_used_by(e.inputs[0], index)) return NoMatch{};
    const Node& scaled = rw.node(pi);
    f.nodes.push_back(pi);
    if (!f.tanh_form) {
      if (scaled.op_type == "Div" && scaled.inputs.size() == 2) {
        auto c = scalar_constant(rw, scaled.inputs[1]);
        if (c && near(*c, std::sqrt(2.0), 1e-4)) f.x = scaled.inputs[0];
      }
      else if (scaled.op_type == "Mul") f.x = other_than_constant(rw, scaled, 1.0 / std::sqrt(2.0), 1e-4);
    } else if (scaled.op_type == "Mul") {
      // sqrt(2/pi) * (x + 0.044715 * x^3)
      const std::string inner = other_than_constant(rw, scaled, std::sqrt(2.0 / M_PI), 1e-4);
      const int ai = inner.empty() ? -1 : rw.producer_index(inner);
      if (ai < 0 || rw.node(ai).op_type != "Add" || !rw.only_used_by(inner, pi)) return NoMatch{};
      const Node& add = rw.node(ai);
      for (size_t k = 0; k < 2 && f.x.empty(); ++k) {
        const int ci = rw.producer_index(add.inputs[1 - k]);
        if (ci < 0 || rw.node(ci).op_type != "Mul" || !rw.only_used_by(add.inputs[1 - k], ai)) continue;
        const std::string cube = other_than_constant(rw, rw.node(ci), 0.044715, 1e-3);
        const int pw = cube.empty() ? -1 : rw.producer_index(cube);
        if (pw < 0 || rw.node(pw).op_type != "Pow" || !rw.only_used_by(cube, ci)) continue;
        auto three = scalar_constant(rw, rw.node(pw).inputs[1]);
        if (!three || *three != 3.0 || rw.node(pw).inputs[0] != add.inputs[k]) continue;
        f.x = add.inputs[k];
        f.nodes.insert(f.nodes.end(), {static_cast<size_t>(ai), static_cast<size_t>(ci), static_cast<size_t>(pw)});
      }
    }
    if (f.x.empty()) return NoMatch{};
    if (!match_tail(rw, e.outputs[0], f.x, f)) return NoMatch{"Erf/Tanh not followed by the GELU products"};
    return f;
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    Node n;
    n.op_type = "Gelu";
    n.name = rw.fresh_name(f.out + "_Gelu");
    if (allow_ms_domain_) {
      n.domain = kMsDomain;
      rw.require_domain(kMsDomain, kMsDomainVersion);
    }
    n.inputs = {f.x};
    n.outputs = {f.out};
    n.attrs["approximate"] = Attribute::of_string(f.tanh_form ? "tanh" : "none");
    rw.replace(f.nodes, {std::move(n)});
  }

 private:
  bool allow_ms_domain_;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_gelu() {
  return std::make_unique<PatternPass>("fuse_gelu", "decomposed GELU (erf and tanh forms) -> Gelu", single_pattern<GeluPattern>());
}

}  // namespace ms::passes
