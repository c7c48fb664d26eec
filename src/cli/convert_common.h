// The conversion machinery shared by `ms convert` and the `onnx2ms` entry point.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "formats/model_io.h"
#include "passes/pipelines.h"

namespace ms::cli {

struct ConvertOptions {
  ModelFormat in_fmt = ModelFormat::Onnx;
  std::string model_file;
  std::string output_file;           // extension added when missing
  ModelFormat out_fmt = ModelFormat::MindIR;
  std::string input_shape;           // "a:1,3,224,224;b:1,16"
  std::string rename_io;             // "input:0=input,old=new" (after input_shape and output_names)
  std::vector<std::string> output_names;  // keep only these outputs (empty = all)
  std::string input_layout = "NHWC";     // TFLite/TF rank-4 inputs: NHWC (as in the file) or NCHW
  bool keep_layout = false;              // TFLite/TF: every tensor keeps the file's layout (--keepLayout)
  std::string optimize = "basic";    // none|basic|general
  std::string optimize_level = "general";  // the pipeline of `ms optimize --optimize` that "general" runs: general|cpu|ascend
  std::map<std::string, std::string> metadata;  // recorded in the written model (MindIR user_info, ONNX metadata_props)
  bool fp16 = false;
  // Float16/BFloat16: write the half-precision compute form (passes::to_half_compute_form).
  DType compute_precision = DType::Float32;
  bool quiet = false;
};

// --inputShape "a:1,3,224,224;b:1,16" (brackets allowed: "a:[1,3,224,224]"); "name:[]" is a scalar
// (rank 0; "name:" alike). The entries in order; a malformed entry is an error (exit 2) naming it.
// Every command's --inputShape goes through this parser (model_check's too).
std::vector<std::pair<std::string, std::vector<int64_t>>> parse_input_shapes(const std::string& spec);
// The same as a map (what check::CheckOptions and the inference options take).
std::map<std::string, std::vector<int64_t>> input_shape_map(const std::string& spec);
// Fixes those inputs' dims (parse_input_shapes); an input of unknown rank (TF1's unshaped
// Placeholders) takes the rank given, a scalar included. Unknown names are an error.
void apply_input_shapes(Model& m, const std::string& spec);
// "input:0=input,old=new": renames graph inputs and outputs, and every use of them (nodes, subgraphs
// that read them, value_info, initializers of inputs that have one); recorded in ms.tensor_origin.
// An unknown name, a new name that is not [A-Za-z_][A-Za-z0-9_]*, or one that clashes with another
// value is an error (exit 2) naming it.
void rename_io(Model& m, const std::string& spec);
// load_model, then apply_input_shapes and refresh_output_types when `input_shape` is not empty
// (--inputShape of run, benchmark and profile).
Model load_with_input_shapes(const std::string& path, const std::string& input_shape);
// Graph outputs get the types inference works out now (after apply_input_shapes: [?,10] -> [1,10]).
void refresh_output_types(Model& m);
// A MindSpore Lite .ms (FlatBuffers) output path: refused (Unsupported, exit 3), since only MindIR
// protobuf and ONNX are written; nothing is written before this check.
void refuse_lite_output(const std::string& path);
// --saveType MINDIR_LITE (any case): the .ms format, refused the same way by the callers.
bool is_lite_save_type(const std::string& save_type);

// A model loaded and transformed by convert_model, not yet written.
struct ConvertedModel {
  Model model;
  std::string output_path;  // o.output_file with its extension added
  size_t nodes_before = 0;  // before --optimize
  std::optional<passes::OptimizeResult> optimized;  // with --optimize general
  std::chrono::steady_clock::time_point start;
};
// Loads, fixes input shapes, selects outputs and optimizes (nothing written).
ConvertedModel convert_model(const ConvertOptions& o);
// Writes the half-precision compute form (o.compute_precision) or stores the weights as fp16
// (o.fp16), records o.metadata, writes and prints the summary (unless
// o.quiet). Returns the path written.
std::string write_converted(ConvertedModel& c, const ConvertOptions& o);
// convert_model + write_converted.
std::string run_conversion(const ConvertOptions& o);

}  // namespace ms::cli
