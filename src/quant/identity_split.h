// Re-parameterized networks (RepVGG, MobileOne, PP-LCNetV3) fold an identity branch into square
// 1×1 convolutions: W = diag(d) + W_off, with d often a row's largest element by far. That element
// sets the row's int8 step and coarsens every other weight of the row (PaddleOCR v4 rec's last
// 480×480 layer: weight error 3.0% rounded as is, 0.9% without its diagonal). Taking the diagonal
// out is exact:
//   Conv1x1(x, W) + b = Conv1x1(x, W − diag(d)) + b + d ⊙ x
// (stride 1, no padding, one group, as many input as output channels; d broadcast over the
// channel axis), so the convolution is quantized without it and d multiplies x in float: C floats
// and one Mul and Add more.
#pragma once
#include <cstddef>

#include "core/graph.h"
#include "quant/quantizer.h"

namespace ms::quant {

// A split must bring the weight's int8 error (per channel, to nearest) to at most this share of
// the unsplit weight's: a diagonal that is not the rows' outlier is left alone.
constexpr double kIdentitySplitGain = 0.7;

// Splits, in `m`'s main graph and its bodies, every square 1×1 convolution whose weight
// quantize_model would quantize and whose diagonal dominates as above. Returns how many.
size_t split_identity_from_convs(Model& m, const QuantOptions& opts);

}  // namespace ms::quant
