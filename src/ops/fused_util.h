// Helpers shared by the fused ops (fused_conv.cc, fused_gemm.cc, fused_mat_mul.cc).
#pragma once
#include <map>
#include <string>

#include "ops/fused_activation.h"
#include "ops/op.h"

namespace ms {

// Declares `activation` and `activation_params` on a fused op's schema.
inline OpDef& with_fused_activation(OpDef& def) {
  return def.attr_string("activation", "").attr_floats("activation_params");
}

// The node's attributes without the fused-activation ones: what the op it extends reads.
inline std::map<std::string, Attribute> base_op_attrs(const Node& n) {
  std::map<std::string, Attribute> a = n.attrs;
  a.erase("activation");
  a.erase("activation_params");
  return a;
}

// Inference of a fused op = inference of the op it extends (same attribute names), after checking
// the activation attributes.
inline void infer_as(InferContext& ctx, const std::string& base_op) {
  fused_activation_attrs(ctx);
  OpRegistry::global().find("", base_op)->infer(ctx);
}

}  // namespace ms
