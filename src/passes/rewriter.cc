#include "passes/rewriter.h"

#include <algorithm>

#include "core/graph_reads.h"
#include "core/graph_sort.h"

namespace ms::passes {
namespace {

// Renames reads of `from` inside a subgraph that does not define `from` itself.
void rename_in_subgraph(Graph& g, const std::string& from, const std::string& to) {
  for (const auto& v : g.inputs)
    if (v.name == from) return;
  if (g.initializers.count(from)) return;
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (o == from) return;
  for (auto& n : g.nodes) {
    for (auto& i : n.inputs)
      if (i == from) i = to;
    for (auto& [k, a] : n.attrs) {
      if (a.g) rename_in_subgraph(*a.g, from, to);
      for (auto& sg : a.graphs) rename_in_subgraph(*sg, from, to);
    }
  }
  for (auto& o : g.outputs)
    if (o.name == from) o.name = to;
}

const std::vector<size_t> kNoConsumers;

}  // namespace

Rewriter::Rewriter(Model& m, GraphInferOptions infer_opts) : m_(m), infer_opts_(std::move(infer_opts)) { reindex(); }

int Rewriter::producer_index(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const Node* Rewriter::producer(const std::string& value) const {
  int p = producer_index(value);
  return p < 0 ? nullptr : &m_.graph.nodes[p];
}

const std::vector<size_t>& Rewriter::consumers(const std::string& value) const {
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNoConsumers : it->second;
}

bool Rewriter::only_used_by(const std::string& value, size_t consumer) const {
  const auto& c = consumers(value);
  return !is_graph_output(value) && c.size() == 1 && c[0] == consumer;
}

const Tensor* Rewriter::constant(const std::string& value) const {
  if (value.empty() || graph_inputs_.count(value)) return nullptr;
  auto it = m_.graph.initializers.find(value);
  return it == m_.graph.initializers.end() ? nullptr : &it->second;
}

const TypeInfo* Rewriter::type(const std::string& value) {
  auto it = types_.find(value);
  if (it != types_.end()) return &it->second;
  if (types_complete_) return nullptr;
  GraphInference inf = infer_graph(m_, infer_opts_);
  for (auto& [name, t] : inf.types[&m_.graph])
    if (t.kind != TypeInfo::Kind::Unknown) types_[name] = t;
  types_complete_ = true;
  it = types_.find(value);
  return it == types_.end() ? nullptr : &it->second;
}

std::optional<Shape> Rewriter::static_shape(const std::string& value) {
  if (const Tensor* c = constant(value)) return c->shape();
  const TypeInfo* t = type(value);
  if (!t || t->kind != TypeInfo::Kind::Tensor || !t->has_static_shape()) return std::nullopt;
  return t->static_shape();
}

std::string Rewriter::fresh_name(const std::string& hint) {
  std::string n = hint;
  while (names_.count(n)) n = hint + "_" + std::to_string(++counter_);
  names_.insert(n);
  return n;
}

std::string Rewriter::add_initializer(const std::string& hint, Tensor t) {
  std::string n = fresh_name(hint);
  m_.graph.initializers[n] = std::move(t);
  return n;
}

void Rewriter::set_initializer(const std::string& name, Tensor t) {
  names_.insert(name);
  types_.erase(name);
  m_.graph.initializers[name] = std::move(t);
}

void Rewriter::replace(const std::vector<size_t>& indices, std::vector<Node> replacement) {
  auto& nodes = m_.graph.nodes;
  const size_t pos = indices.empty() ? nodes.size() : *std::max_element(indices.begin(), indices.end());
  std::set<size_t> drop(indices.begin(), indices.end());
  std::vector<Node> out;
  out.reserve(nodes.size() + replacement.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == pos)
      for (auto& r : replacement) out.push_back(std::move(r));
    if (!drop.count(i)) out.push_back(std::move(nodes[i]));
  }
  if (pos >= nodes.size())
    for (auto& r : replacement) out.push_back(std::move(r));
  nodes = std::move(out);
  types_complete_ = false;
  reindex();
}

void Rewriter::replace_uses(const std::string& from, const std::string& to) {
  for (auto& n : m_.graph.nodes) {
    for (auto& i : n.inputs)
      if (i == from) i = to;
    for (auto& [k, a] : n.attrs) {
      if (a.g) rename_in_subgraph(*a.g, from, to);
      for (auto& sg : a.graphs) rename_in_subgraph(*sg, from, to);
    }
  }
  reindex();
}

bool Rewriter::bypass(size_t index, const std::string& in, const std::string& out) {
  if (!is_graph_output(out)) {
    replace_uses(out, in);
    replace({index}, {});
    return true;
  }
  const int p = producer_index(in);
  if (p < 0 || is_graph_output(in) || !only_used_by(in, index)) return false;
  for (auto& o : m_.graph.nodes[p].outputs)
    if (o == in) o = out;
  m_.graph.nodes[index].outputs.clear();  // no longer produces `out`
  replace({index}, {});
  return true;
}

void Rewriter::require_domain(const std::string& domain, int64_t version) {
  auto it = m_.opsets.find(domain);
  if (it == m_.opsets.end() || it->second < version) m_.opsets[domain] = version;
}

void Rewriter::reindex() {
  Graph& g = m_.graph;
  sort_nodes_topologically(g);  // a cycle (invalid input) keeps its order; the verifier reports it
  std::vector<std::set<std::string>> reads(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    reads[i] = subgraph_reads(g.nodes[i]);
    reads[i].insert(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
  }
  producer_.clear();
  consumers_.clear();
  names_.clear();
  graph_outputs_.clear();
  graph_inputs_.clear();
  for (const auto& v : g.inputs) {
    graph_inputs_.insert(v.name);
    names_.insert(v.name);
  }
  for (const auto& v : g.outputs) graph_outputs_.insert(v.name);
  for (const auto& [k, t] : g.initializers) names_.insert(k);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    names_.insert(n.name);
    for (const auto& o : n.outputs)
      if (!o.empty()) {
        producer_[o] = static_cast<int>(i);
        names_.insert(o);
      }
    for (const auto& r : reads[i])
      if (!r.empty()) consumers_[r].push_back(i);
  }
}

}  // namespace ms::passes
