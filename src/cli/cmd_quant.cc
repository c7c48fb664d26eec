// ms quant: post-training quantization (DESIGN.md §7, src/quant/). Calibrates the float model on
// --inputFile samples (FULL_QUANT), rewrites it as a QDQ model, measures the output cosine of the
// quantized model against the float one on the same samples, and writes it (temporary file renamed
// into place). This step writes ONNX QDQ only; MindIR quant_params are a later step.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>

#include "analysis/input_samples.h"
#include "analysis/metrics.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "formats/model_io.h"
#include "passes/basic_passes.h"
#include "quant/calibrate.h"
#include "quant/quantizer.h"
#include "runtime/session.h"

namespace ms::cli {
namespace {

bool parse_bool(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "1" || v == "on") return true;
  if (v == "false" || v == "0" || v == "off") return false;
  fail("{} must be true or false, not '{}'", flag, v);
}

ModelFormat quant_output_format(const std::string& save_type, const std::string& out) {
  ModelFormat f = ModelFormat::Auto;
  if (!save_type.empty()) f = parse_model_format(save_type);
  else if (std::filesystem::path(out).extension() == ".onnx") f = ModelFormat::Onnx;
  else f = ModelFormat::MindIR;  // MindSpore Lite's converter default
  if (f == ModelFormat::MindIR)
    fail_unsupported("MindIR output of quantized models (quant_params) is not implemented yet; write ONNX QDQ with "
                     "--saveType ONNX (or an --outputFile ending in .onnx)");
  if (f != ModelFormat::Onnx) fail("--saveType must be ONNX or MINDIR, not '{}'", save_type);
  return f;
}

// Mean over samples of the cosine of each output, and the worst single (output, sample) cosine.
struct Agreement {
  double mean_cosine = 1, min_cosine = 1;
  size_t samples = 0;
};
Agreement measure(const Model& fp, const Model& q, const analysis::InputSamples& samples, SessionOptions so) {
  Session a(std::make_shared<const Model>(fp), so), b(std::make_shared<const Model>(q), so);
  Agreement r;
  double sum = 0;
  size_t n = 0;
  for (size_t s = 0; s < samples.count(); ++s) {
    const auto feeds = samples.sample(s);
    const auto ra = a.run(feeds), rb = b.run(feeds);
    for (size_t i = 0; i < ra.size(); ++i) {
      if (!ra[i].is_tensor() || !rb[i].is_tensor()) continue;
      const auto m = analysis::compare_tensors(rb[i].tensor, ra[i].tensor, {});
      if (!m.comparable) continue;
      sum += m.cosine, ++n;
      r.min_cosine = std::min(r.min_cosine, m.cosine);
    }
  }
  r.mean_cosine = n ? sum / n : 1;
  r.samples = samples.count();
  return r;
}

std::string size_str(uintmax_t b) { return fmt::format("{:.2f} MiB", b / 1048576.0); }

}  // namespace

