// An activation applied after a fused op (FusedConv, FusedGemm, FusedMatMul) or by the unary
// kernels: the kind plus its parameters (LeakyRelu alpha, Clip min/max, HardSigmoid alpha/beta).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace ms::rt {

struct Activation {
  enum class Kind { None, Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Swish, GeluErf };
  Kind kind = Kind::None;
  float alpha = 0, beta = 0;
};

// A fused op's `activation` / `activation_params` (ops/fused_activation.h names them); nullopt
// when the name is not one the fast path implements.
std::optional<Activation> activation_from(const std::string& name, const std::vector<float>& params);

// Appends the activation as a oneDNN eltwise post-op (no-op for Kind::None).
void append_eltwise(dnnl::post_ops& ops, const Activation& a);

}  // namespace ms::rt
