// onnx2ms: the second entry point (the `onnx2ms` link to `ms`, or `ms onnx2ms`). It accepts the
// flag style of ONNX-to-MindSpore converters and maps it onto `ms convert`'s machinery.
#include <iostream>
#include <set>

#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "formats/mindir/mindir_writer.h"
#include "passes/basic_passes.h"
#include "runtime/session.h"

namespace ms::cli {

namespace {

// "--input-shape images:[1,3,640,640]" (repeatable, or ';'-separated) -> "images:1,3,640,640;..."
std::string to_input_shape_spec(const std::vector<std::string>& items) {
  std::string spec;
  for (const auto& group : items)
    for (auto item : split_list(group, ';')) {
      std::string s;
      for (char ch : item)
        if (ch != '[' && ch != ']' && ch != ' ') s += ch;
      spec += (spec.empty() ? "" : ";") + s;
    }
  return spec;
}

void dump_graph(const Model& m, std::ostream& os) {
  os << "graph " << m.graph.name << "\n";
  for (const auto& v : m.graph.inputs) os << "  input  " << v.name << " " << v.type.str() << "\n";
  for (const auto& n : m.graph.nodes) {
    os << "  " << n.op_type << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << n.inputs[k];
    os << ") -> ";
    for (size_t k = 0; k < n.outputs.size(); ++k) os << (k ? ", " : "") << n.outputs[k];
    os << "\n";
  }
  for (const auto& v : m.graph.outputs) os << "  output " << v.name << "\n";
}

}  // namespace

int cmd_onnx2ms(const Args& args) {
  CLI::App app("Convert an ONNX model to MindIR (onnx2ms flag style; same machinery as 'ms convert')", "onnx2ms");
  ConvertOptions o;
  std::vector<std::string> input_shapes, output_names;
  std::string device = "Ascend", precision = "float32", log_level = "INFO";
  bool enable_optimize = false, check_model = false, check = false, dump = false, per_channel = false;
  app.add_option("--model", o.model_file, "input ONNX model")->required();
  app.add_option("--output", o.output_file, "output MindIR file (.mindir appended when there is no extension)");
  app.add_option("--input-shape", input_shapes, "fix an input shape: name:[1,3,640,640] (repeatable or ';'-separated)");
  app.add_option("--output-name,--output-names", output_names, "keep only these outputs (comma-separated)")->delimiter(',');
  app.add_option("--device", device, "Ascend | GPU | CPU (target recorded for the conversion)");
  app.add_option("--precision", precision, "float32 | float16 (float16: weights stored as fp16)");
  app.add_flag("--enable-optimize", enable_optimize, "constant folding and dead-node removal");
  app.add_flag("--check-model", check_model, "check the model's structure before converting");
  app.add_flag("--check", check, "only report: Supported ops: N/M, Unsupported ops: [...] (writes nothing)");
  app.add_flag("--dump-graph", dump, "print the converted graph");
  app.add_flag("--per-channel", per_channel, "per-channel weight quantization (use 'ms quant')");
  app.add_option("--log-level", log_level, "DEBUG | INFO | WARNING | ERROR");
  return run_command(app, args, [&]() -> int {
    if (device != "Ascend" && device != "GPU" && device != "CPU") fail("--device must be Ascend, GPU or CPU, not '{}'", device);
    if (precision != "float32" && precision != "float16") fail("--precision must be float32 or float16, not '{}'", precision);
    if (log_level != "DEBUG" && log_level != "INFO" && log_level != "WARNING" && log_level != "ERROR")
      fail("--log-level must be DEBUG, INFO, WARNING or ERROR, not '{}'", log_level);
    o.in_fmt = ModelFormat::Onnx;
    o.out_fmt = ModelFormat::MindIR;
    o.input_shape = to_input_shape_spec(input_shapes);
    o.output_names = output_names;
    o.optimize = enable_optimize ? "basic" : "none";
    o.fp16 = precision == "float16";
    o.quiet = log_level == "ERROR";
    if (check || check_model) {
      Model m = load_model(o.model_file, ModelFormat::Onnx);
      if (!o.input_shape.empty()) apply_input_shapes(m, o.input_shape);
      if (check_model) {
        try {
          Session s(std::make_shared<const Model>(m));
          std::cout << "model check: " << o.model_file << ": ok (" << m.graph.nodes.size() << " nodes)\n";
        } catch (const Error& e) {
          std::cout << "model check: " << o.model_file << ": " << e.what() << "\n";
          return 1;
        }
      }
      if (check) {
        std::set<std::string> all;
        for (const auto& n : m.graph.nodes) all.insert(n.domain.empty() ? n.op_type : n.domain + "." + n.op_type);
        auto bad = mindir::mindir_unsupported_ops(m);
        std::string list;
        for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
        std::cout << "Supported ops: " << all.size() - bad.size() << "/" << all.size() << ", Unsupported ops: [" << list << "]\n";
        return bad.empty() ? 0 : 1;
      }
    }
    if (o.output_file.empty()) fail("--output is required unless --check is given");
    if (per_channel && !o.quiet) std::cerr << "onnx2ms: note: --per-channel applies to quantization; run 'ms quant' on the result\n";
    std::string written = run_conversion(o);
    if (dump) dump_graph(load_model(written, ModelFormat::MindIR), std::cout);
    return 0;
  });
}

}  // namespace ms::cli
