// Observers: statistics of one tensor streamed over calibration samples, turned into the float
// range [lo, hi] that its quantization should cover. Memory is fixed (a histogram of constant bin
// count), whatever the number of samples.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace ms::quant {

// AUTO: the observed min/max, except for a tensor whose observed range is more than
// kAutoOutlierRatio times its percentile range: its few far outliers would coarsen the step for
// everything else (IS-Net's ReLU outputs reach 700 with a body under 30), so it gets the
// percentile range. Moderate tails are kept, since they carry signal (PaddleOCR det loses accuracy
// when they are clipped).
enum class CalibMethod { MaxMin, Percentile, KL, MSE, Auto };
inline constexpr double kAutoOutlierRatio = 3.0;
// "MAX_MIN" | "PERCENTILE" | "KL" | "MSE" | "AUTO"; anything else is an InvalidInput error.
CalibMethod parse_calib_method(const std::string& s);
const char* calib_method_name(CalibMethod m);

struct Range {
  float lo = 0, hi = 0;
};

// A histogram of the signed values, stored as two halves (|x| of negatives, positives) of
// `bins_per_side` bins of a common width. Bins are aligned at 0, so when a value falls beyond the
// covered range the width doubles by merging neighbouring pairs: exact, one pass, bounded memory.
class Histogram {
 public:
  explicit Histogram(int bins_per_side = 2048);
  void add(const float* x, int64_t n);

  int bins_per_side() const { return static_cast<int>(pos_.size()); }
  double width() const { return width_; }
  double total() const { return total_; }
  float min() const { return min_; }
  float max() const { return max_; }
  double zeros() const { return zeros_; }  // exact zeros (inside bin 0)
  // Counts of |x| per bin of [k*width, (k+1)*width) (negative and positive halves summed).
  std::vector<double> magnitude() const;
  // The value below which fraction q (0..1) of the samples lie (linear within a bin), clamped to
  // the exact min/max seen.
  float quantile(double q) const;
  // Signed bins from the most negative to the most positive: counts and the lower edge of bin 0.
  std::vector<double> signed_counts() const;
  double signed_origin() const { return -width_ * bins_per_side(); }
  // The fraction of the values below lo or above hi (linear within a bin).
  double fraction_outside(double lo, double hi) const;

 private:
  void grow_to(double magnitude);
  std::vector<double> neg_, pos_;  // neg_[k] counts x in (-(k+1)w, -kw]; pos_[k] x in [kw, (k+1)w)
  double width_ = 0;
  double total_ = 0;
  double zeros_ = 0;
  float min_ = 0, max_ = 0;
  bool seen_ = false;
};

// The symmetric clipping threshold that minimises KL(P || Q) between the |x| distribution and its
// version quantized to `levels` bins (entropy calibration). Returns a magnitude.
float kl_threshold(const std::vector<double>& magnitude, double bin_width, int levels = 128);

// The range [lo, hi] (a sub-range of the observed one, containing 0) that minimises the expected
// squared error of quantizing to `levels` steps: rounding noise step^2/12 inside, clipping error
// outside; each end searched over a grid of shrink factors of the observed end.
Range mse_range(const Histogram& h, int levels = 255);

// Streams tensors and answers the range for the chosen method.
class Observer {
 public:
  explicit Observer(CalibMethod method, double percentile = 99.99);
  void observe(const Tensor& t);  // float32 only; other dtypes are InvalidInput
  bool empty() const { return !seen_; }
  Range range() const;
  // The extremes seen, and the fraction of the values a range clips (0 for MAX_MIN's own range).
  Range observed() const;
  double overflow(Range r) const;

 private:
  CalibMethod method_;
  double percentile_;
  Histogram hist_;
  float min_ = 0, max_ = 0;
  bool seen_ = false;
};

}  // namespace ms::quant
