// Arithmetic cost of one node execution for profiling: floating-point operations counted as
// multiply-adds x 2 for convolutions and matrix products, one per output element for elementwise
// ops, and a few per element for normalizations and softmax. Shapes are those of the actual run.
#pragma once
#include <vector>

#include "ops/op.h"

namespace ms {

// FLOPs of `node` given its input and output shapes (an empty shape for an absent input).
// Data-movement ops (Reshape, Transpose, Concat, ...) cost 0.
double op_flops(const Node& node, const OpDef& def, const std::vector<Shape>& inputs, const std::vector<Shape>& outputs);

}  // namespace ms
