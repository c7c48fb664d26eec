#include "ops/quant_weight.h"

namespace ms {

std::optional<QuantWeightSpec> quant_weight_spec(const Node& node, int weight_rank) {
  if (!node.domain.empty()) return std::nullopt;
  if (node.op_type == "Conv") {  // W is [M, C/group, k...], X is [N, C, ...]
    const Attribute* g = node.attr("group");
    QuantWeightSpec s{.input = 1, .channel_axis = 0, .activation_inputs = {0}};
    s.bias_input = 2, s.reduce_axis = 1, s.activation_channel_axis = 1, s.groups = g ? int(g->i) : 1;
    s.reduce_trailing = true;
    s.output_channel_axis = 1;  // Y is [N, M, ...]
    s.reduced_vectors = {{.weight = 1, .input = 0, .conv_windows = true}};
    return s;
  }
  if (node.op_type == "Gemm") {
    const Attribute* ta = node.attr("transA");
    const Attribute* tb = node.attr("transB");
    const bool trans_b = tb && tb->i;
    // B is [K, N], or [N, K] when transposed: N is the output-channel axis. A is [M, K] or [K, M].
    QuantWeightSpec s{.input = 1, .channel_axis = trans_b ? 0 : 1, .activation_inputs = {0}};
    s.bias_input = 2, s.reduce_axis = trans_b ? 1 : 0, s.activation_channel_axis = ta && ta->i ? 0 : 1;
    if (const Attribute* beta = node.attr("beta")) s.bias_scale = beta->f;
    s.output_channel_axis = -1;  // Y is [M, N]
    if (!(ta && ta->i)) s.reduced_vectors = {{.weight = 1, .input = 0}};  // A's rows
    return s;
  }
  if (node.op_type == "MatMul") {
    // B is [..., K, N]; a MatMul of two activations quantizes both inputs, no weight.
    QuantWeightSpec s{.input = 1, .channel_axis = weight_rank >= 2 ? weight_rank - 1 : 0, .activation_inputs = {0, 1}};
    s.reduce_axis = weight_rank >= 2 ? weight_rank - 2 : 0;
    if (weight_rank >= 2) s.output_channel_axis = -1;  // Y is [..., N]
    if (weight_rank == 2) s.reduced_vectors = {{.weight = 1, .input = 0}};  // A's rows
    return s;
  }
  if (node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN") {
    // W is [directions, gates * hidden, input], R [directions, gates * hidden, hidden]: each row
    // (one gate unit) is a channel. Activations stay float: the recurrence runs in float.
    QuantWeightSpec s{.input = 1, .channel_axis = 1, .activation_inputs = {}};
    s.reduce_axis = 2;
    s.more_weights = {2};
    // W reads X's rows. R reads the hidden state before each step: initial_h, and Y's steps (the
    // last one too, which no step reads: one extra vector in seq_length, kept for simplicity). Both
    // per direction.
    const Attribute* layout = node.attr("layout");
    const bool batch_first = layout && layout->i == 1;  // X [batch, seq, input], Y [batch, seq, dirs, hidden]
    s.reduced_vectors = {{.weight = 1, .input = 0},
                         {.weight = 2, .input = 5, .slice_axis = batch_first ? 1 : 0},
                         {.weight = 2, .output = 0, .slice_axis = batch_first ? 2 : 1}};
    return s;
  }
  return std::nullopt;
}

}  // namespace ms
