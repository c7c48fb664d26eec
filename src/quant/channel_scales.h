// Per-channel weight scales moved after the op, for weight-only models written as MindIR.
//
// MindIR stores a weight's quantization parameters as eleven attribute lists with one element per
// channel (../shared/docs/mindir-format.md §4), about 104 bytes a channel: more than the int8
// weight saves over float32 when a channel holds fewer than ~35 weights, and 40% of PaddleOCR v4
// det's WEIGHT_QUANT file (7,536 channels of 9-384 weights). When the op's output is linear in
// each output channel's weights and the scales are positive,
//   Conv(x, q ⊙ s) + b = (Conv(x, q) + b / s) ⊙ s       (s broadcast over Y's channel axis)
//   x · (q ⊙ s) + β c  = (x · q + β c / s) ⊙ s           (MatMul/Gemm, s over Y's last axis)
// so the weight keeps one per-tensor scale of 1 and a float Mul by s (4 bytes a channel) follows
// the op: the same arithmetic in other words. Weights whose channels are long enough that the
// per-channel parameters cost little (kNativeParamShare of the int8 bytes) keep MindSpore's form.
#pragma once
#include <cstddef>

#include "core/graph.h"

namespace ms::quant {

// Estimated MindIR bytes of one channel's linear_quant parameters (eleven one-element lists).
constexpr size_t kMindIRChannelParamBytes = 104;
// Per-channel parameters stay on the weight while they cost at most this share of its int8 bytes.
constexpr double kNativeParamShare = 0.05;

// Rewrites, in `m`'s main graph and its If/Loop/Scan bodies, every DequantizeLinear of an int8
// weight with per-channel scales (zero points 0) whose one consumer can take the scale after it
// (QuantWeightSpec::output_channel_axis) and whose channels are short. Returns how many moved.
size_t move_channel_scales_after_ops(Model& m);

}  // namespace ms::quant
