// The `ms quant --report` file: per layer its precision, quantization parameters, how much of the
// calibration data its activation range clips, its sensitivity and why it stayed float; the
// model-level loss before/after fallback and the size before/after. JSON (.json) or a self-contained
// HTML page (any other extension). Plain data, filled by the command.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ms::report {

struct QuantReportActivation {
  std::string tensor;
  std::string dtype;  // "uint8" | "int8"
  double scale = 0;
  int zero_point = 0;
  double lo = 0, hi = 0;                   // chosen range
  double observed_lo = 0, observed_hi = 0;  // extremes seen in calibration
  double clipping_ratio = 0;  // share of the observed range cut off: 1 - (hi - lo) / (observed_hi - observed_lo)
  double overflow_rate = 0;   // share of calibration values outside [lo, hi] (NaN: not known for MAX_MIN)
};

struct QuantReportLayer {
  std::string node;
  std::string op;
  std::string precision;  // "int8" | "float"
  std::string why_float;  // empty when quantized
  std::optional<double> weight_scale_min, weight_scale_max;  // per-channel scales (or the one scale)
  int weight_channels = 0;
  std::vector<QuantReportActivation> activations;
  std::optional<double> sensitivity;  // loss with only this layer quantized
  std::optional<int> sensitivity_rank;  // 1 = most sensitive
  std::optional<double> bias_shift;     // largest expected output shift removed by bias correction
  std::string rounding = "nearest";  // "GPTQ" | "nearest" | "KEEP_SUM" (nearest, channel sums kept)
  // GPTQ rounding: its output error on the calibration inputs over rounding to nearest's.
  std::optional<double> gptq_error_ratio;
};

struct QuantReportStep {
  size_t reverted = 0;
  double loss = 0;
};

struct QuantReport {
  std::string model_file, output_file, quant_type, calib_method, metric;
  size_t calibration_samples = 0, evaluation_samples = 0;
  std::string evaluation_file;
  std::optional<double> budget;  // --maxAccuracyLoss
  std::optional<double> loss_all_quantized;
  double loss_final = 0;
  bool budget_met = true;
  double mean_cosine = 1, min_cosine = 1, mean_psnr = 0;
  std::optional<double> top1;
  uint64_t size_before = 0, size_after = 0;
  uint64_t weight_bytes_before = 0, weight_bytes_after = 0;
  std::vector<QuantReportLayer> layers;  // graph order
  std::vector<QuantReportStep> fallback_steps;
};

nlohmann::json quant_report_json(const QuantReport& r);
std::string quant_report_html(const QuantReport& r);
// Picks the rendering from the extension and writes the file atomically.
void write_quant_report(const QuantReport& r, const std::string& path);

}  // namespace ms::report
