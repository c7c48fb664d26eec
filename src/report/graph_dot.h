// A model's graph as Graphviz dot (`onnx2ms --dump-graph`): one box per node (op type and name),
// ellipses for graph inputs and outputs, an edge per tensor from its producer to each consumer
// labelled with the tensor's name; the nodes of If/Loop/Scan bodies in a cluster per subgraph.
#pragma once
#include <string>

#include "core/graph.h"

namespace ms::report {

// Writes the dot text to `path`; an unwritable path is an error (exit 2) naming it.
void write_graph_dot(const Model& m, const std::string& path);

}  // namespace ms::report
