#include "ops/fused_activation.h"

#include <limits>

#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {
namespace {

struct ActivationEntry {
  const char* name;
  const char* domain;                   // domain of the single node that computes it
  std::vector<const char*> param_attrs;  // its float attributes, in activation_params order
  size_t num_params;
  bool single_node;                     // false: only recognized as a pattern (Swish = x * Sigmoid(x))
};

const std::vector<ActivationEntry>& entries() {
  static const std::vector<ActivationEntry> e = {
      {"Relu", "", {}, 0, true},
      {"Clip", "", {}, 2, true},  // bounds are inputs 1 and 2 (opset >= 11)
      {"Sigmoid", "", {}, 0, true},
      {"HardSigmoid", "", {"alpha", "beta"}, 2, true},
      {"HardSwish", "", {}, 0, true},
      {"LeakyRelu", "", {"alpha"}, 1, true},
      {"Tanh", "", {}, 0, true},
      {"Swish", "", {}, 0, false},
      {"Gelu", kMsDomain, {}, 0, true},
  };
  return e;
}

const ActivationEntry* find_entry(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return &e;
  return nullptr;
}

Tensor scalar_of(DType dt, float v, int opset, const std::string& node_name) {
  return call_reference("Cast", {Tensor::scalar<float>(v)}, {{"to", Attribute::of_int(static_cast<int64_t>(dt))}}, opset,
                        node_name)[0];
}

}  // namespace

void check_fused_activation(const FusedActivation& act, const std::string& node_label) {
  if (act.name.empty()) {
    if (!act.params.empty()) fail("{}: activation_params given without an activation", node_label);
    return;
  }
  const ActivationEntry* e = find_entry(act.name);
  if (!e) {
    std::string names;
    for (const auto& x : entries()) names += std::string(names.empty() ? "" : ", ") + x.name;
    fail("{}: unknown activation '{}' (known: {})", node_label, act.name, names);
  }
  if (act.params.size() != e->num_params)
    fail("{}: activation {} takes {} activation_params, got {}", node_label, act.name, e->num_params, act.params.size());
}

std::optional<FusedActivation> fusable_activation_of(
    const Node& n, const std::function<const Tensor*(const std::string&)>& constant_of) {
  const ActivationEntry* e = find_entry(n.op_type);
  if (!e || !e->single_node || n.domain != e->domain || n.outputs.size() != 1) return std::nullopt;
  FusedActivation a{n.op_type, {}};
  if (a.name == "Clip") {
    if (n.attr("min") || n.attr("max")) return std::nullopt;  // pre-11 form; the importer upgrades it
    float bounds[2] = {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
    for (size_t i = 1; i < 3; ++i) {
      if (i >= n.inputs.size() || n.inputs[i].empty()) continue;
      const Tensor* t = constant_of(n.inputs[i]);
      if (!t || t->numel() != 1 || !dtype_is_float(t->dtype())) return std::nullopt;
      bounds[i - 1] = static_cast<float>(t->as_double(0));
    }
    a.params = {bounds[0], bounds[1]};
    return a;
  }
  if (a.name == "Gelu") {
    const Attribute* ap = n.attr("approximate");
    if (ap && ap->s != "none") return std::nullopt;  // only the erf form is a fused activation
  }
  const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
  for (const char* attr : e->param_attrs) {
    const Attribute* v = n.attr(attr);
    const AttrSpec* spec = def ? def->find_attr(attr) : nullptr;
    if (v) a.params.push_back(v->f);
    else if (spec && spec->default_value) a.params.push_back(spec->default_value->f);
    else return std::nullopt;
  }
  return a;
}

Tensor apply_fused_activation(const FusedActivation& act, const Tensor& y, int opset, const std::string& node_name) {
  if (act.name.empty()) return y;
  const ActivationEntry* e = find_entry(act.name);
  if (!e) fail("node {}: unknown activation '{}'", node_name, act.name);
  if (act.name == "Clip")
    return call_reference("Clip", {y, scalar_of(y.dtype(), act.params.at(0), opset, node_name),
                                   scalar_of(y.dtype(), act.params.at(1), opset, node_name)},
                          {}, opset, node_name)[0];
  if (act.name == "Swish") {
    Tensor s = call_reference("Sigmoid", {y}, {}, opset, node_name)[0];
    return call_reference("Mul", {y, s}, {}, opset, node_name)[0];
  }
  std::map<std::string, Attribute> attrs;
  for (size_t i = 0; i < e->param_attrs.size(); ++i) attrs[e->param_attrs[i]] = Attribute::of_float(act.params.at(i));
  return call_reference(act.name, {y}, attrs, opset, node_name, 1, e->domain)[0];
}

std::optional<std::string> fused_form_of(const Node& n) {
  static const std::map<std::string, std::string> forms = {{"Conv", "FusedConv"}, {"Gemm", "FusedGemm"}, {"MatMul", "FusedMatMul"}};
  if (n.domain.empty()) {
    auto it = forms.find(n.op_type);
    if (it != forms.end()) return it->second;
    return std::nullopt;
  }
  if (n.domain != kMsDomain) return std::nullopt;
  for (const auto& [base, fused] : forms)
    if (n.op_type == fused) {
      const Attribute* a = n.attr("activation");
      if (a && !a->s.empty()) return std::nullopt;
      return fused;
    }
  return std::nullopt;
}

FusedActivation fused_activation_attrs(const AttrReader& r) {
  FusedActivation a{r.attr_string("activation"), r.attr_floats("activation_params")};
  check_fused_activation(a, r.node().label());
  return a;
}

}  // namespace ms
