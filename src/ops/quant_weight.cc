#include "ops/quant_weight.h"

namespace ms {

std::optional<QuantWeightSpec> quant_weight_spec(const Node& node, int weight_rank) {
  if (!node.domain.empty()) return std::nullopt;
  if (node.op_type == "Conv") {  // W is [M, C/group, k...], X is [N, C, ...]
    const Attribute* g = node.attr("group");
    QuantWeightSpec s{1, 0, {0}};
    s.bias_input = 2, s.reduce_axis = 1, s.activation_channel_axis = 1, s.groups = g ? int(g->i) : 1;
    return s;
  }
  if (node.op_type == "Gemm") {
    const Attribute* ta = node.attr("transA");
    const Attribute* tb = node.attr("transB");
    const bool trans_b = tb && tb->i;
    // B is [K, N], or [N, K] when transposed: N is the output-channel axis. A is [M, K] or [K, M].
    QuantWeightSpec s{1, trans_b ? 0 : 1, {0}};
    s.bias_input = 2, s.reduce_axis = trans_b ? 1 : 0, s.activation_channel_axis = ta && ta->i ? 0 : 1;
    if (const Attribute* beta = node.attr("beta")) s.bias_scale = beta->f;
    return s;
  }
  if (node.op_type == "MatMul") {
    // B is [..., K, N]; a MatMul of two activations quantizes both inputs, no weight.
    return QuantWeightSpec{1, weight_rank >= 2 ? weight_rank - 1 : 0, {0, 1}};
  }
  return std::nullopt;
}

}  // namespace ms
