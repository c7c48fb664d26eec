#include "ops/resize_util.h"

#include <algorithm>
#include <cmath>

namespace ms {
namespace {

using Tap = ResampleTap;
struct AxisTaps {
  std::vector<std::vector<Tap>> taps;  // per output index
  std::vector<bool> extrapolate;       // tf_crop_and_resize sample outside the input
};

// `out_size` is the real output size; the length formulas use in * scale, which differs from it when the
// scale does not divide evenly (the spec's reference does the same).
double to_original(double x, double scale, int64_t in, int64_t out_size, double roi_start, double roi_end,
                   const std::string& coord, const std::string& label) {
  const double out = double(in) * scale;
  if (coord == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (coord == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (coord == "align_corners") return out == 1 ? 0.0 : x * double(in - 1) / (out - 1);
  if (coord == "asymmetric") return x / scale;
  if (coord == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (coord == "tf_crop_and_resize")
    return out > 1 ? roi_start * double(in - 1) + x * (roi_end - roi_start) * double(in - 1) / (out - 1)
                   : 0.5 * (roi_start + roi_end) * double(in - 1);
  if (coord == "half_pixel_symmetric") {
    // The output window is centred on the input one when rounding changed the size.
    const double adjustment = double(out_size) / out;
    const double center = double(in) / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  fail_unsupported("{}: coordinate_transformation_mode '{}' is not supported", label, coord);
}

int64_t nearest_index(double x, double scale, const std::string& mode, const std::string& label) {
  const double f = std::floor(x);
  if (mode == "round_prefer_floor") return int64_t(x - f == 0.5 ? f : std::round(x));
  if (mode == "round_prefer_ceil") return int64_t(x - f == 0.5 ? f + 1 : std::round(x));
  if (mode == "floor") return int64_t(f);
  if (mode == "ceil") return int64_t(std::ceil(x));
  if (mode == "simple") return int64_t(scale < 1 ? std::ceil(x) : f);
  fail_unsupported("{}: nearest_mode '{}' is not supported", label, mode);
}

double cubic_weight(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

AxisTaps axis_taps(int64_t in, int64_t out, double scale, double roi_start, double roi_end,
                   const ResizeOptions& opt, const std::string& label) {
  AxisTaps a;
  a.taps.resize(out);
  a.extrapolate.assign(out, false);
  const bool linear = opt.mode == "linear", cubic = opt.mode == "cubic";
  if (!linear && !cubic && opt.mode != "nearest") fail_unsupported("{}: mode '{}' is not supported", label, opt.mode);
  // Identity axis: no sampling needed (also keeps the tap count of untouched axes at one).
  if (in == out && scale == 1.0 && opt.coord != "tf_crop_and_resize") {
    for (int64_t o = 0; o < out; ++o) a.taps[o] = {{o, 1.0}};
    return a;
  }
  for (int64_t o = 0; o < out; ++o) {
    const double x = to_original(double(o), scale, in, out, roi_start, roi_end, opt.coord, label);
    if (opt.coord == "tf_crop_and_resize" && (x < 0 || x > double(in - 1))) {
      a.extrapolate[o] = true;
      continue;
    }
    auto& taps = a.taps[o];
    if (!linear && !cubic) {
      int64_t i = nearest_index(x, scale, opt.nearest_mode, label);
      taps.push_back({std::clamp<int64_t>(i, 0, in - 1), 1.0});
      continue;
    }
    // Filter taps around floor(x); antialiasing widens the filter by 1/scale when downsampling.
    const double s = opt.antialias ? std::min(scale, 1.0) : 1.0;
    const double radius = linear ? 1.0 : 2.0;
    const int64_t start = int64_t(std::floor(-radius / s)) + 1;
    const double base = std::floor(x), ratio = x - base;
    double sum = 0;
    for (int64_t i = start; i < 2 - start; ++i) {
      const double t = s * (double(i) - ratio);
      double w = linear ? std::max(0.0, 1 - std::fabs(t)) : cubic_weight(t, opt.cubic_a);
      int64_t idx = int64_t(base) + i;
      if (idx < 0 || idx >= in) {
        if (opt.exclude_outside) w = 0;
        idx = std::clamp<int64_t>(idx, 0, in - 1);
      }
      if (w == 0) continue;
      taps.push_back({idx, w});
      sum += w;
    }
    if (taps.empty()) taps.push_back({std::clamp<int64_t>(int64_t(base), 0, in - 1), 0.0});
    if ((opt.antialias || opt.exclude_outside) && sum != 0)
      for (auto& t : taps) t.w /= sum;
  }
  return a;
}

// ONNX Runtime's coordinate transformations, in float32 as it computes them.
float ort_coordinate(float x, float scale, float out, float in, const std::string& coord) {
  if (coord == "half_pixel") return ((x + 0.5f) / scale) - 0.5f;
  if (coord == "pytorch_half_pixel") return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  if (coord == "align_corners") return out == 1 ? 0.0f : x * (in - 1) / (out - 1);
  if (coord == "asymmetric") return x / scale;
  return (x + 0.5f) / scale;  // tf_half_pixel_for_nn
}

}  // namespace

bool bilinear_like_ort(const Shape& in, const Shape& out, const std::vector<double>& scales, const ResizeOptions& opt) {
  static const char* const coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                       "tf_half_pixel_for_nn"};
  if (opt.mode != "linear" || opt.antialias || opt.exclude_outside) return false;
  if (std::find(std::begin(coords), std::end(coords), opt.coord) == std::end(coords)) return false;
  if (in.size() != 2 && in.size() != 4) return false;
  for (size_t d = 0; d + 2 < in.size(); ++d)
    if (out[d] != in[d] || scales[d] != 1.0) return false;
  return true;
}

BilinearAxis bilinear_axis(int64_t in, int64_t out, double scale, const std::string& coord) {
  BilinearAxis a;
  // A scale from sizes is out / in in double; rounded to float it is float(out) / float(in), what ONNX
  // Runtime computes (double has more than 2 * 24 + 2 bits, so the double rounding is innocuous).
  const auto s = static_cast<float>(scale);
  for (int64_t o = 0; o < out; ++o) {
    // The resized length is the spec's in * scale, not ONNX Runtime's integer output size: the two differ
    // only when in * scale is fractional (align_corners downsampling by 0.6: ONNX's backend case
    // resize_downsample_scales_linear_align_corners, which ONNX Runtime fails), and there the spec wins.
    const auto length = static_cast<float>(static_cast<double>(in) * scale);
    float x = s == 1 ? static_cast<float>(o) : ort_coordinate(static_cast<float>(o), s, length, static_cast<float>(in), coord);
    x = std::max(0.0f, std::min(x, static_cast<float>(in - 1)));
    const int64_t lo = std::min<int64_t>(static_cast<int64_t>(x), in - 1), hi = std::min<int64_t>(lo + 1, in - 1);
    a.lo.push_back(lo);
    a.hi.push_back(hi);
    // The weight of one tap is the distance to the other.
    a.w_lo.push_back(lo == hi ? 0.5f : std::fabs(x - static_cast<float>(hi)));
    a.w_hi.push_back(lo == hi ? 0.5f : std::fabs(x - static_cast<float>(lo)));
  }
  return a;
}

void bilinear_rows(const float* x, float* y, int64_t h, int64_t w, const BilinearAxis& rows, const BilinearAxis& cols,
                   int64_t row_begin, int64_t row_end) {
  const auto oh = static_cast<int64_t>(rows.lo.size()), ow = static_cast<int64_t>(cols.lo.size());
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t plane = row / oh, o = row % oh;
    const float* r_lo = x + (plane * h + rows.lo[o]) * w;
    const float* r_hi = x + (plane * h + rows.hi[o]) * w;
    const float wy_lo = rows.w_lo[o], wy_hi = rows.w_hi[o];
    float* dst = y + row * ow;
    for (int64_t c = 0; c < ow; ++c) {
      const int64_t c_lo = cols.lo[c], c_hi = cols.hi[c];
      // Left to right, every product and sum rounded to float32 (no contraction: see CMakeLists.txt).
      dst[c] = cols.w_lo[c] * wy_lo * r_lo[c_lo] + cols.w_hi[c] * wy_lo * r_lo[c_hi] +
               cols.w_lo[c] * wy_hi * r_hi[c_lo] + cols.w_hi[c] * wy_hi * r_hi[c_hi];
    }
  }
}

std::vector<std::vector<ResampleTap>> resample_axis_taps(int64_t in, int64_t out, double scale, const ResizeOptions& opt,
                                                         const std::string& label) {
  if (opt.coord == "tf_crop_and_resize") fail("internal: {}: tf_crop_and_resize needs the region of interest", label);
  return axis_taps(in, out, scale, 0.0, 1.0, opt, label).taps;
}

Tensor resample(const Tensor& x, const Shape& out, const std::vector<double>& scales,
                const std::vector<double>& roi, const ResizeOptions& opt, const std::string& label) {
  const size_t r = x.shape().size();
  std::vector<AxisTaps> axes;
  for (size_t d = 0; d < r; ++d) {
    if (x.dim(d) == 0 && out[d] > 0) fail("{}: cannot resize an empty axis {} to {}", label, d, out[d]);
    const double rs = roi.empty() ? 0.0 : roi[d], re = roi.empty() ? 1.0 : roi[d + r];
    axes.push_back(axis_taps(x.dim(d), out[d], scales[d], rs, re, opt, label));
  }
  Tensor y(x.dtype(), out);
  if (x.dtype() == DType::Float32 && bilinear_like_ort(x.shape(), out, scales, opt)) {
    const int64_t h = x.dim(int(r) - 2), w = x.dim(int(r) - 1);
    const auto rows = bilinear_axis(h, out[r - 2], scales[r - 2], opt.coord);
    const auto cols = bilinear_axis(w, out[r - 1], scales[r - 1], opt.coord);
    bilinear_rows(x.data<float>(), y.data<float>(), h, w, rows, cols, 0, y.numel() / std::max<int64_t>(out[r - 1], 1));
    return y;
  }
  const auto in_strides = strides_of(x.shape());
  dispatch_all_numeric(x.dtype(), label, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const int64_t total = y.numel();
    std::vector<int64_t> oi(r, 0), ti(r, 0);
    for (int64_t k = 0; k < total; ++k) {
      bool extrap = false;
      for (size_t d = 0; d < r; ++d) extrap = extrap || axes[d].extrapolate[oi[d]];
      double acc = 0;
      if (extrap) {
        acc = opt.extrapolation;
      } else {
        // Walk the cartesian product of the axes' taps.
        std::fill(ti.begin(), ti.end(), 0);
        for (bool more = true; more;) {
          double w = 1;
          int64_t off = 0;
          for (size_t d = 0; d < r; ++d) {
            const Tap& t = axes[d].taps[oi[d]][ti[d]];
            w *= t.w;
            off += t.idx * in_strides[d];
          }
          acc += w * double(xp[off]);
          more = false;
          for (int d = int(r) - 1; d >= 0; --d) {
            if (++ti[d] < int64_t(axes[d].taps[oi[d]].size())) {
              more = true;
              break;
            }
            ti[d] = 0;
          }
        }
      }
      if constexpr (std::is_integral_v<T>) {
        // Integer inputs: round the interpolated value and keep it in range.
        acc = std::clamp<double>(std::nearbyint(acc), double(std::numeric_limits<T>::lowest()),
                                 double(std::numeric_limits<T>::max()));
      }
      yp[k] = T(acc);
      for (int d = int(r) - 1; d >= 0; --d) {
        if (++oi[d] < out[d]) break;
        oi[d] = 0;
      }
    }
  });
  return y;
}

}  // namespace ms
