// Blocked DequantizeLinear and int4 tensors exist from ONNX opset 21 (IR version 10) on, and a
// model has one opset per domain: a model with 4-bit weights is raised to opset 21 as a whole. The
// operators whose definition changed between the model's opset (13..20) and 21 in a way its nodes
// depend on are rewritten into their opset-21 form with the same results; a change with no rewrite
// here is reported as unsupported (exit 3) naming the node.
#pragma once
#include "core/graph.h"

namespace ms::quant {

// Rewrites `m` (main graph and bodies) to ai.onnx opset 21 and IR version >= 10. Returns the number
// of nodes rewritten. A model at opset 21 or later is left as it is.
size_t raise_opset_to_21(Model& m);

}  // namespace ms::quant
