// ms quant: post-training quantization (DESIGN.md §7, src/quant/). Calibrates the float model on
// --inputFile samples (FULL_QUANT), optionally corrects biases, rewrites it as a QDQ model,
// measures the loss of the quantized model against the float one on the evaluation samples, ranks
// layers by sensitivity and keeps the most sensitive ones float until --maxAccuracyLoss holds, and
// writes the model (temporary file renamed into place) and an optional report.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

#include "analysis/image_samples.h"
#include "analysis/input_samples.h"
#include "analysis/labels.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/preprocess_flags.h"
#include "cli/quant_pipeline.h"
#include "formats/model_io.h"
#include "passes/basic_passes.h"
#include "passes/pipelines.h"
#include "passes/subgraphs.h"
#include "quant/accuracy.h"
#include "quant/bias_correction.h"
#include "quant/calibrate.h"
#include "quant/channel_scales.h"
#include "quant/config_file.h"
#include "quant/identity_split.h"
#include "quant/quantizer.h"
#include "quant/sensitivity.h"
#include "quant/weight_rounding.h"
#include "quant/zero_input_probe.h"
#include "report/quant_report.h"
#include "runtime/session.h"

namespace ms::cli {
namespace {

bool parse_bool(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "1" || v == "on") return true;
  if (v == "false" || v == "0" || v == "off") return false;
  fail("{} must be true or false, not '{}'", flag, v);
}

ModelFormat quant_output_format(const std::string& save_type, const std::string& out) {
  if (is_lite_save_type(save_type))
    fail_unsupported("--saveType {}: MindSpore Lite .ms FlatBuffers output is not written yet; use MINDIR (.mindir) or ONNX", save_type);
  refuse_lite_output(out);
  ModelFormat f = ModelFormat::Auto;
  if (!save_type.empty()) f = parse_model_format(save_type);
  else if (std::filesystem::path(out).extension() == ".onnx") f = ModelFormat::Onnx;
  else f = ModelFormat::MindIR;  // MindSpore Lite's converter default
  // MindIR carries the parameters as MindSpore does (int8 weights with quant_params, activation
  // quant_param on primitives): src/formats/mindir/mindir_quant_fold.h.
  if (f != ModelFormat::Onnx && f != ModelFormat::MindIR) fail("--saveType must be ONNX or MINDIR, not '{}'", save_type);
  return f;
}

std::string size_str(uintmax_t b) { return fmt::format("{:.2f} MiB", b / 1048576.0); }

// Sets each option the command line did not give from the config file, through CLI11 so that the
// option's own checks run on the file's value too.
void apply_config(CLI::App& app, const quant::QuantConfigFile& cfg, const std::string& path) {
  for (const auto& [flag, value] : cfg.flags) {
    CLI::Option* o = app.get_option(flag);
    if (o->count() > 0) continue;  // the command line wins
    try {
      o->add_result(value);
      o->run_callback();
    } catch (const CLI::Error& e) {
      fail("--configFile {}: {} = '{}': {}", path, flag, value, e.what());
    }
  }
}

std::string format_loss(quant::AccuracyMetric m, double loss) {
  switch (m) {
    case quant::AccuracyMetric::Cosine: return fmt::format("{:.6f} (1 - cosine)", loss);
    case quant::AccuracyMetric::Psnr: return fmt::format("{:.2f} dB below {:.0f} dB", loss, quant::kPsnrLossReferenceDb);
    case quant::AccuracyMetric::Top1: return fmt::format("{:.2f} top-1 points", loss);
  }
  return "";
}

}  // namespace

