// A readable, stable text form of a graph: one line per node, used for golden before/after tests
// of the passes and for debugging. Example:
//   graph g (x: float32[1,3,8,8]) -> (y)
//     init w: float32[4,3,3,3]
//     y = com.mstools.FusedConv(x, w, b) {activation="Relu", kernel_shape=[3,3]}
#pragma once
#include <string>

#include "core/graph.h"

namespace ms {

std::string graph_to_text(const Graph& g);

}  // namespace ms
