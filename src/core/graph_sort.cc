#include "core/graph_sort.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>

#include "core/graph_reads.h"

namespace ms {

bool sort_nodes_topologically(Graph& g) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
  std::vector<std::vector<size_t>> users(g.nodes.size());
  std::vector<size_t> pending(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::set<std::string> reads = subgraph_reads(g.nodes[i]);
    reads.insert(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
    std::set<size_t> deps;
    for (const auto& r : reads) {
      auto it = producer.find(r);
      if (it != producer.end() && it->second != i) deps.insert(it->second);
    }
    pending[i] = deps.size();
    for (size_t d : deps) users[d].push_back(i);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<size_t> order;
  order.reserve(g.nodes.size());
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t u : users[i])
      if (--pending[u] == 0) ready.push(u);
  }
  if (order.size() != g.nodes.size()) return false;
  if (std::is_sorted(order.begin(), order.end())) return true;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (size_t i : order) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
  return true;
}

}  // namespace ms
