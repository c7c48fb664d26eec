// Add, Sub, Mul, Div on rank-4 float32 tensors in oneDNN's channel-blocked layout
// (onednn_util.h), so that the scale/shift, squeeze-excitation and residual ops between two
// convolutions do not force both convolutions to reorder to the plain layout and back.
#pragma once
#include "core/tensor.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {

// y = a op b for an output of shape `out` ([N, C, H, W]), written in the blocked layout into `y`
// (blocked_f32_desc(out).get_size() bytes), channels of the padded last block set to zero.
// a_blocked / b_blocked: how each operand is stored. Each operand must be one of: the output's
// shape, a single element, or per channel ([1, C, 1, 1], [N, C, 1, 1], [C, 1, 1]); false (nothing
// written) otherwise.
bool binary_blocked(BinaryOp op, const Tensor& a, bool a_blocked, const Tensor& b, bool b_blocked, const Shape& out,
                    float* y);

}  // namespace ms::rt
