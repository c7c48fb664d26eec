// Node order. Graphs are executed and rewritten in node order, but exporters do not always write
// nodes sorted (onnxconverter-common's float16 conversion, for one, appends its Casts at the end).
#pragma once
#include "core/graph.h"

namespace ms {

// Re-orders g.nodes topologically and stably: among the nodes whose inputs are ready, the earliest
// first, so a sorted graph keeps its order. Values read by a node's subgraphs count as its inputs.
// Returns false, leaving the order unchanged, when the nodes form a cycle (the verifier reports it).
bool sort_nodes_topologically(Graph& g);

}  // namespace ms
