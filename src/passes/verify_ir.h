// The IR verifier run between passes (--verifyEach): structural invariants every pass must keep.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::passes {

// Problems found in the main graph, each naming the node or value ("" list = valid):
// every op known to the registry with an input count its schema allows; every value produced
// once; every node input defined before it (graph input, initializer or earlier output); every
// graph output defined; the domain of every node imported by the model.
std::vector<std::string> verify_ir(const Model& m);

}  // namespace ms::passes
