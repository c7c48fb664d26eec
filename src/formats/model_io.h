// Reading and writing models by format, chosen from --fmk or the file extension.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms {

enum class ModelFormat { Auto, Onnx, MindIR, TFLite, TF };

ModelFormat parse_model_format(const std::string& fmk);  // "ONNX", "MINDIR", ...; error on others
// What an importer needs to know before it reads the file.
struct LoadOptions {
  // TensorFlow graphs: the tensors to import as outputs ("node" or "node:k"); the importer keeps
  // only what they need. Empty = the nodes nobody consumes.
  std::vector<std::string> output_names;
  // TFLite/TF graphs: rank-4 inputs are NHWC as in the file, or "NCHW" (the IR's own layout, no
  // Transpose at the graph's entry).
  std::string input_layout = "NHWC";
  // TFLite/TF graphs: every tensor of the file keeps its layout (NHWC) and name; the layout
  // Transposes around each channels-first op are not cancelled. Excludes input_layout NCHW.
  bool keep_layout = false;
};
Model load_model(const std::string& path, ModelFormat fmt = ModelFormat::Auto, const LoadOptions& opts = {});
// Writes through a temporary file renamed into place. Returns the path written (a MindIR model whose
// weights exceed 1 GiB is written split, as `<prefix>_graph.mindir` + `<prefix>_variables/`).
std::string save_model(const Model& model, const std::string& path, ModelFormat fmt);

}  // namespace ms
