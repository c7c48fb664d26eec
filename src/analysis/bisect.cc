#include "analysis/bisect.h"

#include <algorithm>
#include <map>

namespace ms::analysis {

Upstream upstream_of(const Graph& g, const std::string& tensor, const std::set<std::string>& known) {
  std::map<std::string, size_t> producer;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const auto& o : g.nodes[k].outputs)
      if (!o.empty()) producer[o] = k;
  Upstream up;
  std::set<size_t> seen_nodes;
  std::set<std::string> seen_frontier;
  std::vector<std::string> todo{tensor};
  bool first = true;
  while (!todo.empty()) {
    std::string t = todo.back();
    todo.pop_back();
    if (!first && known.count(t)) {
      if (seen_frontier.insert(t).second) up.frontier.push_back(t);
      continue;
    }
    first = false;
    auto it = producer.find(t);
    if (it == producer.end() || !seen_nodes.insert(it->second).second) continue;  // input, constant, or done
    for (const auto& in : g.nodes[it->second].inputs)
      if (!in.empty()) todo.push_back(in);
  }
  up.nodes.assign(seen_nodes.begin(), seen_nodes.end());
  return up;
}

namespace {

std::vector<std::string> labels_of(const Graph& g, const std::vector<size_t>& nodes) {
  std::vector<std::string> out;
  for (size_t k : nodes) out.push_back(node_title(g, k));
  return out;
}

// `region` narrowed to its node named like the other model's single node, if it has one.
std::vector<size_t> narrow(const Graph& g, const std::vector<size_t>& region, const Graph& other,
                           const std::vector<size_t>& other_region) {
  if (region.size() < 2 || other_region.size() != 1) return region;
  const std::string& name = other.nodes[other_region[0]].name;
  for (size_t k : region)
    if (!name.empty() && g.nodes[k].name == name) return {k};
  return region;
}

}  // namespace

std::optional<Divergence> find_divergence(const Model& model, const Model& ref, const std::vector<LayerResult>& layers) {
  std::map<std::string, size_t> layer_of;
  std::set<std::string> known, ref_known;
  for (size_t i = 0; i < layers.size(); ++i) {
    layer_of[layers[i].pair.name] = i;
    known.insert(layers[i].pair.name);
    ref_known.insert(layers[i].pair.ref_name);
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerResult& l = layers[i];
    if (!l.skipped.empty() || l.metrics.pass()) continue;
    Upstream up = upstream_of(model.graph, l.pair.name, known);
    Divergence d;
    d.layer = i;
    bool inputs_agree = true;
    for (const auto& t : up.frontier) {
      size_t j = layer_of.at(t);
      d.input_layers.push_back(j);
      inputs_agree = inputs_agree && layers[j].metrics.pass();  // a skipped pair has no failing sample
    }
    if (!inputs_agree) continue;
    std::sort(d.input_layers.begin(), d.input_layers.end());
    auto ref_nodes = upstream_of(ref.graph, l.pair.ref_name, ref_known).nodes;
    d.region = labels_of(model.graph, up.nodes);
    d.ref_region = labels_of(ref.graph, ref_nodes);
    d.nodes = labels_of(model.graph, narrow(model.graph, up.nodes, ref.graph, ref_nodes));
    d.ref_nodes = labels_of(ref.graph, narrow(ref.graph, ref_nodes, model.graph, up.nodes));
    return d;
  }
  return std::nullopt;
}

}  // namespace ms::analysis
