#include "runtime/kernels/activation.h"

#include <limits>

namespace ms::rt {

std::optional<Activation> activation_from(const std::string& name, const std::vector<float>& p) {
  using K = Activation::Kind;
  auto param = [&](size_t i, float def) { return i < p.size() ? p[i] : def; };
  if (name.empty()) return Activation{};
  if (name == "Relu") return Activation{K::Relu};
  if (name == "LeakyRelu") return Activation{K::LeakyRelu, param(0, 0.01f)};
  if (name == "Clip")
    return Activation{K::Clip, param(0, std::numeric_limits<float>::lowest()), param(1, std::numeric_limits<float>::max())};
  if (name == "Sigmoid") return Activation{K::Sigmoid};
  if (name == "Tanh") return Activation{K::Tanh};
  if (name == "HardSigmoid") return Activation{K::HardSigmoid, param(0, 0.2f), param(1, 0.5f)};
  if (name == "HardSwish") return Activation{K::HardSwish};
  if (name == "Swish") return Activation{K::Swish};
  if (name == "Gelu") return Activation{K::GeluErf};
  return std::nullopt;
}

void append_eltwise(dnnl::post_ops& ops, const Activation& a) {
  using K = Activation::Kind;
  using alg = dnnl::algorithm;
  switch (a.kind) {
    case K::None: return;
    case K::Relu: ops.append_eltwise(1.f, alg::eltwise_relu, 0.f, 0.f); return;
    case K::LeakyRelu: ops.append_eltwise(1.f, alg::eltwise_relu, a.alpha, 0.f); return;
    case K::Clip: ops.append_eltwise(1.f, alg::eltwise_clip_v2, a.alpha, a.beta); return;
    case K::Sigmoid: ops.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f); return;
    case K::Tanh: ops.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f); return;
    // hard_sigmoid(x) = max(0, min(1, alpha*x + beta)); HardSwish = x * hard_sigmoid(x) with 1/6, 1/2.
    case K::HardSigmoid:
      ops.append_eltwise(1.f, alg::eltwise_linear, a.alpha, a.beta);
      ops.append_eltwise(1.f, alg::eltwise_clip_v2, 0.f, 1.f);
      return;
    // oneDNN 2.6's hardswish has ONNX's fixed constants (x * max(0, min(1, x/6 + 1/2))).
    case K::HardSwish: ops.append_eltwise(1.f, alg::eltwise_hardswish, 0.f, 0.f); return;
    case K::GeluErf: ops.append_eltwise(1.f, alg::eltwise_gelu_erf, 0.f, 0.f); return;
    case K::Swish: ops.append_eltwise(1.f, alg::eltwise_swish, 1.f, 0.f); return;
  }
}

}  // namespace ms::rt
