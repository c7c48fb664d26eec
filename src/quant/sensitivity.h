// Accuracy-aware mixed precision. Sensitivity: each quantizable layer is quantized alone (every
// other layer float) and the loss it causes against the float model is measured (quant/accuracy.h).
// Fallback: with a loss budget, the most sensitive layers are reverted to float, the shortest
// prefix of the ranking that brings the all-quantized model's loss within the budget: prefixes of
// 1, 2, 4, ... layers are measured until one fits, then the gap is bisected. Loss is not strictly
// monotone in the prefix length, so the answer is the fewest layers among the prefixes measured.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "quant/accuracy.h"

namespace ms::quant {

// Builds the quantized model with the given layers kept float.
using BuildQuantized = std::function<Model(const std::set<std::string>& float_layers)>;

struct LayerSensitivity {
  std::string node;
  double loss = 0;  // of the model with only this layer quantized
};

// Ranked most sensitive first (ties keep graph order). `progress(done, total)` after each layer.
std::vector<LayerSensitivity> rank_layers(const std::vector<std::string>& layers, const BuildQuantized& build,
                                          const AccuracyProbe& probe,
                                          const std::function<void(size_t, size_t)>& progress = {});

struct FallbackStep {
  size_t reverted = 0;  // layers kept float (a prefix of the ranking)
  AccuracyScore score;
};

struct FallbackResult {
  AccuracyScore all_quantized;
  AccuracyScore final_score;
  std::vector<std::string> reverted;  // most sensitive first
  bool met = false;                   // final loss <= budget
  std::vector<FallbackStep> steps;    // every measurement, in the order taken
};

FallbackResult fit_loss_budget(const std::vector<LayerSensitivity>& ranking, double budget, const BuildQuantized& build,
                               const AccuracyProbe& probe);

}  // namespace ms::quant
