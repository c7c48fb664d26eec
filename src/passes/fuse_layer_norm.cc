// fuse_layer_norm: the decomposed LayerNorm PyTorch exports becomes ONNX LayerNormalization
// (opset 17):
//   d = x - ReduceMean(x);  y = d / Sqrt(ReduceMean(Pow(d, 2)) + eps) * gamma + beta
//   = LayerNormalization(x, gamma, beta, axis = first reduced axis, epsilon = eps)
// Both ReduceMeans must reduce the same trailing axes with keepdims = 1; gamma, beta and eps must
// be constants; every intermediate must be read only inside the pattern.
#include <algorithm>

#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  std::vector<size_t> nodes;
  std::string x, gamma, beta, out;
  int64_t axis;
  float eps;
};

// Producer of input `i` of `n` if it is `op` and only `n` reads its output (`n` at `index`).
const Node* single_use_input(Rewriter& rw, size_t index, size_t i, const std::string& op, std::vector<size_t>& nodes) {
  const Node& n = rw.node(index);
  const Node* p = input_producer(rw, n, i, op);
  if (!p || !rw.only_used_by(n.inputs[i], index)) return nullptr;
  nodes.push_back(static_cast<size_t>(rw.producer_index(n.inputs[i])));
  return p;
}

// Trailing axes reduced by a keepdims ReduceMean (attribute or opset-18 input), normalized.
std::optional<std::vector<int64_t>> reduced_axes(Rewriter& rw, const Node& r, int64_t rank) {
  if (const Attribute* k = r.attr("keepdims"); k && k->i == 0) return std::nullopt;
  std::vector<int64_t> axes;
  if (const Attribute* a = r.attr("axes")) axes = a->ints;
  else if (r.inputs.size() > 1 && !r.inputs[1].empty()) {
    const Tensor* t = rw.constant(r.inputs[1]);
    if (!t) return std::nullopt;
    axes = t->to_int64_vector();
  }
  if (axes.empty()) return std::nullopt;
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return std::nullopt;
  return axes;
}

class LayerNormPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Add"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& add = rw.node(index);
    if (add.inputs.size() != 2) return NoMatch{};
    for (size_t m = 0; m < 2; ++m) {
      Found f;
      f.nodes = {index};
      const Node* mul = single_use_input(rw, index, m, "Mul", f.nodes);
      if (!mul || !rw.constant(add.inputs[1 - m])) continue;
      f.beta = add.inputs[1 - m];
      const size_t mul_i = f.nodes.back();
      for (size_t dv = 0; dv < 2; ++dv) {
        std::vector<size_t> nodes = f.nodes;
        const Node* div = single_use_input(rw, mul_i, dv, "Div", nodes);
        if (!div || !rw.constant(mul->inputs[1 - dv])) continue;
        auto r = match_normalization(rw, nodes, *div);
        if (auto* no = std::get_if<NoMatch>(&r)) return *no;
        Found g = std::get<Found>(r);
        g.gamma = mul->inputs[1 - dv];
        g.beta = f.beta;
        g.out = add.outputs[0];
        const auto xs = rw.static_shape(g.x);
        const int64_t k = static_cast<int64_t>(xs->size()) - g.axis;
        for (const std::string& p : {g.gamma, g.beta}) {
          const Tensor* t = rw.constant(p);
          if (t->rank() > k || !std::equal(t->shape().rbegin(), t->shape().rend(), xs->rbegin()))
            return NoMatch{"gamma/beta do not have the normalized shape"};
        }
        return g;
      }
    }
    return NoMatch{};
  }

  void rewrite(Rewriter& rw, const Found& f) override {
    Node n;
    n.op_type = "LayerNormalization";
    n.name = rw.fresh_name(f.out + "_LayerNorm");
    n.inputs = {f.x, f.gamma, f.beta};
    n.outputs = {f.out};
    n.attrs["axis"] = Attribute::of_int(f.axis);
    n.attrs["epsilon"] = Attribute::of_float(f.eps);
    rw.replace(f.nodes, {std::move(n)});
  }

 private:
  // div = Div(d, Sqrt(Add(ReduceMean(Pow(d, 2)), eps))), d = Sub(x, ReduceMean(x)).
  MatchResult<Found> match_normalization(Rewriter& rw, std::vector<size_t> nodes, const Node& div) {
    const size_t div_i = nodes.back();
    const Node* sub = input_producer(rw, div, 0, "Sub");
    const Node* sq = single_use_input(rw, div_i, 1, "Sqrt", nodes);
    if (!sub || !sq) return NoMatch{};
    const Node* add_eps = single_use_input(rw, nodes.back(), 0, "Add", nodes);
    if (!add_eps) return NoMatch{};
    const size_t add_eps_i = nodes.back();
    const Node* var = nullptr;
    std::optional<double> eps;
    for (size_t v = 0; v < 2 && !var; ++v) {
      eps = scalar_constant(rw, add_eps->inputs[1 - v]);
      if (eps) var = single_use_input(rw, add_eps_i, v, "ReduceMean", nodes);
    }
    if (!var) return NoMatch{};
    const Node* pow = single_use_input(rw, nodes.back(), 0, "Pow", nodes);
    if (!pow || pow->inputs[0] != div.inputs[0]) return NoMatch{};
    auto two = scalar_constant(rw, pow->inputs[1]);
    if (!two || *two != 2.0) return NoMatch{"Pow exponent is not 2"};
    // d is read by exactly the Pow and the Div.
    const std::string& d = div.inputs[0];
    if (rw.is_graph_output(d) || rw.consumers(d).size() != 2) return NoMatch{"the centred value has other readers"};
    nodes.push_back(static_cast<size_t>(rw.producer_index(d)));
    const size_t sub_i = nodes.back();
    const Node* mean = single_use_input(rw, sub_i, 1, "ReduceMean", nodes);
    if (!mean || mean->inputs[0] != sub->inputs[0]) return NoMatch{};
    auto xs = rw.static_shape(sub->inputs[0]);
    if (!xs) return NoMatch{"input shape not static"};
    const int64_t rank = static_cast<int64_t>(xs->size());
    auto a1 = reduced_axes(rw, *mean, rank), a2 = reduced_axes(rw, *var, rank);
    if (!a1 || !a2 || *a1 != *a2) return NoMatch{"the means do not reduce the same trailing axes"};
    Found f;
    f.nodes = nodes;
    f.x = sub->inputs[0];
    f.axis = a1->front();
    f.eps = static_cast<float>(*eps);
    return f;
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_layer_norm() {
  return std::make_unique<PatternPass>("fuse_layer_norm", "decomposed LayerNorm -> LayerNormalization",
                                       single_pattern<LayerNormPattern>());
}

}  // namespace ms::passes
