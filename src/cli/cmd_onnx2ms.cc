// onnx2ms: the second entry point (the `onnx2ms` link to `ms`, or `ms onnx2ms`). It accepts the
// flag style of ONNX-to-MindSpore converters and maps every flag onto the machinery of `ms`:
//   --device          model_check's --target (ascend|gpu|cpu) and the `ms optimize` level, recorded in the model
//   --precision       float16: `ms convert --precision fp16`; int8: `ms quant --quantType FULL_QUANT` (cli/quant_pipeline.h)
//   --calib-data      the calibration samples of int8 (`ms quant --inputFile`)
//   --per-channel     int8 weight scales per output channel (`ms quant --perChannel true`; default per tensor)
//   --enable-optimize `ms optimize` (the general passes; the level of --device)
//   --check-model     `ms model_check --target <device>` on the input and on the result
//   --check           the op-support summary of model_check for the device; writes nothing
//   --dump-graph      the converted graph as Graphviz dot next to the output
// A flag for something not implemented is refused (exit 3) rather than accepted without effect.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "check/check.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/quant_pipeline.h"
#include "quant/quantizer.h"
#include "report/graph_dot.h"

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

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

enum Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
const char* const kLevelNames[] = {"DEBUG", "INFO", "WARNING", "ERROR"};

class Log {
 public:
  explicit Log(Level threshold) : threshold_(threshold) {}
  bool on(Level l) const { return l >= threshold_; }
  void operator()(Level l, const std::string& msg) const {
    if (on(l)) std::cout << kLevelNames[l] << ": " << msg << "\n";
  }

 private:
  Level threshold_;
};

// model_check findings at the log level: the full model_check text at INFO and DEBUG, else only the
// findings at or above the level.
void print_check(const check::CheckReport& r, const Log& log) {
  if (log.on(kInfo)) {
    std::cout << check::format_text(r);
    return;
  }
  for (const auto& f : r.findings) {
    Level l = f.severity == check::Severity::Error ? kError : f.severity == check::Severity::Warning ? kWarning : kInfo;
    std::string subject = !f.node.empty() ? f.node + (f.op.empty() ? "" : " (" + f.op + ")") : f.tensor;
    log(l, fmt::format("model check {}: {} {}: {}", r.file, f.rule, subject, f.message));
  }
}

}  // namespace

