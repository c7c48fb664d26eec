#include "ops/resize_util.h"

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

}  // namespace

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
