// Which operators carry a weight that post-training quantization may store as int8, and along
// which axis its output channels lie (per-channel scales). Kept beside the op definitions so that
// src/quant/ reads this answer instead of switching on op names itself.
#pragma once
#include <optional>

#include "core/graph.h"

namespace ms {

// Vectors, read from one input or output of the node, that the rows of one of its weights are
// dotted with: the last axis of that tensor, or Conv's kernel windows.
struct ReducedVectors {
  int weight = 1;       // the node input holding the weight they serve
  int input = -1;       // the node input they are read from...
  int output = -1;      // ...or the node output (a recurrent op's hidden states)
  bool conv_windows = false;  // each vector is a kernel window over C/group channels of X [N, C, ...]
  // The axis of that tensor that picks the weight's slice (a recurrent op's direction); -1: none.
  int slice_axis = -1;
};

struct QuantWeightSpec {
  int input = 1;         // the node input that holds the weight
  int channel_axis = 0;  // output-channel axis of that weight (for a weight of the given rank)
  // Inputs whose float activations a full quantization precedes with QuantizeLinear/DequantizeLinear.
  std::vector<int> activation_inputs;
  // For bias correction (y = W x + b summed over the weight's reduction axis): the input holding a
  // per-output-channel bias (-1: the op has none), the weight axis that is summed against the
  // activation, the axis of input 0 that holds those channels, and the channel groups (Conv group).
  int bias_input = -1;
  int reduce_axis = -1;
  int activation_channel_axis = -1;
  int groups = 1;
  double bias_scale = 1;  // the bias is added times this (Gemm beta)
  // Blocked (4-bit) weights: the weight is also summed over every axis after reduce_axis (Conv's
  // kernel window), so blocks run over the flattened trailing axes.
  bool reduce_trailing = false;
  // The axis of output 0 that holds the weight's output channels when the output is linear in each
  // channel's weights (a per-channel factor of the weight can move after the op); negative counts
  // from the end; nullopt when no such axis exists (recurrent ops).
  std::optional<int> output_channel_axis;
  // Further weight inputs quantized the same way along the same channel axis (LSTM/GRU/RNN's
  // recurrence weights R).
  std::vector<int> more_weights;
  // Where the vectors that each weight row is dotted with can be read, for rounding a weight to
  // calibration data (quant/weight_rounding.h); empty when they cannot be (the op then rounds to
  // nearest).
  std::vector<ReducedVectors> reduced_vectors;
};

// nullopt when the node (default domain only) has no quantizable weight. `weight_rank` is the rank
// of the node's weight input; the channel axis of MatMul/Gemm depends on it and on transB.
std::optional<QuantWeightSpec> quant_weight_spec(const Node& node, int weight_rank);

}  // namespace ms
