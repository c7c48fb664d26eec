#include "cli/session_model.h"

#include <chrono>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "core/error.h"
#include "passes/basic_passes.h"
#include "passes/pipelines.h"
#include "runtime/kernels/half_compute.h"

namespace ms::cli {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void add_optimize_flag(CLI::App& app, SessionModelFlags& flags) {
  app.add_option_function<std::string>(
         "--optimize",
         [&flags](const std::string& level) {
           flags.optimize = level;
           flags.optimize_given = true;
         },
         "graph preparation when the session is created: none (as written), basic (half precision lowered "
         "to float32, constants folded) or cpu (basic plus the fusions of `ms optimize --optimize cpu`; default)")
      ->check(CLI::IsMember({"none", "basic", "cpu"}));
  app.add_option("--precision", flags.precision,
                 "compute precision of the convolutions and matrix products: fp32 (default; float16/bfloat16 models "
                 "are computed in float32), fp16 or bf16 (inputs and weights in that type, float32 accumulation; "
                 "native with oneDNN on AVX512-BF16/AMX CPUs for bf16, else emulated by rounding, which is slower)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
}

void add_session_model_flags(CLI::App& app, SessionModelFlags& flags) {
  app.add_option("--inputShape", flags.input_shape, "fix dynamic input dims: \"a:1,3,224,224;b:1,16\"");
  add_optimize_flag(app, flags);
}

SessionModel load_session_model(const std::string& path, const SessionModelFlags& flags,
                                const std::string& default_level) {
  SessionModel s;
  s.compute = precision_type(flags.precision);
  s.level = flags.optimize_given ? flags.optimize : default_level;
  auto t0 = std::chrono::steady_clock::now();
  Model m = load_with_input_shapes(path, flags.input_shape);
  s.load_ms = ms_since(t0);
  s.nodes_before = m.graph.nodes.size();
  t0 = std::chrono::steady_clock::now();
  try {
    if (s.level != "none") s.half_precision_changes = passes::lower_half_precision(m);
    if (s.level == "basic") passes::run_basic_pipeline(m);
    if (s.level == "cpu") {
      passes::OptimizeOptions o;
      o.level = "cpu";
      o.ctx.input_shapes = input_shape_map(flags.input_shape);
      passes::optimize_model(m, o);
    }
  } catch (const Error& e) {
    // A level the user asked for must work; the default one must not stop a model that runs as
    // written, but the user is told (the passes' failure is a defect to report).
    if (flags.optimize_given) throw;
    std::cerr << fmt::format("warning: preparing {} at --optimize {} failed ({}); running it as written\n", path,
                             s.level, e.what());
    s.level = "none";
    s.half_precision_changes = 0;
    m = load_with_input_shapes(path, flags.input_shape);
  }
  s.optimize_ms = ms_since(t0);
  s.nodes_after = m.graph.nodes.size();
  s.model = std::make_shared<const Model>(std::move(m));
  return s;
}

void use_compute_precision(const SessionModel& s, SessionOptions& opts) {
  if (s.compute != DType::Float32 && opts.reference_kernels)
    fail_unsupported("--precision {} with the reference kernels: they compute in float32 only", dtype_name(s.compute));
  opts.compute_precision = s.compute;
}

std::string session_model_summary(const SessionModel& s) {
  std::string text = fmt::format("load {:.1f} ms", s.load_ms);
  if (s.level == "none") text += ", graph as written (--optimize none)";
  else text += fmt::format(", optimize ({}) {:.1f} ms: {} -> {} nodes", s.level, s.optimize_ms, s.nodes_before, s.nodes_after);
  if (s.half_precision_changes && s.compute == DType::Float32) text += ", half precision computed in float32";
  if (s.compute != DType::Float32) text += "; " + rt::half_compute_summary(s.compute);
  return text;
}

}  // namespace ms::cli
