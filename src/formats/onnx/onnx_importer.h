// ONNX -> IR. Models older than the canonical opset are upgraded with ONNX's version converter
// (after ONNX shape inference, which some adapters need); when the converter cannot handle a model
// it is imported as it is and the kernels see the older operator forms.
#pragma once
#include <string>

#include "core/graph.h"

namespace onnx {
class ModelProto;
}

namespace ms::onnx_format {

constexpr int64_t kCanonicalOpset = 17;

struct ImportOptions {
  bool upgrade_opset = true;
};

Model load_onnx(const std::string& path, const ImportOptions& opts = {});
Model import_onnx_bytes(const std::string& bytes, const std::string& source_path, const ImportOptions& opts = {});
// The same for a model already parsed (by a caller that inspected the proto first, e.g. model_check):
// saves a second parse of the file. `proto` may be modified (opset upgrade).
Model import_onnx_proto(onnx::ModelProto& proto, const std::string& source_path, const ImportOptions& opts = {});

}  // namespace ms::onnx_format