int cmd_quant(const Args& args) {
  CLI::App app("Post-training quantization: calibrate, rewrite as QuantizeLinear/DequantizeLinear, measure", "quant");
  std::string model_file, output_file, input_file, quant_type, save_type, calib = "MAX_MIN", per_channel = "true",
                                                                              skip_nodes, skip_types, input_shape;
  int bit_num = 8;
  double percentile = 99.99;
  bool symmetric = false;
  int64_t min_size = 0;
  int threads = 0;
  app.add_option("--modelFile", model_file, "float model (.onnx or .mindir)")->required();
  app.add_option("--outputFile", output_file, "quantized model (ONNX QDQ)")->required();
  app.add_option("--quantType", quant_type, "FULL_QUANT | WEIGHT_QUANT")->required();
  app.add_option("--inputFile", input_file,
                 "calibration data, one file per model input, comma-separated: .bin (float32 samples back to back) or "
                 ".npy with a leading sample axis (required for FULL_QUANT; WEIGHT_QUANT uses it for the accuracy figure)");
  app.add_option("--saveType", save_type, "ONNX (MINDIR is a later step); default from --outputFile's extension");
  app.add_option("--bitNum", bit_num, "weight bits (8)");
  app.add_option("--calibMethod", calib, "MAX_MIN (default) | PERCENTILE | KL | MSE");
  app.add_option("--percentile", percentile, "PERCENTILE: the percentile kept at each end (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  app.add_option("--perChannel", per_channel, "per-channel weight scales: true (default) | false");
  app.add_flag("--symmetric", symmetric, "int8 activations with zero point 0 (default: uint8 asymmetric)");
  app.add_option("--skipNodes", skip_nodes, "node names to keep in float, comma-separated");
  app.add_option("--skipOpTypes", skip_types, "op types to keep in float, comma-separated (e.g. MatMul)");
  app.add_option("--minQuantWeightSize", min_size, "weights with fewer elements stay float (default 0)")
      ->check(CLI::Range(int64_t(0), std::numeric_limits<int64_t>::max()));
  app.add_option("--inputShape", input_shape, "fix input shapes: \"a:1,3,224,224;b:1,16\"");
  app.add_option("--numThreads", threads, "threads for calibration and measurement (0 = default)");
  return run_command(app, args, [&] {
    quant::QuantOptions opts;
    opts.type = quant::parse_quant_type(quant_type);
    opts.bit_num = bit_num;
    opts.per_channel = parse_bool("--perChannel", per_channel);
    opts.symmetric = symmetric;
    opts.min_quant_weight_size = min_size;
    for (const auto& s : split_list(skip_nodes)) opts.skip_nodes.insert(s);
    for (const auto& s : split_list(skip_types)) opts.skip_op_types.insert(s);
    quant::CalibOptions copts;
    copts.method = quant::parse_calib_method(calib);
    copts.percentile = percentile;
    copts.session.num_threads = threads;
    if (bit_num != 8) fail_unsupported("--bitNum {}: only 8-bit quantization is implemented so far", bit_num);
    const ModelFormat out_fmt = quant_output_format(save_type, output_file);
    if (opts.type == quant::QuantType::Full && input_file.empty())
      fail("FULL_QUANT needs calibration data: give --inputFile calib.bin (one file per model input)");
    if (std::filesystem::exists(output_file) && std::filesystem::exists(model_file) &&
        std::filesystem::equivalent(output_file, model_file))
      fail("--outputFile {} is the input model; choose another path", output_file);

    Model m = load_model(model_file);
    if (!input_shape.empty()) apply_input_shapes(m, input_shape);
    quant::check_skip_nodes(m, opts);
    const Model fp = m;
    // Weights held by Constant nodes (PaddlePaddle exports) become initializers the quantizer can
    // rewrite; the float reference `fp` stays as loaded.
    passes::run_basic_pipeline(m);
    std::optional<analysis::InputSamples> samples;
    if (!input_file.empty()) samples.emplace(analysis::open_input_files(m.graph, split_list(input_file)));
    std::cout << fmt::format("quant {} ({}, {})\n", model_file, quant_type,
                             opts.type == quant::QuantType::Full ? quant::calib_method_name(copts.method) : "weights only");

    std::map<std::string, quant::Range> ranges;
    const auto acts = quant::activations_to_calibrate(m, opts);
    if (!acts.empty()) {
      copts.progress = [](size_t done, size_t total) {
        std::cerr << fmt::format("\rcalibrating {}/{} samples", done, total) << (done == total ? "\n" : "") << std::flush;
      };
      ranges = quant::calibrate(m, acts, *samples, copts);
    }
    const quant::QuantSummary sum = quant::quantize_model(m, opts, ranges);
    std::optional<Agreement> agree;
    if (samples) agree = measure(fp, m, *samples, copts.session);

    const std::string written = save_model(m, output_file, out_fmt);
    std::error_code ec;
    const auto before = std::filesystem::file_size(model_file, ec);
    const auto after = std::filesystem::file_size(written, ec);
    std::cout << fmt::format("  nodes quantized:       {} ({} weights, {} activations)\n", sum.nodes_quantized,
                             sum.weights_quantized, sum.activations_quantized);
    std::cout << fmt::format("  weights quantized:     {} -> {}\n", size_str(sum.weight_bytes_before), size_str(sum.weight_bytes_after));
    if (!ec && before > 0)
      std::cout << fmt::format("  file size:             {} -> {} ({:.1f}%)\n", size_str(before), size_str(after), 100.0 * after / before);
    for (const auto& k : sum.kept_float) std::cout << "  kept float:            " << k << "\n";
    if (agree)
      std::cout << fmt::format("  output cosine vs fp32: mean {:.6f}, min {:.6f} over {} sample(s) of {}\n", agree->mean_cosine,
                               agree->min_cosine, agree->samples, input_file);
    std::cout << "  written:               " << written << "\n";
    return 0;
  });
}

}  // namespace ms::cli
