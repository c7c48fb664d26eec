// Calibration: runs the float model over the samples with the chosen activations exposed as extra
// graph outputs (analysis/tensor_capture.h) and streams each into its observer. One sample is
// alive at a time, so memory does not grow with the number of samples.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/input_samples.h"
#include "core/graph.h"
#include "quant/observer.h"
#include "runtime/session.h"

namespace ms::quant {

struct CalibOptions {
  CalibMethod method = CalibMethod::MaxMin;
  double percentile = 99.99;
  // Fast kernels are checked against the reference kernels by their own tests; they keep
  // calibration near the cost of plain inference.
  SessionOptions session;
  std::function<void(size_t done, size_t total)> progress;  // after each sample
};

// The range of every tensor in `names` that is float32 in all samples (others are left out).
std::map<std::string, Range> calibrate(const Model& m, const std::vector<std::string>& names,
                                       const analysis::InputSamples& samples, const CalibOptions& opts);

}  // namespace ms::quant
