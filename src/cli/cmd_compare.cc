// ms compare: a model against a reference model (or reference output files) on the same inputs;
// --layerwise compares every paired intermediate tensor, --bisect names the first divergent node.
#include <filesystem>
#include <iostream>

#include "analysis/compare.h"
#include "analysis/labels.h"
#include "cli/cli_util.h"
#include "cli/session_model.h"
#include "cli/convert_common.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "report/atomic_file.h"
#include "report/compare_report.h"

namespace ms::cli {

namespace {

// Applied when no tolerance flag is given: tight enough to catch a real fault, loose enough for
// the rounding differences of another kernel or format.
constexpr double kDefaultMinCosine = 0.9999;

std::pair<double, double> parse_range(const std::string& s) {
  auto parts = split_list(s);
  double lo = 0, hi = 0;
  size_t a = 0, b = 0;
  try {
    if (parts.size() == 2) lo = std::stod(parts[0], &a), hi = std::stod(parts[1], &b);
  } catch (const std::exception&) {
    a = 0;
  }
  if (parts.size() != 2 || a != parts[0].size() || b != parts[1].size())
    fail("--inputRange must be two numbers 'lo,hi', not '{}'", s);
  return {lo, hi};
}

Model load_for_compare(const std::string& path, const std::string& input_shape) {
  Model m = load_model(path);
  if (!input_shape.empty()) apply_input_shapes(m, input_shape);
  return m;
}

bool reference_kernels(const std::string& flag, const std::string& backend) {
  if (backend != "fast" && backend != "reference") fail("{} must be fast or reference, not '{}'", flag, backend);
  return backend == "reference";
}

// One file per model output; a raw .bin takes the output's declared type.
std::vector<Tensor> read_ref_outputs(const Model& model, const std::vector<std::string>& files) {
  std::vector<Tensor> golden;
  for (size_t i = 0; i < files.size(); ++i) {
    TypeInfo type = i < model.graph.outputs.size() ? model.graph.outputs[i].type : TypeInfo{};
    Value v = io::read_tensor_file(files[i], type, "output " + std::to_string(i));
    if (!v.is_tensor()) fail("{}: a reference output must be a tensor", files[i]);
    golden.push_back(v.tensor);
  }
  return golden;
}

void check_report_folder(const std::string& path) {
  auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    fail("--report {}: the folder {} does not exist", path, dir.string());
}

}  // namespace

int cmd_compare(const Args& args) {
  CLI::App app("Compare a model with a reference model (or reference outputs) on the same inputs", "compare");
  std::string model_file, ref_model, ref_outputs, in_data, input_shape, input_range, labels, report_file;
  std::string format = "text", backend = "fast", ref_backend = "fast";
  uint64_t seed = 0;
  std::optional<double> atol, rtol, min_cosine;
  analysis::CompareOptions opts;
  app.add_option("--modelFile", model_file, "the model under test (.onnx, .mindir)")->required();
  app.add_option("--refModel", ref_model, "the reference model, run on the same inputs");
  app.add_option("--backend", backend, "kernels of the model under test: fast (default) | reference");
  app.add_option("--refBackend", ref_backend,
                 "kernels of the reference: fast (default) | reference; without --refModel the reference is the "
                 "model itself, so one model is compared on two backends");
  app.add_option("--refOutputs", ref_outputs, "reference outputs instead of a model: .npy/.pb files, one per output, comma-separated");
  app.add_option("--inDataFile", in_data,
                 "input files in graph input order, comma-separated; a .bin with N samples back to back, a .npy "
                 "with a leading sample axis, or a folder of files is a dataset (default: seeded random data)");
  app.add_option("--inputShape", input_shape, "fix dynamic input dims of both models: \"a:1,3,224,224;b:1,16\"");
  SessionModelFlags model_flags;
  add_optimize_flag(app, model_flags);
  app.add_option("--inputRange", input_range, "range of random inputs 'lo,hi' (default 0,1 for floats, 0,9 for integers)");
  app.add_option("--seed", seed, "seed of the random inputs (default 0)");
  app.add_option("--atol", atol, "absolute tolerance: every element within atol + rtol*|ref|");
  app.add_option("--rtol", rtol, "relative tolerance (see --atol)");
  app.add_option("--minCosine", min_cosine,
                 "lowest acceptable cosine similarity (default 0.9999 when no tolerance flag is given)");
  app.add_flag("--layerwise", opts.layerwise, "compare every paired intermediate tensor, in topological order");
  app.add_flag("--bisect", opts.bisect, "name the first node whose output diverges while its inputs agree (implies --layerwise)");
  app.add_option("--labels", labels, "class labels of the samples (.npy of integers or text): top-1 accuracy of both models");
  app.add_option("--report", report_file, "write a self-contained HTML report");
  app.add_option("--format", format, "text (default) | json");
  return run_command(app, args, [&] {
    if (format != "text" && format != "json") fail("--format must be text or json, not '{}'", format);
    opts.session.reference_kernels = reference_kernels("--backend", backend);
    opts.ref_session.reference_kernels = reference_kernels("--refBackend", ref_backend);
    if (!ref_model.empty() && !ref_outputs.empty()) fail("give --refModel or --refOutputs, not both");
    if (ref_model.empty() && ref_outputs.empty()) {
      if (backend == ref_backend)
        fail("give --refModel or --refOutputs, or a --refBackend other than --backend to compare the model on two "
             "backends");
      ref_model = model_file;
    }
    if (!ref_outputs.empty() && (opts.layerwise || opts.bisect || !labels.empty()))
      fail("--layerwise, --bisect and --labels need a reference model (--refModel), not --refOutputs");
    for (auto [flag, v] : {std::pair{"--atol", atol}, {"--rtol", rtol}})
      if (v && !(*v >= 0)) fail("{} must be a non-negative number", flag);
    if (min_cosine && !(*min_cosine >= -1 && *min_cosine <= 1)) fail("--minCosine must lie in [-1, 1]");
    opts.tolerance = {atol, rtol, min_cosine};
    if (!atol && !rtol && !min_cosine) opts.tolerance.min_cosine = kDefaultMinCosine;
    if (!report_file.empty()) check_report_folder(report_file);

    // The model under test is prepared as `ms run` prepares it; comparing layer by layer pairs the
    // graph's own tensors, which fusions would remove, so those modes (and the reference oracle)
    // take it as written unless --optimize says otherwise.
    model_flags.input_shape = input_shape;
    const bool as_written = opts.layerwise || opts.bisect || opts.session.reference_kernels;
    const SessionModel prepared = load_session_model(model_file, model_flags, as_written ? "none" : "cpu");
    use_compute_precision(prepared, opts.session);
    const Model& model = *prepared.model;
    analysis::RandomInputOptions random{seed, {}};
    if (!input_range.empty()) random.range = parse_range(input_range);
    auto files = split_list(in_data);
    analysis::InputSamples inputs = files.empty() ? analysis::random_inputs(analysis::required_inputs(model.graph), random)
                                                  : analysis::open_input_files(model.graph, files);
    if (!labels.empty()) opts.labels = analysis::read_labels(labels);

    analysis::CompareResult result;
    if (!ref_model.empty()) {
      Model ref = load_for_compare(ref_model, input_shape);
      result = analysis::compare_models(model, ref, inputs, opts);
    } else {
      auto ref_files = split_list(ref_outputs);
      result = analysis::compare_with_outputs(model, read_ref_outputs(model, ref_files), ref_files, inputs, opts);
      result.ref_file = ref_outputs;
    }
    result.inputs = files.empty() ? fmt::format("random (seed {}{})", seed,
                                                input_range.empty() ? "" : ", range " + input_range)
                                  : in_data;
    if (!report_file.empty()) report::write_file_atomically(report_file, report::compare_html(result));
    if (format == "json")
      std::cout << report::compare_json(result).dump(2) << "\n";
    else
      std::cout << report::compare_text(result) << (report_file.empty() ? "" : "report: " + report_file + "\n");
    return result.pass() ? 0 : 1;
  });
}

}  // namespace ms::cli
