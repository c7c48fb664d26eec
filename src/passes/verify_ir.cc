#include "passes/verify_ir.h"

#include <set>

#include "ops/op.h"

namespace ms::passes {

std::vector<std::string> verify_ir(const Model& m) {
  std::vector<std::string> problems;
  const Graph& g = m.graph;
  std::set<std::string> defined;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& [k, t] : g.initializers) defined.insert(k);
  for (const auto& n : g.nodes) {
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    if (!def) {
      problems.push_back(n.label() + ": operator unknown to the registry");
    } else {
      const int count = static_cast<int>(n.inputs.size());
      if (count < def->min_inputs || (def->max_inputs >= 0 && count > def->max_inputs))
        problems.push_back(fmt::format("{}: {} inputs, the schema allows {}..{}", n.label(), count, def->min_inputs, def->max_inputs));
    }
    if (!n.domain.empty() && !m.opsets.count(n.domain)) problems.push_back(n.label() + ": domain " + n.domain + " is not imported");
    bool has_subgraph = false;
    for (const auto& [k, a] : n.attrs) has_subgraph = has_subgraph || a.g || !a.graphs.empty();
    for (const auto& in : n.inputs)
      if (!in.empty() && !defined.count(in) && !has_subgraph)
        problems.push_back(n.label() + ": input '" + in + "' is not defined before the node");
    for (const auto& out : n.outputs) {
      if (out.empty()) continue;
      if (!defined.insert(out).second) problems.push_back(n.label() + ": value '" + out + "' is defined twice");
    }
  }
  for (const auto& o : g.outputs)
    if (!defined.count(o.name)) problems.push_back("graph output '" + o.name + "' is not produced");
  return problems;
}

}  // namespace ms::passes
