// Reading and writing models by format, chosen from --fmk or the file extension.
#pragma once
#include <string>

#include "core/graph.h"

namespace ms {

enum class ModelFormat { Auto, Onnx, MindIR, TFLite, TF };

ModelFormat parse_model_format(const std::string& fmk);  // "ONNX", "MINDIR", ...; error on others
Model load_model(const std::string& path, ModelFormat fmt = ModelFormat::Auto);
// Writes through a temporary file renamed into place. Returns the path written (a MindIR model whose
// weights exceed 1 GiB is written split, as `<prefix>_graph.mindir` + `<prefix>_variables/`).
std::string save_model(const Model& model, const std::string& path, ModelFormat fmt);

}  // namespace ms
