// Rounds the weights calibration saw the inputs of with GPTQ (quant/gptq.h) instead of to nearest,
// on the grids rounding to nearest would use (the same scales), so that the file's layout and
// size do not change, only which integers it holds.
#pragma once
#include <map>
#include <memory>
#include <set>

#include "quant/input_hessian.h"
#include "quant/quant_params.h"
#include "quant/quantizer.h"

namespace ms::quant {

struct RoundedWeights {
  std::shared_ptr<const std::map<std::string, QuantizedWeight>> weights;  // for QuantOptions::rounded
  // tr(E H Eᵀ) summed over the rounded weights: the squared output error on the calibration
  // vectors, rounded to nearest and with GPTQ.
  double error_nearest = 0, error_rounded = 0;
  // The same per weight (weight_content_key).
  std::map<std::string, std::pair<double, double>> errors;
};

// `bias_corrected` (weight_content_key) names the weights whose mean output shift bias correction
// removes afterwards: they are fitted to their inputs' covariance, the rest to their second moment.
RoundedWeights round_weights_to_inputs(const Model& m, const QuantOptions& opts, const std::map<WeightKey, InputHessian>& hessians,
                                       const std::set<std::string>& bias_corrected);

}  // namespace ms::quant
