#include "cli/quant_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include "analysis/input_samples.h"
#include "cli/cli_util.h"
#include "passes/basic_passes.h"
#include "passes/pipelines.h"
#include "passes/subgraphs.h"
#include "quant/channel_scales.h"
#include "quant/identity_split.h"
#include "quant/zero_input_probe.h"

namespace ms::cli {
namespace {

// The first `limit` samples of `all` (calibrate_size).
analysis::InputSamples first_samples(std::shared_ptr<analysis::InputSamples> all, size_t limit, size_t inputs) {
  std::vector<analysis::InputSamples::Column> cols;
  for (size_t c = 0; c < inputs; ++c)
    cols.push_back({std::min(limit, all->count()), [all, c](size_t i) { return all->sample(i).at(c); },
                    [all](size_t i) { return all->label(i); }});
  return analysis::InputSamples(std::move(cols));
}

// The int8 layers of a QDQ model: every node that reads a DequantizeLinear output or feeds a
// QuantizeLinear. They keep float32 around their Q/DQ pairs, which int8 runtimes match as written.
std::set<std::string> int8_layers(const Model& q) {
  std::set<std::string> dequantized, quantized_inputs, layers;
  for (const auto& n : q.graph.nodes) {
    if (n.op_type == "DequantizeLinear") dequantized.insert(n.outputs.begin(), n.outputs.end());
    if (n.op_type == "QuantizeLinear" && !n.inputs.empty()) quantized_inputs.insert(n.inputs[0]);
  }
  for (const auto& n : q.graph.nodes) {
    const bool reads = std::any_of(n.inputs.begin(), n.inputs.end(), [&](const auto& v) { return dequantized.count(v) > 0; });
    const bool feeds = std::any_of(n.outputs.begin(), n.outputs.end(), [&](const auto& v) { return quantized_inputs.count(v) > 0; });
    if (reads || feeds) layers.insert(n.name);
  }
  return layers;
}

// The nodes --mixedPrecision keeps float32: all but the layers that stayed float (`float_layers`)
// and the nodes that read only their results (a Relu after a float convolution, say), so that
// values between an int8 layer and its neighbours are not cast to half and back.
std::set<std::string> mixed_precision_float32(const Model& q, const std::set<std::string>& float_layers) {
  std::set<std::string> produced, half_values, keep;
  for (const auto& n : q.graph.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
  for (const auto& n : q.graph.nodes) {
    bool half = float_layers.count(n.name) > 0;
    if (!half) {
      bool reads_half = false, reads_other = false;
      for (const auto& in : n.inputs) {
        if (in.empty() || !produced.count(in)) continue;  // weights and graph inputs
        (half_values.count(in) ? reads_half : reads_other) = true;
      }
      half = reads_half && !reads_other;
    }
    if (half) half_values.insert(n.outputs.begin(), n.outputs.end());
    else keep.insert(n.name);
  }
  return keep;
}

}  // namespace

PtqResult run_ptq(Model m, const PtqSettings& s) {
  PtqResult r;
  quant::QuantOptions opts = s.opts;
  quant::CalibOptions copts = s.copts;
  const bool correct_bias = s.correct_bias;
  const std::string& weight_rounding = s.weight_rounding;
  const Model fp = m;
  // Weights held by Constant nodes (PaddlePaddle exports) become initializers the quantizer can
  // rewrite; the float reference `fp` stays as loaded.
  // Weight-only: BatchNormalization folds into the weights first (per-channel scales absorb it,
  // and the file loses its four floats a channel).
  const bool fold_bn = opts.type == quant::QuantType::Weight;
  auto clean_up = [fold_bn](Model& model) {
    passes::run_basic_pipeline(model);
    return fold_bn ? passes::fold_channel_affine_into_weights(model) : size_t(0);
  };
  clean_up(m);
  // ...and in If/Loop/Scan bodies (Silero VAD keeps its weights there).
  passes::optimize_subgraphs(m, clean_up);
  // Weight-only: re-parameterized identities leave their convolutions (quant/identity_split.h).
  r.identities = opts.type == quant::QuantType::Weight ? quant::split_identity_from_convs(m, opts) : 0;
  std::optional<analysis::InputSamples> samples;
  if (!s.input_file.empty()) {
    samples.emplace(analysis::open_input_files(m.graph, split_list(s.input_file), s.images));
    if (s.calibrate_size && *s.calibrate_size < samples->count()) {
      auto all = std::make_shared<analysis::InputSamples>(std::move(*samples));
      samples.emplace(first_samples(all, *s.calibrate_size, analysis::required_inputs(m.graph).size()));
    }
  }
  std::optional<analysis::InputSamples> eval_samples;
  if (!s.eval_file.empty()) eval_samples.emplace(analysis::open_input_files(m.graph, split_list(s.eval_file), s.images));
  const analysis::InputSamples* eval = eval_samples ? &*eval_samples : samples ? &*samples : nullptr;
  r.calibration_samples = samples ? samples->count() : 0;
  r.evaluation_samples = eval ? eval->count() : 0;

  r.acts = quant::activations_to_calibrate(m, opts);
  const auto& acts = r.acts;
  // Without data, weight-only bias correction takes its input means from the all-zeros input.
  std::optional<analysis::InputSamples> zero_probe;
  if (!samples && correct_bias && opts.type == quant::QuantType::Weight) zero_probe = quant::zero_input_probe(m.graph);
  r.zero_probe = zero_probe.has_value();
  const analysis::InputSamples* mean_samples = samples ? &*samples : zero_probe ? &*zero_probe : nullptr;
  const auto mean_inputs = correct_bias && mean_samples ? quant::bias_correction_inputs(m, opts) : std::map<std::string, int>{};
  // FULL_QUANT rounds to nearest unless asked: GPTQ fits the weights to float inputs, and with
  // int8 activations PaddleOCR det lost by it (held-out mean cosine 0.976 against 0.984).
  const bool gptq = samples.has_value() && (weight_rounding == "GPTQ" || (weight_rounding == "AUTO" && opts.type == quant::QuantType::Weight));
  if (weight_rounding == "GPTQ" && !samples) fail("--weightRounding GPTQ needs calibration data: give --inputFile");
  // Without data nothing measures the shift rounding to nearest leaves in each channel's output
  // (bias correction needs the inputs' means); keeping the channel sums removes most of it.
  opts.keep_weight_sums = weight_rounding == "KEEP_SUM" ||
                          (weight_rounding == "AUTO" && !samples && opts.type == quant::QuantType::Weight);
  std::optional<quant::HessianCollector> hessians;
  if (gptq) hessians.emplace(m, opts);
  quant::CalibStats& stats = r.stats;
  if ((!acts.empty() || !mean_inputs.empty() || (hessians && !hessians->names().empty())) && samples) {
    if (!copts.progress)
      copts.progress = [](size_t done, size_t total) {
        std::cerr << fmt::format("\rcalibrating {}/{} samples", done, total) << (done == total ? "\n" : "") << std::flush;
      };
    const auto calib_start = std::chrono::steady_clock::now();
    stats = quant::calibrate_stats(m, acts, mean_inputs, *samples, copts, hessians ? &*hessians : nullptr);
    const double calib_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - calib_start).count();
    if (!s.quiet)
      std::cout << fmt::format("  calibration:           {} sample(s) in {:.2f} s ({:.1f} ms per sample)\n", samples->count(),
                             calib_s, 1000 * calib_s / double(std::max<size_t>(1, samples->count())));
  } else if (!mean_inputs.empty() && zero_probe) {
    try {
      stats = quant::calibrate_stats(m, acts, mean_inputs, *zero_probe, copts, nullptr);
    } catch (const std::exception& e) {  // a model that cannot run on zeros of these shapes keeps its biases
      if (!s.quiet) std::cout << fmt::format("  bias correction:       skipped, the model does not run on zero inputs ({})\n", e.what());
    }
    // A mean that is not finite (log of 0, say) would poison the bias: that layer keeps its own.
    std::erase_if(stats.channel_means, [](const auto& kv) {
      return std::any_of(kv.second.begin(), kv.second.end(), [](double v) { return !std::isfinite(v); });
    });
  }
  std::map<std::string, quant::Range> ranges;
  for (const auto& [n, a] : stats.activations) ranges[n] = a.range;
  if (hessians) {
    const auto start = std::chrono::steady_clock::now();
    r.rounding = quant::round_weights_to_inputs(m, opts, hessians->hessians(),
                                                correct_bias ? quant::bias_corrected_weights(m, opts) : std::set<std::string>{});
    opts.rounded = r.rounding->weights;
    r.rounding_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The quantized model with `float_layers` kept float; bias correction applies to the layers
  // whose weights are quantized.
  auto build_with = [&](const std::set<std::string>& float_layers, const std::string& why, bool keep) {
    Model q = m;
    quant::QuantOptions o = opts;
    for (const auto& l : float_layers) o.keep_float.emplace(l, why);
    auto c = correct_bias ? quant::correct_biases(q, o, stats.channel_means) : std::vector<quant::BiasCorrection>{};
    auto sm = quant::quantize_model(q, o, ranges);
    if (keep) r.corrections = std::move(c), r.sum = std::move(sm);
    return q;
  };
  const quant::BuildQuantized build = [&](const std::set<std::string>& f) { return build_with(f, "", false); };

  std::optional<quant::AccuracyProbe> probe;
  if (eval) probe.emplace(fp, *eval, s.metric, copts.session, s.labels, split_list(s.accuracy_outputs));
  if (s.want_sensitivity && probe) {
    const auto layers = quant::quantizable_nodes(m, opts);
    r.ranking = quant::rank_layers(layers, build, *probe, [](size_t done, size_t total) {
      std::cerr << fmt::format("\rsensitivity {}/{} layers", done, total) << (done == total ? "\n" : "") << std::flush;
    });
    if (s.max_loss >= 0) r.fallback = quant::fit_loss_budget(r.ranking, s.max_loss, build, *probe);
  }
  if (r.fallback) r.reverted.insert(r.fallback->reverted.begin(), r.fallback->reverted.end());
  const std::string fallback_why = fmt::format("sensitivity fallback for --maxAccuracyLoss {} ({})", s.max_loss, s.metric_name);
  r.quantized = build_with(r.reverted, fallback_why, true);
  Model& q = r.quantized;
  if (s.mixed_precision != DType::Float32) {
    // Every layer the quantizer could take, whatever the skip lists say; those without Q/DQ stayed float.
    quant::QuantOptions all = opts;
    all.skip_nodes.clear();
    all.skip_op_types.clear();
    all.keep_float.clear();
    all.min_quant_weight_size = all.min_quant_weight_channel = 0;
    const std::set<std::string> int8 = int8_layers(q);
    std::set<std::string> float_layers;
    for (const auto& l : quant::quantizable_nodes(m, all))
      if (!int8.count(l)) float_layers.insert(l);
    r.half_nodes = passes::to_half_compute_form(q, s.mixed_precision, mixed_precision_float32(q, float_layers));
  }
  // Quantized weights are integers already; the scales stay float32 (weights_to_fp16 leaves them).
  r.fp16_weights = s.fp16 ? passes::weights_to_fp16(q) : 0;
  // Weight-only MindIR: short channels' scales leave the weight (quant/channel_scales.h).
  r.moved_scales = s.out_fmt == ModelFormat::MindIR && opts.type == quant::QuantType::Weight ? quant::move_channel_scales_after_ops(q) : 0;
  if (r.fallback && r.fp16_weights == 0 && r.moved_scales == 0 && r.half_nodes == 0) r.score = r.fallback->final_score;
  else if (probe) r.score = probe->score(q);
  r.opts = std::move(opts);
  r.prepared = std::move(m);
  return r;
}

}  // namespace ms::cli
