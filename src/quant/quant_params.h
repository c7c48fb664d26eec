// From a float range or a weight tensor to linear quantization parameters (ONNX semantics:
// x ~= (q - zero_point) * scale).
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "quant/observer.h"

namespace ms::quant {

struct ActivationParams {
  float scale = 1;
  int32_t zero_point = 0;
  DType dtype = DType::UInt8;  // uint8 asymmetric, int8 symmetric
};
// The range is widened to contain 0 (so that zero, padding's value, is exact).
ActivationParams activation_params(Range r, bool symmetric);

struct QuantizedWeight {
  Tensor q;           // int8 (int4 for blocked 4-bit weights), the weight's shape or the 2-D view quantized
  Tensor scale;       // float32: [channels] per channel, scalar per tensor, q's shape with ceil(dim/block) along axis when blocked
  Tensor zero_point;  // int8 zeros, scale's shape; undefined for blocked weights (symmetric: ONNX's default 0)
  int axis = -1;      // channel axis, -1 per tensor; the blocked axis when block_size > 0
  int64_t block_size = 0;  // > 0: one scale per block of this many consecutive elements along axis
};
// Symmetric, narrow range ([-127, 127] for 8 bits, so that -q is representable): per channel
// along `axis`, or per tensor with axis -1. An all-zero channel gets scale 1.
QuantizedWeight quantize_weight(const Tensor& w, int axis, int bits = 8);
// Symmetric, narrow range ([-7, 7] for 4 bits, int4; [-127, 127] for 8), one scale per block of
// `block` consecutive elements along `axis` (ONNX opset 21's blocked DequantizeLinear); the last
// block may be short.
QuantizedWeight quantize_weight_blocked(const Tensor& w, int axis, int64_t block, int bits = 4);
// The index into qw.scale of the scale that element k of qw.q (row-major in q's shape) is read with.
int64_t scale_index(const QuantizedWeight& qw, int64_t k);
// The float32 values a DequantizeLinear of `qw` produces: q * scale (zero points are 0), in q's shape.
Tensor dequantize_weight(const QuantizedWeight& qw);
// Names a weight by its dtype, shape and a digest of its bytes: copies of one weight (an If branch
// folds its own) get the same key, and so the same rounding.
std::string weight_content_key(const Tensor& w);
// Bytes `t` takes in a file: 4-bit integers are packed two per byte.
size_t stored_bytes(const Tensor& t);

}  // namespace ms::quant