int cmd_quant(const Args& args) {
  CLI::App app("Post-training quantization: calibrate, rewrite as QuantizeLinear/DequantizeLinear, measure", "quant");
  std::string model_file, output_file, input_file, quant_type, save_type, calib = "AUTO", per_channel = "true",
                                                                              skip_nodes, skip_types, input_shape;
  std::string bias_correction = "true", metric_name = "cosine", eval_file, accuracy_outputs, labels_file, config_file, report_file,
              sensitivity = "false", weight_rounding = "AUTO";
  int bit_num = 8;
  int64_t group_size = quant::kDefaultGroupSize;
  std::string fp16 = "off", mixed_precision = "off";
  double percentile = 99.99;
  double max_loss = -1;
  bool symmetric = false;
  int64_t min_size = 0, min_channels = 0;
  int threads = 0;
  app.add_option("--modelFile", model_file, "float model (.onnx or .mindir)")->required();
  app.add_option("--outputFile", output_file, "quantized model: .onnx (QDQ) or MindIR (int8 weights with quant_params; any other name)")->required();
  app.add_option("--quantType", quant_type, "FULL_QUANT | WEIGHT_QUANT (required here or in --configFile)");
  app.add_option("--inputFile", input_file,
                 "calibration data, one file per model input, comma-separated: .bin (float32 samples back to back), "
                 ".npy with a leading sample axis, a folder of one-sample files, or a folder of images (JPEG/PNG/BMP, "
                 "decoded one at a time and preprocessed by the flags below) (required for FULL_QUANT; "
                 "WEIGHT_QUANT uses it for the accuracy figure)");
  PreprocessFlags image_flags;
  add_preprocess_flags(app, image_flags, "default: from the model input's shape; image folders only");
  app.add_option("--saveType", save_type, "MINDIR | ONNX; default: ONNX for an --outputFile ending in .onnx, else MINDIR");
  app.add_option("--bitNum", bit_num,
                 "weight bits: 8 (default), or 4 with WEIGHT_QUANT (blocked int4, ONNX opset 21 DequantizeLinear)");
  app.add_option("--groupSize", group_size,
                 fmt::format("consecutive weight elements along the reduction (input-channel) axis sharing one scale "
                             "(blocked DequantizeLinear, opset 21): 4-bit default {}; 8-bit weights are per channel "
                             "unless given; 0 or -1 = one scale per output channel",
                             quant::kDefaultGroupSize))
      ->check(CLI::Range(int64_t(-1), std::numeric_limits<int64_t>::max()));
  app.add_option("--fp16", fp16, "on: float32 weights that stay float (kept-float layers, biases) are stored as float16 (default off)");
  app.add_option("--mixedPrecision", mixed_precision,
                 "fp16 | bf16: the layers that stay float (the sensitivity fallback of --maxAccuracyLoss, "
                 "--skipNodes, --skipOpTypes, the size limits) compute in that type, the rest int8; their "
                 "normalizations, reductions and Softmax stay float32 (default off: float32)")
      ->check(CLI::IsMember({"off", "fp16", "bf16"}));
  app.add_option("--calibMethod", calib,
                 "activation ranges: AUTO (default: MAX_MIN, but the --percentile range for a tensor whose observed "
                 "range is over 3x it) | MAX_MIN | PERCENTILE | KL | MSE");
  app.add_option("--percentile", percentile, "PERCENTILE: the percentile kept at each end (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  app.add_option("--perChannel", per_channel, "per-channel weight scales: true (default) | false");
  app.add_flag("--symmetric", symmetric, "int8 activations with zero point 0 (default: uint8 asymmetric)");
  app.add_option("--skipNodes", skip_nodes, "node names to keep in float, comma-separated");
  app.add_option("--skipOpTypes", skip_types, "op types to keep in float, comma-separated (e.g. MatMul)");
  app.add_option("--minQuantWeightSize", min_size, "weights with fewer elements stay float (default 0)")
      ->check(CLI::Range(int64_t(0), std::numeric_limits<int64_t>::max()));
  app.add_option("--minQuantWeightChannel", min_channels, "weights with fewer output channels stay float (default 0)")
      ->check(CLI::Range(int64_t(0), std::numeric_limits<int64_t>::max()));
  app.add_option("--biasCorrection", bias_correction,
                 "fold the expected output shift of weight rounding, E[(W_q - W) x] per output channel (from the "
                 "calibration inputs' channel means), into Conv/Gemm biases: true (default) | false");
  app.add_option("--weightRounding", weight_rounding,
                 "GPTQ: round each weight so that its layer's output error on the calibration inputs is smallest "
                 "(same scales and size as NEAREST) | NEAREST: round each weight to nearest | KEEP_SUM: to nearest, "
                 "then move the fewest elements one step so that each channel keeps its weight sum (no data needed). "
                 "Default: GPTQ for WEIGHT_QUANT with --inputFile, KEEP_SUM without, NEAREST for FULL_QUANT");
  app.add_option("--maxAccuracyLoss", max_loss,
                 "loss budget: rank layers by sensitivity and keep the most sensitive float, the fewest needed, until "
                 "the loss on the evaluation samples is at most this (see --accuracyMetric)")
      ->check(CLI::Range(0.0, std::numeric_limits<double>::max()));
  app.add_option("--accuracyMetric", metric_name,
                 "how the loss against the float model is measured, worst output counts: cosine (default): 1 - mean "
                 "cosine; psnr: dB below 60 dB, max(0, 60 - mean PSNR), so 22 asks for PSNR >= 38 dB; top1: top-1 "
                 "points lost, 100 * (1 - argmax agreement), or float accuracy minus quantized accuracy with --labels");
  app.add_option("--evalFile", eval_file, "evaluation samples for the loss (default: the calibration samples), as --inputFile");
  app.add_option("--accuracyOutputs", accuracy_outputs,
                 "graph outputs the loss is measured on, comma-separated (default: all; the worst counts)");
  app.add_option("--labels", labels_file, "top1 with ground truth: one integer class per row of class scores (.npy or text)");
  app.add_option("--sensitivity", sensitivity,
                 "rank every quantized layer by the loss it causes alone, even without --maxAccuracyLoss: true | false (default)");
  app.add_option("--configFile", config_file,
                 "MindSpore Lite quantization config (INI: [common_quant_param], [full_quant_param], "
                 "[data_preprocess_param]); command-line flags override it");
  app.add_option("--report", report_file, "per-layer report: q.json (JSON) or q.html (self-contained page)");
  app.add_option("--inputShape", input_shape, "fix input shapes: \"a:1,3,224,224;b:1,16\"");
  app.add_option("--numThreads", threads, "threads for calibration and measurement (0 = default)");
  return run_command(app, args, [&] {
    std::optional<quant::QuantConfigFile> cfg;
    if (!config_file.empty()) {
      cfg = quant::read_quant_config(config_file);
      apply_config(app, *cfg, config_file);
    }
    if (quant_type.empty()) fail("--quantType is required (FULL_QUANT or WEIGHT_QUANT), on the command line or as quant_type in --configFile");
    quant::QuantOptions opts;
    opts.type = quant::parse_quant_type(quant_type);
    opts.bit_num = bit_num;
    // 8-bit weights are per channel unless --groupSize asks for blocks.
    opts.group_size = app.count("--groupSize") ? group_size : bit_num == 4 ? quant::kDefaultGroupSize : 0;
    opts.per_channel = parse_bool("--perChannel", per_channel);
    opts.symmetric = symmetric;
    opts.min_quant_weight_size = min_size;
    opts.min_quant_weight_channel = min_channels;
    for (const auto& s : split_list(skip_nodes)) opts.skip_nodes.insert(s);
    for (const auto& s : split_list(skip_types)) opts.skip_op_types.insert(s);
    quant::CalibOptions copts;
    copts.method = quant::parse_calib_method(calib);
    copts.percentile = percentile;
    copts.session.num_threads = threads;
    const bool correct_bias = parse_bool("--biasCorrection", bias_correction);
    if (weight_rounding != "AUTO" && weight_rounding != "GPTQ" && weight_rounding != "NEAREST" && weight_rounding != "KEEP_SUM")
      fail("--weightRounding must be GPTQ, NEAREST or KEEP_SUM, not '{}'", weight_rounding);
    const bool want_sensitivity = parse_bool("--sensitivity", sensitivity) || max_loss >= 0;
    const quant::AccuracyMetric metric = quant::parse_accuracy_metric(metric_name);
    quant::check_bit_num(opts);
    if (fp16 != "on" && fp16 != "off") fail("--fp16 must be on or off, not '{}'", fp16);
    if (!labels_file.empty() && metric != quant::AccuracyMetric::Top1) fail("--labels needs --accuracyMetric top1");
    if (!report_file.empty() && std::filesystem::is_directory(report_file)) fail("--report {} is a folder; give a .json or .html file", report_file);
    const ModelFormat out_fmt = quant_output_format(save_type, output_file);
    const preprocess::ImageOptions images = image_options(image_flags);
    if (std::filesystem::exists(output_file) && std::filesystem::exists(model_file) &&
        std::filesystem::equivalent(output_file, model_file))
      fail("--outputFile {} is the input model; choose another path", output_file);

    Model m = load_model(model_file);
    if (!input_shape.empty()) apply_input_shapes(m, input_shape);
    if (const int64_t was = quant::upgrade_to_quantizable_opset(m); was != m.opset())
      std::cout << fmt::format("upgraded {} from opset {} to {} for quantization\n", model_file, was, m.opset());
    quant::check_quantizable_opset(m);
    quant::check_skip_nodes(m, opts);
    if (input_file.empty() && cfg && !cfg->calibrate_path.empty()) {
      // calibrate_path names the model inputs; --inputFile takes them in graph input order.
      std::vector<std::string> files;
      for (const auto& in : analysis::required_inputs(m.graph)) {
        auto it = std::find_if(cfg->calibrate_path.begin(), cfg->calibrate_path.end(), [&](const auto& p) { return p.first == in.name; });
        if (it == cfg->calibrate_path.end()) fail("--configFile {}: calibrate_path has no folder for model input '{}'", config_file, in.name);
        files.push_back(it->second);
      }
      for (const auto& [name, dir] : cfg->calibrate_path)
        if (std::none_of(m.graph.inputs.begin(), m.graph.inputs.end(), [&](const ValueInfo& v) { return v.name == name; }))
          fail("--configFile {}: calibrate_path names '{}', which is not an input of the model", config_file, name);
      for (size_t i = 0; i < files.size(); ++i) input_file += (i ? "," : "") + files[i];
    }
    if (images.any()) {
      const auto given = split_list(input_file + "," + eval_file);
      if (std::none_of(given.begin(), given.end(), analysis::is_image_folder))
        fail("--size, --centerCrop, --mean, --std, --imageFormat, --layout and --resizeMethod (or input_type=IMAGE "
             "keys in --configFile) preprocess image folders, but no --inputFile/--evalFile is a folder of images");
    }
    if (opts.type == quant::QuantType::Full && input_file.empty())
      fail("FULL_QUANT needs calibration data: give --inputFile calib.bin (one file per model input)");
    if (max_loss >= 0 && input_file.empty() && eval_file.empty())
      fail("--maxAccuracyLoss needs samples to measure the loss on: give --inputFile or --evalFile");
    std::optional<std::vector<int64_t>> labels;
    if (!labels_file.empty()) labels = analysis::read_labels(labels_file);

    std::cout << fmt::format("quant {} ({}, {})\n", model_file, quant_type,
                             opts.type == quant::QuantType::Full ? quant::calib_method_name(copts.method) : "weights only");

    PtqSettings ps;
    ps.opts = opts;
    ps.copts = copts;
    ps.correct_bias = correct_bias;
    ps.weight_rounding = weight_rounding;
    ps.input_file = input_file;
    ps.eval_file = eval_file;
    ps.images = images;
    if (cfg && cfg->calibrate_size) ps.calibrate_size = *cfg->calibrate_size;
    ps.metric = metric;
    ps.metric_name = metric_name;
    ps.labels = labels;
    ps.accuracy_outputs = accuracy_outputs;
    ps.want_sensitivity = want_sensitivity;
    ps.max_loss = max_loss;
    ps.fp16 = fp16 == "on";
    if (ps.fp16 && mixed_precision != "off")
      fail("--fp16 on stores kept-float weights as float16; --mixedPrecision {} computes those layers in it: give one",
           mixed_precision);
    ps.mixed_precision = precision_type(mixed_precision);
    ps.out_fmt = out_fmt;
    PtqResult pr = run_ptq(std::move(m), ps);
    const Model& q = pr.quantized;
    const auto& sum = pr.sum;
    const auto& corrections = pr.corrections;
    const auto& rounding = pr.rounding;
    const auto& ranking = pr.ranking;
    const auto& fallback = pr.fallback;
    const auto& score = pr.score;
    const auto& reverted = pr.reverted;
    const auto& stats = pr.stats;
    const auto& acts = pr.acts;

    const std::string written = write_model_file(q, output_file, out_fmt);
    std::error_code ec;
    const auto before = std::filesystem::file_size(model_file, ec);
    const auto after = std::filesystem::file_size(written, ec);
    std::cout << fmt::format("  nodes quantized:       {} ({} weights, {} activations)\n", sum.nodes_quantized,
                             sum.weights_quantized, sum.activations_quantized);
    std::cout << fmt::format("  weights quantized:     {} -> {}\n", size_str(sum.weight_bytes_before), size_str(sum.weight_bytes_after));
    if (!ec && before > 0)
      std::cout << fmt::format("  file size:             {} -> {} ({:.1f}%)\n", size_str(before), size_str(after), 100.0 * after / before);
    if (pr.identities)
      std::cout << fmt::format("  identity split:        {} square 1x1 convolution(s) keep their diagonal in float\n", pr.identities);
    if (correct_bias)
      std::cout << fmt::format("  bias corrected:        {} layer(s){}\n", corrections.size(),
                               pr.zero_probe && !corrections.empty() ? " (input means taken at the all-zeros input: no calibration data)" : "");
    if (rounding)
      std::cout << fmt::format("  GPTQ rounding:         {} weight(s) in {:.1f} s, output error on the calibration inputs "
                               "{:.3f}x rounding to nearest's\n",
                               rounding->weights->size(), pr.rounding_s,
                               rounding->error_nearest > 0 ? rounding->error_rounded / rounding->error_nearest : 1.0);
    if (fp16 == "on") std::cout << fmt::format("  float16 storage:       {} float weight(s)\n", pr.fp16_weights);
    if (pr.half_nodes)
      std::cout << fmt::format("  mixed precision:       {} float node(s) compute in {}\n", pr.half_nodes, mixed_precision);
    if (pr.moved_scales)
      std::cout << fmt::format("  channel scales as Mul: {} weight(s) (MindIR's per-channel parameters would cost more)\n",
                               pr.moved_scales);
    for (const auto& k : sum.kept_float) std::cout << "  kept float:            " << k << "\n";
    if (!ranking.empty()) {
      std::cout << fmt::format("  most sensitive layers (loss with only that layer quantized, {}):\n", metric_name);
      for (size_t i = 0; i < ranking.size() && i < 10; ++i)
        std::cout << fmt::format("    {:>3}  {:<40} {}\n", i + 1, ranking[i].node, format_loss(metric, ranking[i].loss));
    }
    if (fallback) {
      std::cout << fmt::format("  loss, all quantized:   {}\n", format_loss(metric, fallback->all_quantized.loss));
      std::cout << fmt::format("  loss, after fallback:  {} with {} layer(s) float: budget {} {}\n",
                               format_loss(metric, fallback->final_score.loss), fallback->reverted.size(), max_loss,
                               fallback->met ? "met" : "NOT met (every layer float)");
    }
    const std::string eval_name = !eval_file.empty() ? eval_file : input_file;
    if (score) {
      std::cout << fmt::format("  output cosine vs fp32: mean {:.6f}, min {:.6f} over {} sample(s) of {}\n", score->mean_cosine,
                               score->min_cosine, pr.evaluation_samples, eval_name);
      std::cout << fmt::format("  output PSNR vs fp32:   {:.2f} dB (mean)\n", score->mean_psnr);
      if (score->top1 && metric == quant::AccuracyMetric::Top1) std::cout << fmt::format("  top-1 {}:        {:.4f}\n", labels ? "accuracy" : "agreement", *score->top1);
    }
    std::cout << "  written:               " << written << "\n";

    if (!report_file.empty()) {
      report::QuantReport r;
      r.model_file = model_file, r.output_file = written, r.quant_type = quant_type;
      r.calib_method = opts.type == quant::QuantType::Full ? quant::calib_method_name(copts.method) : "weights only";
      r.metric = metric_name;
      r.calibration_samples = pr.calibration_samples;
      r.evaluation_samples = pr.evaluation_samples;
      r.evaluation_file = eval_name;
      if (max_loss >= 0) r.budget = max_loss;
      if (fallback) {
        r.loss_all_quantized = fallback->all_quantized.loss;
        r.budget_met = fallback->met;
        for (const auto& s : fallback->steps) r.fallback_steps.push_back({s.reverted, s.score.loss});
      }
      if (score) {
        r.loss_final = score->loss, r.mean_cosine = score->mean_cosine, r.min_cosine = score->min_cosine;
        r.mean_psnr = score->mean_psnr, r.top1 = score->top1;
      }
      r.size_before = before, r.size_after = after;
      r.weight_bytes_before = sum.weight_bytes_before, r.weight_bytes_after = sum.weight_bytes_after;
      std::map<std::string, std::string> why = sum.why_float;
      std::map<std::string, std::pair<double, int>> sens;
      for (size_t i = 0; i < ranking.size(); ++i) sens[ranking[i].node] = {ranking[i].loss, int(i) + 1};
      std::map<std::string, double> shifts;
      for (const auto& c : corrections) shifts[c.node] = c.max_shift;
      quant::QuantOptions all = pr.opts;  // every candidate, whatever kept it float
      all.skip_nodes.clear(), all.skip_op_types.clear(), all.min_quant_weight_size = 0, all.min_quant_weight_channel = 0;
      std::map<std::string, quant::WeightSite> sites;
      for (const auto& s : quant::weight_sites(pr.prepared, all)) sites.emplace(pr.prepared.graph.nodes[s.node].name, s);
      const auto quantized = quant::quantizable_nodes(pr.prepared, pr.opts);
      for (const auto& node : pr.prepared.graph.nodes) {
        const bool is_site = sites.count(node.name);
        const bool is_quantized = std::find(quantized.begin(), quantized.end(), node.name) != quantized.end() && !reverted.count(node.name);
        if (!is_site && !is_quantized && !why.count(node.name)) continue;
        report::QuantReportLayer l;
        l.node = node.name, l.op = node.op_type;
        l.precision = is_quantized ? (pr.opts.bit_num == 4 ? "int4" : "int8") : "float";
        if (!is_quantized) l.why_float = why.count(node.name) ? why[node.name] : "not quantizable (no float32 weight or activation)";
        if (is_quantized && is_site) {
          const auto& s = sites.at(node.name);
          const auto qw = quant::quantize_site_weight(pr.prepared.graph.initializers.at(s.weight), s.spec, pr.opts);
          const float* sc = qw.scale.data<float>();
          l.weight_channels = int(qw.scale.numel());
          l.weight_scale_min = *std::min_element(sc, sc + qw.scale.numel());
          l.weight_scale_max = *std::max_element(sc, sc + qw.scale.numel());
          if (pr.opts.keep_weight_sums && s.spec.output_channel_axis) l.rounding = "KEEP_SUM";
          if (rounding)
            if (auto e = rounding->errors.find(quant::weight_content_key(pr.prepared.graph.initializers.at(s.weight)));
                e != rounding->errors.end() && e->second.first > 0) {
              l.gptq_error_ratio = e->second.second / e->second.first;
              if (*l.gptq_error_ratio < 1) l.rounding = "GPTQ";  // at 1 every block kept its nearest rounding
            }
        }
        if (is_quantized)
          for (const auto& in : node.inputs) {
            auto a = stats.activations.find(in);
            if (a == stats.activations.end() || std::find(acts.begin(), acts.end(), in) == acts.end()) continue;
            const auto p = quant::activation_params(a->second.range, pr.opts.symmetric);
            report::QuantReportActivation ra;
            ra.tensor = in, ra.dtype = p.dtype == DType::Int8 ? "int8" : "uint8", ra.scale = p.scale, ra.zero_point = p.zero_point;
            ra.lo = a->second.range.lo, ra.hi = a->second.range.hi;
            ra.observed_lo = a->second.observed.lo, ra.observed_hi = a->second.observed.hi;
            const double seen = double(ra.observed_hi) - double(ra.observed_lo);
            ra.clipping_ratio = seen > 0 ? std::clamp(1 - (std::min(ra.hi, ra.observed_hi) - std::max(ra.lo, ra.observed_lo)) / seen, 0.0, 1.0) : 0;
            ra.overflow_rate = a->second.overflow;
            l.activations.push_back(ra);
          }
        if (auto it = sens.find(node.name); it != sens.end()) l.sensitivity = it->second.first, l.sensitivity_rank = it->second.second;
        if (auto it = shifts.find(node.name); it != shifts.end()) l.bias_shift = it->second;
        r.layers.push_back(std::move(l));
      }
      report::write_quant_report(r, report_file);
      std::cout << "  report:                " << report_file << "\n";
    }
    return 0;
  });
}

}  // namespace ms::cli
