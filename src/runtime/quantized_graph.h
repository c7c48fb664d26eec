// The session's private form of a quantized (QDQ) model, so that it runs on the int8 kernels
// without `ms optimize --optimize cpu` first. A QDQ model, as `ms quant` or ONNX Runtime's
// quantizer write it, computes every convolution in float between DequantizeLinear and
// QuantizeLinear; run as written it dequantizes all weights on every run. The session instead runs
// a copy in which
//   - DequantizeLinear -> Conv/MatMul [-> Add] [-> activation] [-> QuantizeLinear] chains are the
//     int8 ops (QLinearConv, com.mstools QConvFloatOut, QLinearMatMul: passes/fuse_quantized_conv.cc),
//   - the DequantizeLinear nodes those ops no longer read are gone,
//   - a DequantizeLinear of a constant weight that stays float (an op with no int8 kernel, e.g. a
//     Gemm) is a float initializer, computed once instead of on every run.
// Graph inputs and outputs keep their names, and a graph output is never fused away, so a copy
// that exposes intermediate tensors as outputs (analysis/tensor_capture.h) still produces them.
#pragma once
#include <memory>

#include "core/graph.h"

namespace ms::rt {

// `m` itself when there is nothing to rewrite (no DequantizeLinear in the main graph), else the
// rewritten copy.
std::shared_ptr<const Model> prepare_quantized_graph(std::shared_ptr<const Model> m);

}  // namespace ms::rt
