// The one way passes mutate a model: a Rewriter over the main graph that keeps a use-def index
// (producer and consumers of every value) current across edits, names new values, adds
// initializers, and gives each value's inferred type (cached: a value's name keeps its meaning
// under semantics-preserving rewrites, so types never go stale; new names trigger re-inference).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"
#include "ops/infer_graph.h"

namespace ms::passes {

class Rewriter {
 public:
  Rewriter(Model& m, GraphInferOptions infer_opts);

  Model& model() { return m_; }
  const Graph& graph() const { return m_.graph; }
  size_t size() const { return m_.graph.nodes.size(); }
  const Node& node(size_t i) const { return m_.graph.nodes[i]; }

  // --- queries ---
  // Index of the node producing `value`, or -1 (graph input, initializer, unknown).
  int producer_index(const std::string& value) const;
  const Node* producer(const std::string& value) const;
  // Indices of the nodes reading `value` (a node reading it inside a subgraph counts), in order.
  const std::vector<size_t>& consumers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const { return graph_outputs_.count(value) > 0; }
  bool is_graph_input(const std::string& value) const { return graph_inputs_.count(value) > 0; }
  // True when only the node at `consumer` reads `value` and it is not a graph output: the value
  // may disappear when that node is rewritten.
  bool only_used_by(const std::string& value, size_t consumer) const;
  // The value of an initializer that is not also a graph input (those can be overridden).
  const Tensor* constant(const std::string& value) const;
  // Inferred type; nullptr when unknown.
  const TypeInfo* type(const std::string& value);
  // The static shape of `value`, when inference knows it.
  std::optional<Shape> static_shape(const std::string& value);
  int opset() const { return static_cast<int>(m_.opset("")); }

  // --- mutations ---
  // A name not used in the graph yet, derived from `hint`.
  std::string fresh_name(const std::string& hint);
  // Adds an initializer under a fresh name derived from `hint`; returns the name.
  std::string add_initializer(const std::string& hint, Tensor t);
  void set_initializer(const std::string& name, Tensor t);
  // Replaces the nodes at `indices` with `replacement`, placed where the last of them was.
  // Values the removed nodes produced and nobody else produces must be produced by the
  // replacement or be unused afterwards (the verifier checks). Keeps node order topological.
  void replace(const std::vector<size_t>& indices, std::vector<Node> replacement);
  // Every reader of `from` (nodes, subgraphs, graph outputs excluded) reads `to` instead.
  void replace_uses(const std::string& from, const std::string& to);
  // Removes node `index` whose output `out` equals its input `in` (a no-op): readers of `out`
  // read `in`. When `out` is a graph output, the producer of `in` is renamed to produce `out`
  // instead (only if `in` has no other reader and is not a graph value). Returns false (and
  // changes nothing) when neither is possible.
  bool bypass(size_t index, const std::string& in, const std::string& out);
  // Makes sure the model imports domain `domain` at `version` (passes adding com.mstools ops).
  void require_domain(const std::string& domain, int64_t version);
  // Re-sorts nodes topologically (stable) and rebuilds the index; called by replace().
  void reindex();

 private:
  Model& m_;
  GraphInferOptions infer_opts_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<size_t>> consumers_;
  std::set<std::string> graph_outputs_, graph_inputs_, names_;
  std::unordered_map<std::string, TypeInfo> types_;
  bool types_complete_ = false;
  int counter_ = 0;
};

}  // namespace ms::passes
