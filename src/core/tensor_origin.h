// Tensor correspondence across transformations. A pass, converter or quantizer that removes or
// renames a tensor either gives its replacement the original name or records the replacement in
// Model::metadata["ms.tensor_origin"]: a JSON object {"new name": "original name", ...}. Entries are
// composed, so every value is a name of the original model (a root), however many tools ran.
// `ms compare --layerwise` reads it to pair the intermediate tensors of two models.
#pragma once
#include <map>
#include <string>

#include "core/graph.h"

namespace ms {

inline constexpr const char* kTensorOriginKey = "ms.tensor_origin";

using TensorOriginMap = std::map<std::string, std::string>;  // produced name -> original name

// The model's map (empty when it has none). Malformed metadata is an InvalidInput error naming the
// model file.
TensorOriginMap read_tensor_origin(const Model& m);
void write_tensor_origin(Model& m, const TensorOriginMap& origin);

// Records that `new_name` now stands for `old_name`, composing with what is already recorded
// (if `old_name` itself stands for an original tensor, `new_name` maps to that original).
void record_tensor_origin(Model& m, const std::string& new_name, const std::string& old_name);

// The original name `name` stands for: its entry in the map, or itself.
const std::string& tensor_origin_root(const TensorOriginMap& origin, const std::string& name);

}  // namespace ms
