// Constant 8-bit weights with zero points (ConvInteger, MatMulInteger) in the form oneDNN's int8
// primitives take: s8 values and no weight zero point (oneDNN 2.x accepts only zero there). What
// oneDNN cannot subtract, the kernels subtract afterwards:
//
//   uint8 weights:  W − wz = (W − 128) − (wz − 128)      W − 128 and wz − 128 both lie in [−128, 127]
//   so with W8 = W − 128 (or W itself when int8) and wz8 = wz − 128 (or wz):
//     Σ (x − xz)·(W − wz) = Σ (x − xz)·W8  −  wz8 · Σ (x − xz)
//   the first term is the primitive's (with x's zero point), the second a window / row sum of the
//   activations times a per-output-channel constant, exact in int32 like the first.
//   When every W − wz already lies in [−128, 127] (int8 weights with zero point 0, or uint8 weights
//   quantized around 128), W8 = W − wz and wz8 = 0: nothing is left to subtract.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace ms::rt {

struct S8Weights {
  Tensor values;            // int8, the weights' shape
  std::vector<int32_t> zp;  // wz8 per output channel; empty when all are zero
};

// `w` int8 or uint8; `zp` (may be null = 0) a scalar or one value per output channel, of w's
// dtype. Output channels are the leading axis (`channel_axis_first`, ConvInteger's M) or the last
// (MatMulInteger's B[K, N]). Returns false (nothing set) for other dtypes or zero-point sizes.
bool to_s8_weights(const Tensor& w, const Tensor* zp, bool channel_axis_first, S8Weights& out);

}  // namespace ms::rt
