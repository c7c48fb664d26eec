// Runs one op's reference kernel on tensors, outside any graph: composite reference kernels
// (the fused ops) are built from the kernels of the ops they stand for, so they cannot drift
// from them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ops/op.h"

namespace ms {

// Calls the reference kernel of (domain, op_type) with `inputs` (an undefined Tensor = omitted
// optional input) and returns its first `num_outputs` outputs. The temporary node is named
// `node_name` (the calling node's name) so that error messages point at the node in the model.
std::vector<Tensor> call_reference(const std::string& op_type, const std::vector<Tensor>& inputs,
                                   const std::map<std::string, Attribute>& attrs, int opset,
                                   const std::string& node_name, size_t num_outputs = 1,
                                   const std::string& domain = "");

}  // namespace ms
