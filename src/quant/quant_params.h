// From a float range or a weight tensor to linear quantization parameters (ONNX semantics:
// x ~= (q - zero_point) * scale).
#pragma once
#include <cstdint>

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
  Tensor q;           // int8, the weight's shape
  Tensor scale;       // float32: [channels] per channel, scalar per tensor
  Tensor zero_point;  // int8 zeros, scale's shape
  int axis = -1;      // channel axis, -1 per tensor
};
// Symmetric, narrow range ([-127, 127] for 8 bits, so that -q is representable): per channel
// along `axis`, or per tensor with axis -1. An all-zero channel gets scale 1.
QuantizedWeight quantize_weight(const Tensor& w, int axis, int bits = 8);
// The float32 values a DequantizeLinear of `qw` produces: q * scale (zero points are 0).
Tensor dequantize_weight(const QuantizedWeight& qw);

}  // namespace ms::quant