int cmd_onnx2ms(const Args& args) {
  CLI::App app("Convert an ONNX model to MindIR (onnx2ms flag style; the machinery of 'ms convert', 'ms optimize', "
               "'ms quant' and 'ms model_check'). Exit 0: written, 1: --check/--check-model found errors, 2: bad "
               "usage or model, 3: a feature that is not implemented (.ms output).",
               "onnx2ms");
  ConvertOptions o;
  std::vector<std::string> input_shapes, output_names;
  std::string device = "Ascend", precision = "float32", log_level = "INFO", calib_data;
  bool enable_optimize = false, check_model = false, check = false, dump = false, per_channel = false;
  app.add_option("--model", o.model_file, "input ONNX model")->required();
  app.add_option("--output", o.output_file,
                 "output MindIR file (.mindir appended when there is no extension). A .ms name (MindSpore Lite "
                 "FlatBuffers) is refused with exit 3: that format is not written yet (with --check nothing is written)");
  app.add_option("--input-shape", input_shapes, "fix an input shape: name:[1,3,640,640] (repeatable or ';'-separated)");
  app.add_option("--output-name,--output-names", output_names, "keep only these outputs (comma-separated)")->delimiter(',');
  app.add_option("--device", device,
                 "Ascend (default) | GPU | CPU, any case: the op-support target of --check/--check-model (model_check "
                 "--target ascend|gpu|cpu), the --enable-optimize level (ms optimize --optimize ascend|general|cpu; "
                 "there is no gpu level: GPU gets the general passes), recorded in the model as ms.device");
  app.add_option("--precision", precision,
                 "float32 (default) | float16 (the half-precision compute form, as 'ms convert --precision fp16': "
                 "activations and weights fp16, normalizations, reductions and Softmax fp32) | int8 (full "
                 "post-training quantization as 'ms quant --quantType FULL_QUANT', calibrated on --calib-data)");
  app.add_option("--calib-data", calib_data,
                 "int8 calibration samples, one per model input, comma-separated, as 'ms quant --inputFile': .bin "
                 "(float32 samples back to back), .npy with a leading sample axis, or a folder of samples or images");
  app.add_flag("--per-channel", per_channel,
               "int8: one weight scale per output channel (default: per layer, one scale per weight tensor); only "
               "with --precision int8");
  app.add_flag("--enable-optimize", enable_optimize,
               "run the 'ms optimize' passes (ConvBNReLU fusion, constant folding, dead code elimination; level from "
               "--device); default: the graph as imported");
  app.add_flag("--check-model", check_model,
               "run model_check (--target from --device) on the input before converting and on the written model; "
               "errors exit 1 (an input with errors is not converted, a result with errors is removed)");
  app.add_flag("--check", check, "only report: Supported ops: N/M, Unsupported ops: [...] for --device (writes nothing; exit 1 when some are unsupported)");
  app.add_flag("--dump-graph", dump, "write the converted graph as Graphviz dot next to the output (model.mindir -> model.dot)");
  app.add_option("--log-level", log_level,
                 "DEBUG (also the settings, passes and metadata) | INFO (default: summaries) | WARNING (warnings and "
                 "errors only) | ERROR (errors only)");
  return run_command(app, args, [&]() -> int {
    const std::string dev = lower(device);
    if (dev != "ascend" && dev != "gpu" && dev != "cpu") fail("--device must be Ascend, GPU or CPU, not '{}'", device);
    const std::string device_name = dev == "ascend" ? "Ascend" : dev == "gpu" ? "GPU" : "CPU";
    const std::string level = dev == "gpu" ? "general" : dev;  // ms optimize has no gpu level
    const std::string prec = lower(precision);
    if (prec != "float32" && prec != "float16" && prec != "int8")
      fail("--precision must be float32, float16 or int8, not '{}'", precision);
    std::string ll = log_level;
    for (auto& c : ll) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto lvl_it = std::find(std::begin(kLevelNames), std::end(kLevelNames), ll);
    if (lvl_it == std::end(kLevelNames)) fail("--log-level must be DEBUG, INFO, WARNING or ERROR, not '{}'", log_level);
    const Log log(static_cast<Level>(lvl_it - std::begin(kLevelNames)));
    if (per_channel && prec != "int8")
      fail("--per-channel sets the granularity of int8 weight scales: it needs --precision int8 (not {})", prec);
    if (!calib_data.empty() && prec != "int8") fail("--calib-data calibrates int8 quantization: it needs --precision int8 (not {})", prec);
    if (prec == "int8" && calib_data.empty() && !check)
      fail("--precision int8 needs calibration data: give --calib-data FILE (.bin, .npy or a folder of samples/images, one per model input)");
    // Before anything is read or written (--check writes nothing, so its --output is only named).
    if (!o.output_file.empty() && !check) refuse_lite_output(o.output_file);
    if (check && (dump || enable_optimize || prec != "float32"))
      fail("--check only reports op support and writes nothing: it excludes --dump-graph, --enable-optimize and --precision {}", prec);
    if (!check && o.output_file.empty()) fail("--output is required unless --check is given");

    o.in_fmt = ModelFormat::Onnx;
    o.out_fmt = ModelFormat::MindIR;
    o.input_shape = to_input_shape_spec(input_shapes);
    o.output_names = output_names;
    o.optimize = enable_optimize ? "general" : "none";
    o.optimize_level = level;
    if (prec == "float16") o.compute_precision = DType::Float16;
    o.quiet = !log.on(kInfo);
    o.metadata = {{"ms.converter", "onnx2ms"},
                  {"ms.device", device_name},
                  {"ms.precision", prec},
                  {"ms.optimize", enable_optimize ? level : "none"}};
    if (prec == "int8") o.metadata["ms.quant_granularity"] = per_channel ? "per-channel" : "per-layer";
    log(kDebug, fmt::format("device {}: op-support target {}, optimize level {}{}", device_name, dev,
                            enable_optimize ? level : "none (no --enable-optimize)", dev == "gpu" ? " (there is no gpu level)" : ""));
    log(kDebug, fmt::format("precision {}{}", prec,
                            prec == "int8" ? fmt::format(", calibration data {}, {} weight scales", calib_data, per_channel ? "per-channel" : "per-layer") : ""));

    check::CheckOptions copts;
    copts.target = check::parse_target(dev);
    if (!o.input_shape.empty()) copts.input_shapes = input_shape_map(o.input_shape);
    if (check || check_model) {
      check::CheckReport r = check::check_file(o.model_file, copts);
      if (check_model) {
        print_check(r, log);
        if (r.exit_code() != 0) {
          log(kError, fmt::format("model check of {} (target {}) found {} error(s): not converted", o.model_file, dev,
                                  r.count(check::Severity::Error)));
          return r.exit_code();
        }
      }
      if (check) {
        if (!r.target_summary) return r.exit_code() ? r.exit_code() : 2;
        std::string list;
        for (const auto& u : r.target_summary->unsupported) list += (list.empty() ? "" : ", ") + u;
        std::cout << fmt::format("INFO: Supported ops: {}/{}, Unsupported ops: [{}] (device {})\n", r.target_summary->supported,
                                 r.target_summary->total, list, device_name);
        if (!o.output_file.empty()) log(kInfo, fmt::format("--check writes nothing: {} not written", o.output_file));
        return r.target_summary->unsupported.empty() ? 0 : 1;
      }
    }

    ConvertedModel c = convert_model(o);
    for (const auto& in : c.model.graph.inputs) {
      if (c.model.graph.initializers.count(in.name) || in.type.kind != TypeInfo::Kind::Tensor) continue;
      bool dynamic = !in.type.shape;
      if (in.type.shape)
        for (const auto& d : *in.type.shape) dynamic = dynamic || !d.is_static();
      if (dynamic)
        log(kWarning, fmt::format("input '{}' is {}: dynamic dims; fix them with --input-shape {}:[...]", in.name, in.type.str(), in.name));
    }
    if (c.optimized) {
      if (log.on(kDebug))
        for (const auto& p : c.optimized->passes)
          log(kDebug, p.disabled ? fmt::format("pass {}: disabled", p.name)
                                 : fmt::format("pass {}: {} rewrite(s), {} nodes after", p.name, p.stats.rewrites, p.nodes_after));
      log(kInfo, fmt::format("graph optimization completed (level {}): {} -> {} nodes", level, c.optimized->nodes_before,
                             c.optimized->nodes_after));
    }
    if (prec == "int8") {
      if (const int64_t was = quant::upgrade_to_quantizable_opset(c.model); was != c.model.opset())
        log(kInfo, fmt::format("upgraded from opset {} to {} for quantization", was, c.model.opset()));
      quant::check_quantizable_opset(c.model);
      PtqSettings ps;
      ps.opts.type = quant::QuantType::Full;
      ps.opts.per_channel = per_channel;
      ps.input_file = calib_data;
      ps.out_fmt = ModelFormat::MindIR;
      ps.quiet = !log.on(kInfo);
      if (!log.on(kDebug)) ps.copts.progress = [](size_t, size_t) {};
      PtqResult q = run_ptq(std::move(c.model), ps);
      c.model = std::move(q.quantized);
      c.nodes_before = c.model.graph.nodes.size();  // the summary's node count is the quantized graph's
      log(kInfo, fmt::format("int8: {} node(s) quantized ({} weights, {} activations), {} weight scales, weights {} -> {} bytes",
                             q.sum.nodes_quantized, q.sum.weights_quantized, q.sum.activations_quantized,
                             per_channel ? "per-channel" : "per-layer", q.sum.weight_bytes_before, q.sum.weight_bytes_after));
      for (const auto& k : q.sum.kept_float) log(kDebug, "kept float: " + k);
      if (q.score)
        log(kInfo, fmt::format("int8 output cosine vs float32 on the {} calibration sample(s): mean {:.6f}, min {:.6f}",
                               q.evaluation_samples, q.score->mean_cosine, q.score->min_cosine));
    }
    const std::string written = write_converted(c, o);
    for (const auto& [k, v] : o.metadata) log(kDebug, fmt::format("recorded {} = {}", k, v));

    if (check_model) {
      check::CheckOptions ropts;
      ropts.target = copts.target;  // the result's input shapes are fixed already
      check::CheckReport r = check::check_file(written, ropts);
      print_check(r, log);
      if (r.exit_code() != 0) {
        std::error_code ec;
        std::filesystem::remove(written, ec);
        log(kError, fmt::format("model check of the result {} (target {}) found {} error(s): removed it", written, dev,
                                r.count(check::Severity::Error)));
        return r.exit_code();
      }
    }
    if (dump) {
      std::string dot = std::filesystem::path(written).replace_extension(".dot").string();
      report::write_graph_dot(load_model(written, ModelFormat::MindIR), dot);
      log(kInfo, fmt::format("graph written to {} (render: dot -Tsvg {} -o graph.svg)", dot, dot));
    }
    return 0;
  });
}

}  // namespace ms::cli
