// The post-training quantization pipeline of `ms quant`, callable without its command line (onnx2ms
// --precision int8 runs it too): cleans the float model up, opens the calibration samples,
// calibrates, rounds (GPTQ / nearest / keep-sum), corrects biases, quantizes, optionally ranks layer
// sensitivity and keeps the most sensitive float for a loss budget, and scores the result against
// the float model. Printing what it did and writing the model are the caller's.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "formats/model_io.h"
#include "preprocess/image_options.h"
#include "quant/accuracy.h"
#include "quant/bias_correction.h"
#include "quant/calibrate.h"
#include "quant/quantizer.h"
#include "quant/sensitivity.h"
#include "quant/weight_rounding.h"

namespace ms::cli {

struct PtqSettings {
  quant::QuantOptions opts;
  quant::CalibOptions copts;
  bool correct_bias = true;
  std::string weight_rounding = "AUTO";  // AUTO | GPTQ | NEAREST | KEEP_SUM
  std::string input_file;                // calibration samples, one file per model input, comma-separated
  std::string eval_file;                 // evaluation samples (default: the calibration samples)
  preprocess::ImageOptions images;       // for image folders
  std::optional<size_t> calibrate_size;  // use only the first N calibration samples
  quant::AccuracyMetric metric = quant::AccuracyMetric::Cosine;
  std::string metric_name = "cosine";
  std::optional<std::vector<int64_t>> labels;
  std::string accuracy_outputs;  // comma-separated
  bool want_sensitivity = false;
  double max_loss = -1;  // < 0: no budget
  bool fp16 = false;     // float weights that stay float stored as float16
  // --mixedPrecision: Float16/BFloat16 = the layers that stay float compute in that type (the
  // half-precision compute form around the int8 layers); Float32 = off.
  DType mixed_precision = DType::Float32;
  ModelFormat out_fmt = ModelFormat::MindIR;
  bool quiet = false;  // no calibration timing line
};

struct PtqResult {
  Model prepared;   // the cleaned-up float model the quantizer worked on
  Model quantized;  // the model to write
  quant::QuantOptions opts;  // as used (rounding and keep-sum decided)
  quant::CalibStats stats;
  std::vector<std::string> acts;  // activations calibrated
  size_t identities = 0;          // square 1x1 convolutions that kept their diagonal float
  bool zero_probe = false;        // bias correction took its means at the all-zeros input
  std::optional<quant::RoundedWeights> rounding;
  double rounding_s = 0;
  std::vector<quant::BiasCorrection> corrections;
  quant::QuantSummary sum;
  std::vector<quant::LayerSensitivity> ranking;
  std::optional<quant::FallbackResult> fallback;
  std::set<std::string> reverted;  // layers the loss budget kept float
  size_t fp16_weights = 0, moved_scales = 0;
  size_t half_nodes = 0;  // nodes computing in the --mixedPrecision type
  std::optional<quant::AccuracyScore> score;  // against the float model, on the evaluation samples
  size_t calibration_samples = 0, evaluation_samples = 0;
};

// `m`: the float model, opset already quantizable (quant::upgrade_to_quantizable_opset). Prints the
// calibration progress (stderr) and timing line (stdout).
PtqResult run_ptq(Model m, const PtqSettings& s);

}  // namespace ms::cli
