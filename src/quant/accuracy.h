// How far a quantized model is from its float original, as one number ("the loss") that the
// sensitivity analysis ranks layers by and --maxAccuracyLoss bounds. The float model's outputs on
// the evaluation samples are computed once; each candidate model is scored against them.
//
// Loss per metric (always >= 0, smaller is better; the worst graph output counts):
// Only the outputs named in `outputs` count when it is not empty (models that also expose
// intermediate features as outputs, e.g. IS-Net's side outputs, are judged by their real result).
//   cosine  1 - cosine similarity, averaged over the samples
//   psnr    dB below 60 dB: max(0, 60 - PSNR), PSNR averaged over the samples (so a budget of 22
//           asks for PSNR >= 38 dB; 60 dB is where 8-bit rounding noise stops being measurable)
//   top1    points (0..100) of top-1 lost: without labels 100 * (1 - agreement of the argmax with the
//           float model's); with labels the float model's accuracy minus the quantized model's
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/input_samples.h"
#include "core/graph.h"
#include "runtime/session.h"

namespace ms::quant {

enum class AccuracyMetric { Cosine, Psnr, Top1 };
AccuracyMetric parse_accuracy_metric(const std::string& s);  // "cosine" | "psnr" | "top1"
const char* accuracy_metric_name(AccuracyMetric m);
inline constexpr double kPsnrLossReferenceDb = 60;

struct AccuracyScore {
  double loss = 0;
  double mean_cosine = 1, min_cosine = 1;  // worst output's mean; worst single (output, sample)
  double mean_psnr = 0;                    // worst output's mean (capped at 200 dB for exact outputs)
  std::optional<double> top1;              // agreement (0..1) or accuracy with labels
  std::optional<double> float_top1;        // the float model's accuracy, with labels
};

class AccuracyProbe {
 public:
  AccuracyProbe(const Model& float_model, const analysis::InputSamples& samples, AccuracyMetric metric,
                SessionOptions session, std::optional<std::vector<int64_t>> labels = std::nullopt,
                const std::vector<std::string>& outputs = {});
  AccuracyScore score(const Model& candidate) const;
  AccuracyMetric metric() const { return metric_; }
  size_t samples() const { return samples_.count(); }

 private:
  const analysis::InputSamples& samples_;
  AccuracyMetric metric_;
  SessionOptions session_;
  std::optional<std::vector<int64_t>> labels_;
  std::vector<bool> scored_;  // per graph output
  std::vector<std::vector<Tensor>> reference_;  // [sample][output]; empty tensor where not float
  std::optional<size_t> class_output_;          // first classification-like output (top1)
  double float_accuracy_ = 0;
};

}  // namespace ms::quant
