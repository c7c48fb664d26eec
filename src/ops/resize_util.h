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

// ONNX Runtime's bilinear arithmetic (its CPU Resize/Upsample "UpsampleBilinear"), reproduced bit
// for bit because a model that re-quantizes after a Resize (dynamic quantization: Resize, Concat,
// DynamicQuantizeLinear) turns a one-ulp difference into a whole quantization step, which later
// layers amplify (docs/dynamic-quantization.md). Per axis: a float32 coordinate from the float32
// scale, clamped into the input, taps floor and floor+1 (clamped), weights the float32 distances to
// the other tap (0.5 each when both taps coincide). Each output is the float32 sum, in this order,
// of (wx_lo*wy_lo)*x[lo][lo] + (wx_hi*wy_lo)*x[lo][hi] + (wx_lo*wy_hi)*x[hi][lo] + (wx_hi*wy_hi)*x[hi][hi].
struct BilinearAxis {
  std::vector<int64_t> lo, hi;    // per output index
  std::vector<float> w_lo, w_hi;  // weights of lo and hi
};
// Whether ONNX Runtime takes that path: linear mode on float32, no antialias or exclude_outside, a
// rank-2 input or a rank-4 one resizing only its last two axes, a coordinate transformation other than
// tf_crop_and_resize and half_pixel_symmetric.
bool bilinear_like_ort(const Shape& in, const Shape& out, const std::vector<double>& scales, const ResizeOptions& opt);
BilinearAxis bilinear_axis(int64_t in, int64_t out, double scale, const std::string& coord);
// Output rows [row_begin, row_end) of the (planes * oh) rows of y, each ow wide; x holds planes of h x w.
void bilinear_rows(const float* x, float* y, int64_t h, int64_t w, const BilinearAxis& rows, const BilinearAxis& cols,
                   int64_t row_begin, int64_t row_end);

// scales: per axis (rank entries) as used by the coordinate transform; roi: empty or 2*rank
// (starts then ends, only read by tf_crop_and_resize).
Tensor resample(const Tensor& x, const Shape& out, const std::vector<double>& scales,
                const std::vector<double>& roi, const ResizeOptions& opt, const std::string& label);

}  // namespace ms
