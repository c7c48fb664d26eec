// Graph-level type and shape inference over the op registry's per-op infer functions.
//
// Walks the graph in node order (subgraphs of If/Loop/Scan recursively, with the outer scope
// visible), feeding each op's InferFn the types of its inputs and the constant value of inputs
// that are known at compile time: initializers, Constant nodes, and the outputs of small nodes
// whose inputs are all constant (folded with the reference kernel; Shape/Size of a statically
// shaped value folds too). Symbolic dims are kept by name.
//
// Inference never throws for a bad graph: a node whose infer function fails is recorded as an
// InferFailure (node name, op, input types, reason) and its outputs become unknown, so later
// nodes that depend on it are skipped instead of failing in cascade. Ops without an infer
// function get their outputs from folding or from the graph's declared value_info, else unknown.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"

namespace ms {

struct GraphInferOptions {
  // Overrides the shape of main-graph inputs by name (the --inputShape of the CLI).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Fold a node with the reference kernel when all inputs are constant and inputs and outputs
  // together hold at most this many elements.
  int64_t fold_limit = 1 << 16;
};

struct InferFailure {
  const Graph* graph = nullptr;  // the (sub)graph holding the node
  size_t node_index = 0;
  std::string node_name;
  std::string op_type;
  std::string domain;
  std::string input_types;  // "float32[1,3,4], int64[2]"
  std::string reason;       // what the op's infer function said
  bool inputs_static = false;  // every input had a known dtype and a fully static shape
  // "cannot infer output shape of node X (Reshape): <reason> (inputs: ...)"
  std::string message() const;
};

struct GraphInference {
  // Per (sub)graph, the types of the values it defines: inputs, initializers, node outputs.
  std::map<const Graph*, std::unordered_map<std::string, TypeInfo>> types;
  // Per (sub)graph, the values known at compile time (initializers, Constant nodes, folded nodes).
  std::map<const Graph*, std::unordered_map<std::string, Tensor>> constants;
  // Outer graph of each subgraph (nullptr for the main graph).
  std::map<const Graph*, const Graph*> parent;
  std::vector<InferFailure> failures;  // in the order met

  // Type of `name` as seen from graph `g` (outer scopes searched too); nullptr when unknown.
  const TypeInfo* type_of(const Graph& g, const std::string& name) const;
  const Tensor* constant_of(const Graph& g, const std::string& name) const;
};

GraphInference infer_graph(const Model& model, const GraphInferOptions& opts = {});

// "float32[1,3,224,224]", "?" for unknown; used in messages.
std::string type_str(const TypeInfo* t);

}  // namespace ms
