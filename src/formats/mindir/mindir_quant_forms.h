// ONNX quantization ops in MindSpore primitives where those compute them exactly.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// DynamicQuantizeLinear(x) -> (y uint8, scale, zero_point) from ReduceMin / ReduceMax / RealDiv /
// Round / ClipByValue / Cast (float32 arithmetic, as the op defines it). MindSpore Lite's
// DynamicQuant keeps its scale and zero point inside the quantized tensor instead of returning
// them, so it cannot stand for the three-output ONNX op.
void export_dynamic_quantize_linear(WriteCtx& c);

// MatMulInteger(a, b, a_zero_point, b_zero_point) -> MatMul / BatchMatMul of int32 operands with
// the zero points subtracted (exact integer arithmetic, as the op defines it); a per-row
// a_zero_point is reshaped to a column.
void export_mat_mul_integer(WriteCtx& c);

// ConvInteger(x, w, x_zero_point, w_zero_point) -> the same int32 product as an im2col: the
// shifted int32 input zero-padded (padding adds nothing, as the op defines it), one StridedSlice
// per kernel tap, concatenated per group into [N, G, C/G·K, O] and multiplied by the shifted
// weights [G, M/G, C/G·K] in one BatchMatMul (MindSpore's Conv2D takes float types only, and a
// float convolution is not exact). Needs static spatial input dims and explicit pads.
void export_conv_integer(WriteCtx& c);

// QLinearMatMul: the same int32 product, then y = clip(round(float(acc) * (a_scale * b_scale /
// y_scale)) + y_zero_point) cast to y's 8-bit type, the multiplier in float32 as the op computes it.
void export_qlinear_mat_mul(WriteCtx& c);

}  // namespace ms::mindir
