// Dead-node removal: nodes none of whose outputs reach a graph output, then unused initializers.
#include <set>

#include "passes/basic_passes.h"

namespace ms::passes {

namespace {
// Values a subgraph reads from its enclosing scope.
void collect_uses(const Graph& g, std::set<std::string>& used) {
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) used.insert(i);
    for (const auto& [k, a] : n.attrs) {
      if (a.g) collect_uses(*a.g, used);
      for (const auto& sg : a.graphs) collect_uses(*sg, used);
    }
  }
  for (const auto& o : g.outputs) used.insert(o.name);
}
}  // namespace

size_t remove_dead_nodes(Model& m) {
  Graph& g = m.graph;
  std::set<std::string> live;
  for (const auto& o : g.outputs) live.insert(o.name);
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t k = g.nodes.size(); k-- > 0;) {
    const Node& n = g.nodes[k];
    bool needed = false;
    for (const auto& o : n.outputs) needed = needed || (!o.empty() && live.count(o));
    if (!needed) continue;
    keep[k] = true;
    std::set<std::string> sub;
    for (const auto& [name, a] : n.attrs) {
      if (a.g) collect_uses(*a.g, sub);
      for (const auto& sg : a.graphs) collect_uses(*sg, sub);
    }
    for (const auto& i : n.inputs) live.insert(i);
    live.insert(sub.begin(), sub.end());
  }
  size_t removed = 0;
  std::vector<Node> kept;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (keep[k]) kept.push_back(std::move(g.nodes[k]));
    else ++removed;
  }
  g.nodes = std::move(kept);
  std::set<std::string> inputs;
  for (const auto& v : g.inputs) inputs.insert(v.name);
  for (auto it = g.initializers.begin(); it != g.initializers.end();) {
    if (!live.count(it->first) && !inputs.count(it->first)) it = g.initializers.erase(it);
    else ++it;
  }
  return removed;
}

void run_basic_pipeline(Model& m) {
  fold_constants(m);      // first: folding turns whole subgraphs into initializers...
  remove_dead_nodes(m);   // ...whose producers and inputs are then dead
}

}  // namespace ms::passes
