// merge_layout_chains: consecutive data-movement ops collapse into one.
//   Transpose(Transpose(x, p), q) = Transpose(x, r) with r[i] = p[q[i]]
//   R2(R1(x)) = Reshape(x, shape(R2's output)) for R1, R2 in {Reshape, Flatten, Squeeze,
//   Unsqueeze}: all four only reinterpret the row-major element order, so the last shape is all
//   that matters (needs a static output shape).
//   Slice(Slice(x, axes a), axes b) = Slice(x, axes a + b) when a and b are disjoint and all
//   parameters are constants.
// The first op stays when something else reads its output.
#include <set>

#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t first, second;
  Node merged;
  std::vector<std::pair<std::string, Tensor>> constants;  // new initializers (name hint, value) for the empty inputs, in order
};

bool reshape_like(const Node* n) {
  static const std::set<std::string> ops = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
  return n && n->domain.empty() && ops.count(n->op_type);
}

class ChainPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Slice"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    if (n.inputs.empty() || n.inputs[0].empty()) return NoMatch{};
    const int pi = rw.producer_index(n.inputs[0]);
    if (pi < 0) return NoMatch{};
    const Node& p = rw.node(pi);
    Found f{static_cast<size_t>(pi), index, n, {}};
    f.merged.inputs[0] = p.inputs.empty() ? "" : p.inputs[0];
    if (n.op_type == "Transpose" && p.op_type == "Transpose" && p.domain.empty()) {
      const Attribute *pp = p.attr("perm"), *qp = n.attr("perm");
      if (!pp || !qp || pp->ints.size() != qp->ints.size()) return NoMatch{"Transpose without explicit perm"};
      std::vector<int64_t> r(qp->ints.size());
      for (size_t i = 0; i < r.size(); ++i) r[i] = pp->ints.at(qp->ints[i]);
      f.merged.attrs["perm"] = Attribute::of_ints(r);
      return f;
    }
    if (reshape_like(&n) && reshape_like(&p)) {
      auto shape = rw.static_shape(n.outputs[0]);
      if (!shape) return NoMatch{"output shape not static"};
      f.merged.op_type = "Reshape";
      f.merged.attrs.clear();
      f.merged.inputs = {p.inputs[0], ""};
      f.constants.emplace_back("shape", Tensor::from_vector<int64_t>(*shape, {static_cast<int64_t>(shape->size())}));
      return f;
    }
    if (n.op_type == "Slice" && p.op_type == "Slice" && p.domain.empty()) return merge_slices(rw, p, f);
    return NoMatch{};
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    Node n = f.merged;
    for (const auto& [hint, t] : f.constants) {
      for (auto& in : n.inputs)
        if (in.empty()) {
          in = rw.add_initializer(n.outputs[0] + "_" + hint, t);
          break;
        }
    }
    std::vector<size_t> remove{f.second};
    if (rw.only_used_by(rw.node(f.second).inputs[0], f.second)) remove.push_back(f.first);
    rw.replace(remove, {std::move(n)});
  }

 private:
  // Slice inputs: data, starts, ends, axes, steps; the merged node lists both axis sets.
  MatchResult<Found> merge_slices(Rewriter& rw, const Node& p, Found& f) {
    const Node& n = rw.node(f.second);
    std::vector<std::vector<int64_t>> parts[2];
    const Node* nodes[2] = {&p, &n};
    for (int k = 0; k < 2; ++k) {
      const Node& s = *nodes[k];
      if (s.inputs.size() < 4 || s.inputs[3].empty()) return NoMatch{"Slice without explicit axes"};
      for (size_t i = 1; i < 5; ++i) {
        if (i == 4 && (s.inputs.size() < 5 || s.inputs[4].empty())) {
          parts[k].push_back(std::vector<int64_t>(parts[k][0].size(), 1));
          continue;
        }
        const Tensor* t = rw.constant(s.inputs[i]);
        if (!t || !dtype_is_integer(t->dtype())) return NoMatch{"Slice parameters not constant"};
        parts[k].push_back(t->to_int64_vector());
      }
    }
    const TypeInfo* xt = rw.type(p.inputs[0]);
    if (!xt || !xt->shape) return NoMatch{"input rank unknown"};
    const int64_t rank = static_cast<int64_t>(xt->shape->size());
    std::set<int64_t> axes;
    for (int k = 0; k < 2; ++k)
      for (int64_t a : parts[k][2])
        if (!axes.insert(a < 0 ? a + rank : a).second) return NoMatch{"Slices share an axis"};
    for (size_t i = 0; i < 4; ++i) parts[0][i].insert(parts[0][i].end(), parts[1][i].begin(), parts[1][i].end());
    static const char* names[4] = {"starts", "ends", "axes", "steps"};
    f.merged.inputs = {p.inputs[0], "", "", "", ""};
    for (size_t i = 0; i < 4; ++i)
      f.constants.emplace_back(names[i], Tensor::from_vector<int64_t>(parts[0][i], {static_cast<int64_t>(parts[0][i].size())}));
    return f;
  }
};

}  // namespace

std::unique_ptr<Pass> make_merge_layout_chains() {
  return std::make_unique<PatternPass>("merge_layout_chains", "consecutive Transpose / Reshape-like / Slice ops merged",
                                       single_pattern<ChainPattern>());
}

}  // namespace ms::passes
