// eliminate_noops: nodes whose output equals one of their inputs are bypassed (readers read the
// input). Each rule states the identity it relies on:
//   Identity(x) = x;  Dropout(x) = x at inference (mask output unused, training_mode off)
//   Cast(x, to = dtype(x)) = x;  Reshape(x, s) = x and Expand(x, s) = x when shape(out) = shape(x)
//   Transpose(x, perm = 0..n-1) = x;  Pad(x, pads = 0) = x;  Concat(x) = x
//   x + 0 = x - 0 = x * 1 = x / 1 = x  (constant operand all 0 / all 1, output shape = shape(x))
#include <functional>
#include <map>

#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct NoOp {
  size_t index;
  std::string in, out;
};

bool all_equal_to(const Tensor* t, double v) {
  if (!t || t->dtype() == DType::String || t->dtype() == DType::Bool || t->numel() == 0) return false;
  for (int64_t i = 0; i < t->numel(); ++i)
    if (t->as_double(i) != v) return false;
  return true;
}

// Input index of `n` that its output 0 equals, or a reason why there is none.
using Rule = std::function<std::variant<size_t, NoMatch>(Rewriter&, const Node&)>;

std::variant<size_t, NoMatch> same_shape_as_output(Rewriter& rw, const Node& n, size_t i) {
  auto in = rw.static_shape(n.inputs[i]), out = rw.static_shape(n.outputs[0]);
  if (!in || !out) return NoMatch{"shape not static"};
  if (*in != *out) return NoMatch{};
  const TypeInfo* ti = rw.type(n.inputs[i]);
  const TypeInfo* to = rw.type(n.outputs[0]);
  if (!ti || !to || ti->dtype != to->dtype) return NoMatch{"dtype changes"};
  return i;
}

// x op c with c constant equal to `neutral`; `commutes`: c may be either operand.
Rule neutral_operand(double neutral, bool commutes) {
  return [=](Rewriter& rw, const Node& n) -> std::variant<size_t, NoMatch> {
    if (n.inputs.size() != 2) return NoMatch{};
    for (size_t c = commutes ? 0 : 1; c < 2; ++c)
      if (all_equal_to(rw.constant(n.inputs[c]), neutral)) return same_shape_as_output(rw, n, 1 - c);
    return NoMatch{};
  };
}

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> r = {
      {"Identity", [](Rewriter&, const Node&) -> std::variant<size_t, NoMatch> { return size_t(0); }},
      {"Dropout",
       [](Rewriter& rw, const Node& n) -> std::variant<size_t, NoMatch> {
         if (n.outputs.size() > 1 && !n.outputs[1].empty() &&
             (!rw.consumers(n.outputs[1]).empty() || rw.is_graph_output(n.outputs[1])))
           return NoMatch{"mask output is used"};
         if (n.inputs.size() > 2 && !n.inputs[2].empty() && !all_equal_to(rw.constant(n.inputs[2]), 0))
           return NoMatch{"training_mode is not a constant false"};
         return size_t(0);
       }},
      {"Cast",
       [](Rewriter& rw, const Node& n) -> std::variant<size_t, NoMatch> {
         const TypeInfo* t = rw.type(n.inputs[0]);
         const Attribute* to = n.attr("to");
         if (!t || !to) return NoMatch{"input dtype unknown"};
         if (static_cast<int64_t>(t->dtype) != to->i) return NoMatch{};
         return size_t(0);
       }},
      {"Reshape", [](Rewriter& rw, const Node& n) { return same_shape_as_output(rw, n, 0); }},
      {"Expand", [](Rewriter& rw, const Node& n) { return same_shape_as_output(rw, n, 0); }},
      {"Transpose",
       [](Rewriter& rw, const Node& n) -> std::variant<size_t, NoMatch> {
         const Attribute* p = n.attr("perm");
         if (!p) return NoMatch{};  // default perm reverses the dims
         for (size_t i = 0; i < p->ints.size(); ++i)
           if (p->ints[i] != static_cast<int64_t>(i)) return NoMatch{};
         return size_t(0);
       }},
      {"Pad",
       [](Rewriter& rw, const Node& n) -> std::variant<size_t, NoMatch> {
         if (n.inputs.size() < 2 || !all_equal_to(rw.constant(n.inputs[1]), 0)) return NoMatch{};
         return size_t(0);
       }},
      {"Concat",
       [](Rewriter&, const Node& n) -> std::variant<size_t, NoMatch> {
         if (n.inputs.size() != 1) return NoMatch{};
         return size_t(0);
       }},
      {"Add", neutral_operand(0, true)},
      {"Sub", neutral_operand(0, false)},
      {"Mul", neutral_operand(1, true)},
      {"Div", neutral_operand(1, false)},
  };
  return r;
}

class NoOpPattern : public TypedPattern<NoOp> {
 public:
  std::vector<std::string> anchors() const override {
    std::vector<std::string> a;
    for (const auto& [op, rule] : rules()) a.push_back(op);
    return a;
  }
  MatchResult<NoOp> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty()) return NoMatch{};
    auto r = rules().at(n.op_type)(rw, n);
    if (auto* no = std::get_if<NoMatch>(&r)) return *no;
    const size_t i = std::get<size_t>(r);
    if (rw.is_graph_output(n.outputs[0]) && (rw.producer_index(n.inputs[i]) < 0 || !rw.only_used_by(n.inputs[i], index)))
      return NoMatch{"output is a graph output and the input cannot take its name"};
    return NoOp{index, n.inputs[i], n.outputs[0]};
  }
  void rewrite(Rewriter& rw, const NoOp& f) override { rw.bypass(f.index, f.in, f.out); }
};

}  // namespace

std::unique_ptr<Pass> make_eliminate_noops() {
  return std::make_unique<PatternPass>("eliminate_noops", "Identity, inference Dropout, same-type Cast, same-shape Reshape/Expand, "
                                       "identity Transpose, zero Pad, one-input Concat, x+0, x*1, x/1",
                                       single_pattern<NoOpPattern>());
}

}  // namespace ms::passes
