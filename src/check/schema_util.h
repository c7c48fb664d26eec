// Helpers shared by the rule families that read ONNX schemas and inferred types.
#pragma once
#include <onnx/defs/schema.h>

#include "check/check.h"

namespace ms::check {

// The ONNX schema of `n` at the model's opset for its domain; nullptr outside ONNX's domains or
// when the op does not exist at that opset.
const onnx::OpSchema* onnx_schema(const Model& m, const Node& n);
// Inferred tensor type of input i (nullptr when absent, unknown or not a tensor).
const TypeInfo* input_type(const Context& ctx, const Graph& g, const Node& n, size_t i);
int input_rank(const Context& ctx, const Graph& g, const Node& n, size_t i);            // -1 unknown
int64_t input_dim(const Context& ctx, const Graph& g, const Node& n, size_t i, int d);  // -1 unknown
// Whether the op's `axis` attribute indexes the first input's dims (so the rank check applies).
bool axis_attr_checked(const std::string& op);

}  // namespace ms::check
