#include "core/tensor_origin.h"

#include <nlohmann/json.hpp>

namespace ms {

TensorOriginMap read_tensor_origin(const Model& m) {
  TensorOriginMap origin;
  auto it = m.metadata.find(kTensorOriginKey);
  if (it == m.metadata.end()) return origin;
  const std::string file = m.source_path.empty() ? "model" : m.source_path;
  nlohmann::json j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    fail("{}: metadata '{}' must be a JSON object {{\"new tensor\": \"original tensor\", ...}}", file,
         kTensorOriginKey);
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) fail("{}: metadata '{}': the entry for '{}' is not a string", file, kTensorOriginKey, k);
    origin[k] = v.get<std::string>();
  }
  return origin;
}

void write_tensor_origin(Model& m, const TensorOriginMap& origin) {
  if (origin.empty()) {
    m.metadata.erase(kTensorOriginKey);
    return;
  }
  m.metadata[kTensorOriginKey] = nlohmann::json(origin).dump();
}

void record_tensor_origin(Model& m, const std::string& new_name, const std::string& old_name) {
  TensorOriginMap origin = read_tensor_origin(m);
  std::string root = tensor_origin_root(origin, old_name);
  if (root == new_name)
    origin.erase(new_name);  // renamed back to the original name: nothing left to record
  else
    origin[new_name] = root;
  write_tensor_origin(m, origin);
}

const std::string& tensor_origin_root(const TensorOriginMap& origin, const std::string& name) {
  auto it = origin.find(name);
  return it == origin.end() ? name : it->second;
}

}  // namespace ms
