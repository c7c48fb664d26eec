// The conversion machinery shared by `ms convert` and the `onnx2ms` entry point.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"
#include "formats/model_io.h"

namespace ms::cli {

struct ConvertOptions {
  ModelFormat in_fmt = ModelFormat::Onnx;
  std::string model_file;
  std::string output_file;           // extension added when missing
  ModelFormat out_fmt = ModelFormat::MindIR;
  std::string input_shape;           // "a:1,3,224,224;b:1,16"
  std::vector<std::string> output_names;  // keep only these outputs (empty = all)
  std::string input_layout = "NHWC";     // TFLite/TF rank-4 inputs: NHWC (as in the file) or NCHW
  bool keep_layout = false;              // TFLite/TF: every tensor keeps the file's layout (--keepLayout)
  std::string optimize = "basic";    // none|basic|general
  bool fp16 = false;
  bool quiet = false;
};

// "a:1,3,224,224;b:1,16" -> fixes those inputs' dims; unknown names are an error.
void apply_input_shapes(Model& m, const std::string& spec);
// Graph outputs get the types inference works out now (after apply_input_shapes: [?,10] -> [1,10]).
void refresh_output_types(Model& m);
// Loads, transforms and writes; prints the summary. Returns the path written.
std::string run_conversion(const ConvertOptions& o);

}  // namespace ms::cli
