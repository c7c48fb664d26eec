#include "ops/quant_weight.h"

namespace ms {

std::optional<QuantWeightSpec> quant_weight_spec(const Node& node, int weight_rank) {
  if (!node.domain.empty()) return std::nullopt;
  if (node.op_type == "Conv") return QuantWeightSpec{1, 0, {0}};  // W is [M, C/group, k...]
  if (node.op_type == "Gemm") {
    const Attribute* tb = node.attr("transB");
    // B is [K, N], or [N, K] when transposed: N is the output-channel axis.
    return QuantWeightSpec{1, tb && tb->i ? 0 : 1, {0}};
  }
  if (node.op_type == "MatMul") {
    // B is [..., K, N]; a MatMul of two activations quantizes both inputs, no weight.
    return QuantWeightSpec{1, weight_rank >= 2 ? weight_rank - 1 : 0, {0, 1}};
  }
  return std::nullopt;
}

}  // namespace ms
