// In-house ONNX opset upgrade (ai.onnx domain) to opset 13, for models ONNX's own version
// converter cannot take (PaddlePaddle's opset-9 exports, for one). Every node whose operator
// definition changed between the model's opset and 13 is rewritten into its opset-13 form with the
// same results: attributes that became inputs (Clip, Slice, Pad, TopK, Squeeze, Unsqueeze,
// ReduceSum, Split, Reshape, Dropout), legacy broadcasting, 2-D coerced Softmax/LogSoftmax/Hardmax,
// Upsample and Resize-10 -> Resize, Scatter -> ScatterElements, and so on. A change with no
// rewrite here is reported as unsupported (exit 3) naming the node, the operator and the version.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/graph.h"

namespace ms::onnx_format {

constexpr int64_t kInHouseUpgradeOpset = 13;

struct OpsetUpgrade {
  int64_t from = 0;
  int64_t to = 0;
  size_t nodes_rewritten = 0;  // nodes whose form changed (attributes moved, nodes inserted, renamed)
};

// Upgrades `m` in place to opset 13. A model already at opset 13 or above is left alone. Throws
// Unsupported (nothing changed) when some node's change has no rewrite.
OpsetUpgrade upgrade_opset_to_13(Model& m);

}  // namespace ms::onnx_format
