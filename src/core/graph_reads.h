// The names a graph reads: its nodes' inputs (subgraphs included, recursively) and its outputs.
// For a subgraph these include the values it takes from enclosing scopes, which is what use
// tracking (passes, liveness planning) must count as read by the node holding the subgraph.
#pragma once
#include <set>
#include <string>

#include "core/graph.h"

namespace ms {

inline void collect_graph_reads(const Graph& g, std::set<std::string>& out) {
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) out.insert(i);
    for (const auto& [k, a] : n.attrs) {
      if (a.g) collect_graph_reads(*a.g, out);
      for (const auto& sg : a.graphs) collect_graph_reads(*sg, out);
    }
  }
  for (const auto& o : g.outputs) out.insert(o.name);
}

// The names the subgraphs of node `n` read.
inline std::set<std::string> subgraph_reads(const Node& n) {
  std::set<std::string> r;
  for (const auto& [k, a] : n.attrs) {
    if (a.g) collect_graph_reads(*a.g, r);
    for (const auto& sg : a.graphs) collect_graph_reads(*sg, r);
  }
  return r;
}

}  // namespace ms
