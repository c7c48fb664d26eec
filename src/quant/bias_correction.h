// Bias correction (Nagel et al., "Data-Free Quantization", 2019): rounding a weight to int8 shifts
// the expected output of each channel by E[(W_q - W) x] = sum_r (W_q - W)[m, r, ...] * E[x_r],
// which a following BatchNorm or activation cannot undo. The shift is computed from the
// calibration inputs' per-channel means and subtracted from the bias (a zero bias is added where the
// node has none), on the float model before its weights are quantized.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "quant/quantizer.h"

namespace ms::quant {

// The activations whose per-channel means bias correction needs: tensor -> its channel axis.
std::map<std::string, int> bias_correction_inputs(const Model& m, const QuantOptions& opts);

// The weights (weight_content_key) whose nodes correct_biases will correct.
std::set<std::string> bias_corrected_weights(const Model& m, const QuantOptions& opts);

struct BiasCorrection {
  std::string node;
  double max_shift = 0;  // largest |E[(W_q - W) x]| over the output channels
};

// Corrects the bias of every node with a quantized weight, a bias input and a known input mean.
// `means` holds the per-channel means of bias_correction_inputs(). Returns what was corrected.
std::vector<BiasCorrection> correct_biases(Model& m, const QuantOptions& opts,
                                           const std::map<std::string, std::vector<double>>& means);

// The expected output shift per output channel (exposed for tests).
std::vector<double> expected_output_shift(const Tensor& w, const Tensor& w_quantized, const QuantWeightSpec& spec,
                                          const std::vector<double>& input_mean);

}  // namespace ms::quant
