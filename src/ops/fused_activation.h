// The activations that the fused ops (com.mstools FusedConv, FusedGemm, FusedMatMul) apply after
// their main op, as attribute `activation` (a name) plus `activation_params` (floats):
//   ""            none
//   Relu          max(x, 0)
//   Clip          clamp(x, p[0], p[1])              (Relu6 is Clip 0, 6)
//   Sigmoid       1 / (1 + exp(-x))
//   HardSigmoid   clamp(p[0] * x + p[1], 0, 1)      (alpha, beta)
//   HardSwish     x * clamp(x / 6 + 1/2, 0, 1)
//   LeakyRelu     x >= 0 ? x : p[0] * x             (alpha)
//   Tanh          tanh(x)
//   Swish         x * sigmoid(x)                    (SiLU)
//   Gelu          x * Phi(x)                        (erf form)
// Passes learn here which single nodes are such activations; they never list activation names.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ops/op.h"

namespace ms {

struct FusedActivation {
  std::string name;  // one of the names above; "" = none
  std::vector<float> params;
};

// Throws (naming the node) when `act` is not a known activation or has the wrong parameter count.
void check_fused_activation(const FusedActivation& act, const std::string& node_label);

// When node `n` is a single-node activation a fused op can absorb (its params readable: Clip's
// bounds must be constants, looked up with `constant_of`), returns it.
std::optional<FusedActivation> fusable_activation_of(
    const Node& n, const std::function<const Tensor*(const std::string&)>& constant_of);

// y -> act(y), computed with the reference kernels of the ops the activation names.
Tensor apply_fused_activation(const FusedActivation& act, const Tensor& y, int opset, const std::string& node_name);

// The com.mstools op that computes node `n` followed by an activation: Conv -> FusedConv,
// Gemm -> FusedGemm, MatMul -> FusedMatMul; a fused node without activation -> its own type.
// nullopt when `n` cannot absorb one.
std::optional<std::string> fused_form_of(const Node& n);

// Reads `activation` / `activation_params` of a fused node.
FusedActivation fused_activation_attrs(const AttrReader& r);

}  // namespace ms
