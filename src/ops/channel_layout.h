// Where an op keeps its output channels: which input is the weight and on which axis of it the
// output channels lie, which input is the bias, and which output axis is the channel axis. The
// optimizer folds per-channel scales and shifts (BatchNormalization, Mul, Add after the op) into
// the weight and bias through this; it never lists op types itself.
#pragma once
#include <optional>

#include "core/graph.h"

namespace ms {

struct ChannelLayout {
  size_t weight_input = 1;
  int weight_axis = 0;     // output channels of W lie on this axis
  size_t bias_input = 2;   // per-output-channel bias (Gemm: C, scaled by beta)
  int output_axis = 1;     // channel axis of the output
  bool bias_scaled_by_beta = false;  // Gemm: y = alpha*A*B + beta*C
};

// Conv; ConvTranspose with group 1 (W is [C, M, k...]: output channels on axis 1); Gemm with 2-D
// output (channels on axis 1; on B's axis 0 when transB, else 1). nullopt for every other node.
std::optional<ChannelLayout> channel_layout_of(const Node& n);

}  // namespace ms
