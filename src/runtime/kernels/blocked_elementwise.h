// Elementwise kernels between blocked convolutions: an elementwise op is layout-agnostic as long
// as all its full-size operands share one layout, so it can run over the blocked buffer (padding
// included) and spare the convolutions on both sides their reorders. Used by the unary and binary
// kernels for rank-4 values the session placed in the blocked layout.
#pragma once
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace ms::rt {

struct BlockedOperand {
  const Tensor* tensor;  // a full-size rank-4 operand
  bool blocked;          // how it is stored
};

// Brings every operand to the blocked layout of `shape` (reordering plain ones into temporaries),
// calls body(operand pointers, out, floats in the blocked buffer), and returns the result stored
// blocked when `out_blocked`, else reordered to plain.
Tensor blocked_elementwise(const std::vector<BlockedOperand>& operands, const Shape& shape, bool out_blocked,
                           const std::function<void(const std::vector<const float*>&, float*, int64_t)>& body);

}  // namespace ms::rt
