// Separable N-d resampling shared by Resize and Upsample: every axis maps each output index to a
// list of (input index, weight) taps; the output is the tensor product of the axes' taps.
#pragma once
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

struct ResizeOptions {
  std::string mode = "nearest";  // nearest | linear | cubic
  std::string coord = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";  // or "simple": floor when upsampling, ceil when downsampling
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  bool antialias = false;
};

// One axis of a separable resampling: per output index, the input indices it reads and their
// weights (one tap for nearest, two for linear, four for cubic, more with antialias). Without a
// region of interest: coordinate mode tf_crop_and_resize is not handled here. The fast Resize
// kernel takes its taps from here, so that both compute the same coordinates.
struct ResampleTap {
  int64_t idx;
  double w;
};
std::vector<std::vector<ResampleTap>> resample_axis_taps(int64_t in, int64_t out, double scale, const ResizeOptions& opt,
                                                         const std::string& label);

// scales: per axis (rank entries) as used by the coordinate transform; roi: empty or 2*rank
// (starts then ends, only read by tf_crop_and_resize).
Tensor resample(const Tensor& x, const Shape& out, const std::vector<double>& scales,
                const std::vector<double>& roi, const ResizeOptions& opt, const std::string& label);

}  // namespace ms
