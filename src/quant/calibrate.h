// Calibration: runs the float model over the samples on the fast kernels and streams each chosen
// activation into its observer the moment its node produces it (runtime/session.h ValueWatch).
// One sample is alive at a time, so memory does not grow with the number of samples.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/input_samples.h"
#include "core/graph.h"
#include "quant/input_hessian.h"
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

// What calibration learnt about one activation.
struct ActivationStats {
  Range range;              // chosen by the method
  Range observed;           // extremes seen
  double overflow = 0;      // fraction of the values outside `range` (NaN when unknown)
};

struct CalibStats {
  std::map<std::string, ActivationStats> activations;  // float32 tensors among the requested ones
  // Mean over samples and positions of each channel, for tensors requested with their channel
  // axis (bias correction): the channel axis is 1 for NCHW activations, the last for Gemm rows.
  std::map<std::string, std::vector<double>> channel_means;
};

// One pass over the samples: ranges of `names`, channel means of `mean_axes` (tensor -> axis), and
// the weights' input Hessians when `hessians` is given.
CalibStats calibrate_stats(const Model& m, const std::vector<std::string>& names, const std::map<std::string, int>& mean_axes,
                           const analysis::InputSamples& samples, const CalibOptions& opts,
                           HessianCollector* hessians = nullptr);

// The model calibration runs: m with activations and residual adds fused into the convolutions and
// matrix products before them (passes fuse_activation), so that values travel between the fast
// kernels in the channel-blocked layout as in plain inference, when every value of `watched` that m
// produces is still produced; else m as written.
std::shared_ptr<const Model> fused_for_calibration(const Model& m, const std::set<std::string>& watched);

// The range of every tensor in `names` that is float32 in all samples (others are left out).
std::map<std::string, Range> calibrate(const Model& m, const std::vector<std::string>& names,
                                       const analysis::InputSamples& samples, const CalibOptions& opts);

}  // namespace ms::quant
