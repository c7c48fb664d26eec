#include "quant/observer.h"

#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ms::quant {
namespace {

// Calibration streams every activation of every sample through an observer, so these loops are
// written to vectorize (no branch per element) and split over the threads for large tensors: the
// goal is calibration at about the cost of plain inference.
constexpr int64_t kParallelFrom = int64_t(1) << 16;

// The finite values' extremes and counts (NaN and infinities say nothing about a clipping range).
struct Scan {
  float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity(), peak = 0;
  int64_t finite = 0, zeros = 0;
  void merge(const Scan& o) {
    lo = std::min(lo, o.lo), hi = std::max(hi, o.hi), peak = std::max(peak, o.peak);
    finite += o.finite, zeros += o.zeros;
  }
};

__attribute__((target_clones("avx512f", "avx2", "default"))) Scan scan_chunk(const float* x, int64_t n) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  float lo = inf, hi = -inf, peak = 0;
  int64_t finite = 0, zeros = 0;
  // 32-bit counts per block keep the counters as wide as the float lanes (64-bit ones halved the
  // vector width).
  constexpr int64_t kBlock = int64_t(1) << 20;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    int32_t block_finite = 0, block_zeros = 0;
#pragma omp simd reduction(min : lo) reduction(max : hi, peak) reduction(+ : block_finite, block_zeros)
    for (int64_t i = b; i < e; ++i) {
      const float v = x[i], a = std::fabs(v);
      const bool f = a <= FLT_MAX;
      lo = std::min(lo, f ? v : inf);
      hi = std::max(hi, f ? v : -inf);
      peak = std::max(peak, f ? a : 0.f);
      block_finite += f;
      block_zeros += v == 0.f;
    }
    finite += block_finite;
    zeros += block_zeros;
  }
  Scan s;
  s.lo = lo, s.hi = hi, s.peak = peak, s.finite = finite, s.zeros = zeros;
  return s;
}

// Calls f(begin, end) on one chunk of [0, n) per thread (one chunk on the caller for small n).
template <class F>
void per_thread_chunks(int64_t n, F&& f) {
  if (n < kParallelFrom || omp_get_max_threads() == 1) return f(int64_t(0), n);
#pragma omp parallel
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    f(n * t / nt, n * (t + 1) / nt);
  }
}

Scan scan(const float* x, int64_t n) {
  Scan all;
  per_thread_chunks(n, [&](int64_t b, int64_t e) {
    const Scan s = scan_chunk(x + b, e - b);
#pragma omp critical(ms_observer_scan)
    all.merge(s);
  });
  return all;
}

// Bin of each value: k = floor(|x| / width) (the last bin takes the rest) for x >= 0, bins + k for
// x < 0, 2 * bins for a non-finite value (not counted).
__attribute__((target_clones("avx512f", "avx2", "default"))) void bin_indices(const float* x, int64_t n, double width,
                                                                              int bins, int32_t* out) {
  const double last = bins - 1;
  // A multiplication by the reciprocal, not a division per value: division dominated calibration
  // time. The two differ only for a value within an ulp of a bin edge.
  const double per_width = width > 0 ? 1.0 / width : 0.0;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i], a = std::fabs(v);
    const double q = std::min(double(a) * per_width, last);
    const int32_t k = static_cast<int32_t>(q);
    out[i] = a <= FLT_MAX ? (v < 0 ? bins + k : k) : 2 * bins;
  }
}

}  // namespace

CalibMethod parse_calib_method(const std::string& s) {
  if (s == "MAX_MIN") return CalibMethod::MaxMin;
  if (s == "PERCENTILE") return CalibMethod::Percentile;
  if (s == "KL") return CalibMethod::KL;
  if (s == "MSE") return CalibMethod::MSE;
  if (s == "AUTO") return CalibMethod::Auto;
  fail("--calibMethod must be AUTO, MAX_MIN, PERCENTILE, KL or MSE, not '{}'", s);
}

const char* calib_method_name(CalibMethod m) {
  switch (m) {
    case CalibMethod::MaxMin: return "MAX_MIN";
    case CalibMethod::Percentile: return "PERCENTILE";
    case CalibMethod::KL: return "KL";
    case CalibMethod::MSE: return "MSE";
    case CalibMethod::Auto: return "AUTO";
  }
  return "?";
}

Histogram::Histogram(int bins_per_side) : neg_(bins_per_side, 0.0), pos_(bins_per_side, 0.0) {}

void Histogram::grow_to(double magnitude) {
  const int n = bins_per_side();
  if (width_ == 0) {
    // Slightly wider than needed so that the largest value lands inside the last bin.
    width_ = magnitude / n * (1 + 1e-6);
    return;
  }
  while (magnitude >= width_ * n) {
    for (auto* h : {&neg_, &pos_}) {
      for (int k = 0; k < n / 2; ++k) (*h)[k] = (*h)[2 * k] + (*h)[2 * k + 1];
      std::fill(h->begin() + n / 2, h->end(), 0.0);
    }
    width_ *= 2;
  }
}

void Histogram::add(const float* x, int64_t n) {
  const Scan all = scan(x, n);
  if (all.finite == 0) return;
  // One growth per batch: the batch's largest magnitude decides the width before binning.
  if (all.peak > 0) grow_to(all.peak);
  if (!seen_) min_ = all.lo, max_ = all.hi, seen_ = true;
  min_ = std::min(min_, all.lo);
  max_ = std::max(max_, all.hi);
  zeros_ += double(all.zeros);
  total_ += double(all.finite);
  // Counts per thread in small integer bins (cache resident), added up at the end.
  const int nb = bins_per_side();
  const double width = width_;
  per_thread_chunks(n, [&](int64_t b, int64_t e) {
    std::vector<uint32_t> counts(size_t(2 * nb + 1), 0);
    constexpr int64_t kBlock = 1024;
    int32_t idx[kBlock];
    for (int64_t i = b; i < e; i += kBlock) {
      const int64_t m = std::min(kBlock, e - i);
      bin_indices(x + i, m, width, nb, idx);
      for (int64_t j = 0; j < m; ++j) ++counts[size_t(idx[j])];
    }
#pragma omp critical(ms_observer_bins)
    for (int k = 0; k < nb; ++k) {
      pos_[k] += counts[size_t(k)];
      neg_[k] += counts[size_t(nb + k)];
    }
  });
}

std::vector<double> Histogram::magnitude() const {
  std::vector<double> m(pos_.size());
  for (size_t k = 0; k < m.size(); ++k) m[k] = neg_[k] + pos_[k];
  return m;
}

std::vector<double> Histogram::signed_counts() const {
  std::vector<double> s(neg_.rbegin(), neg_.rend());
  s.insert(s.end(), pos_.begin(), pos_.end());
  return s;
}

float Histogram::quantile(double q) const {
  if (total_ == 0) return 0;
  const std::vector<double> s = signed_counts();
  const double target = std::clamp(q, 0.0, 1.0) * total_;
  double cum = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    if (s[j] > 0 && cum + s[j] >= target) {
      const double v = signed_origin() + (double(j) + (target - cum) / s[j]) * width_;
      return std::clamp(float(v), min_, max_);
    }
    cum += s[j];
  }
  return max_;
}

float kl_threshold(const std::vector<double>& mag, double w, int levels) {
  int nb = 0;
  for (int k = 0; k < int(mag.size()); ++k)
    if (mag[k] > 0) nb = k + 1;
  if (nb <= levels) return float(nb * w);  // representable without merging bins: no clipping
  std::vector<double> suffix(nb + 1, 0.0);  // suffix[i] = mass at or beyond bin i
  for (int k = nb - 1; k >= 0; --k) suffix[k] = suffix[k + 1] + mag[k];
  double best = std::numeric_limits<double>::infinity();
  int best_i = nb;
  std::vector<double> q;
  for (int i = levels; i <= nb; ++i) {
    // P: the distribution clipped at bin i (the clipped mass joins the last kept bin).
    // Q: the first i bins merged into `levels` chunks, each chunk's mass spread over its
    //    non-empty bins (what dequantization of the clipped tensor can represent).
    q.assign(i, 0.0);
    for (int j = 0; j < levels; ++j) {
      const int b0 = int(int64_t(j) * i / levels), b1 = int(int64_t(j + 1) * i / levels);
      double mass = 0;
      int nonzero = 0;
      for (int b = b0; b < b1; ++b)
        if (mag[b] > 0) mass += mag[b], ++nonzero;
      for (int b = b0; b < b1; ++b)
        if (mag[b] > 0) q[b] = mass / nonzero;
    }
    const double p_total = suffix[0];
    const double q_total = suffix[0] - suffix[i];
    double kl = 0;
    for (int b = 0; b < i; ++b) {
      const double p = (b == i - 1 ? mag[b] + suffix[i] : mag[b]) / p_total;
      if (p <= 0) continue;
      // An empty Q bin where P has mass: smoothed instead of infinite, so candidates still rank.
      const double qq = std::max(q[b] / q_total, 1e-12);
      kl += p * std::log(p / qq);
    }
    if (kl < best) best = kl, best_i = i;
  }
  return float(best_i * w);
}

Range mse_range(const Histogram& h, int levels) {
  const double lo0 = std::min(0.0, double(h.min())), hi0 = std::max(0.0, double(h.max()));
  const std::vector<double> s = h.signed_counts();
  const double w = h.width(), origin = h.signed_origin();
  // Expected squared error of quantizing to [lo, hi]: bin centres stand for their values.
  auto error = [&](double lo, double hi) {
    const double delta = (hi - lo) / levels;
    double err = 0;
    for (size_t j = 0; j < s.size(); ++j) {
      if (s[j] == 0) continue;
      const double c = origin + (double(j) + 0.5) * w;
      if (c < lo) err += s[j] * (c - lo) * (c - lo);
      else if (c > hi) err += s[j] * (c - hi) * (c - hi);
      else err += s[j] * delta * delta / 12;  // uniform rounding noise
    }
    return err;
  };
  // The two ends are searched separately (an outlier is often one-sided), a few alternating
  // rounds over shrink factors 1.00, 0.99, ..., 0.01 of the observed end.
  double lo = lo0, hi = hi0;
  for (int round = 0; round < 2; ++round) {
    double best = std::numeric_limits<double>::infinity(), arg = hi;
    for (int k = 100; k >= 1; --k)
      if (double e = error(lo, hi0 * k / 100.0); e < best) best = e, arg = hi0 * k / 100.0;
    hi = arg;
    best = std::numeric_limits<double>::infinity(), arg = lo;
    for (int k = 100; k >= 1; --k)
      if (double e = error(lo0 * k / 100.0, hi); e < best) best = e, arg = lo0 * k / 100.0;
    lo = arg;
  }
  return Range{float(lo), float(hi)};
}

double Histogram::fraction_outside(double lo, double hi) const {
  if (total_ == 0) return 0;
  const std::vector<double> s = signed_counts();
  const double origin = signed_origin();
  double out = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == 0) continue;
    const double a = origin + double(k) * width_, b = a + width_;
    const double below = std::clamp((lo - a) / width_, 0.0, 1.0), above = std::clamp((b - hi) / width_, 0.0, 1.0);
    out += s[k] * std::min(1.0, below + above);
  }
  return std::min(1.0, out / total_);
}

Observer::Observer(CalibMethod method, double percentile) : method_(method), percentile_(percentile) {}

void Observer::observe(const Tensor& t) {
  if (t.dtype() != DType::Float32) fail("calibration observes float32 tensors, got {}", dtype_name(t.dtype()));
  const float* x = t.data<float>();
  const int64_t n = t.numel();
  if (method_ == CalibMethod::MaxMin) {
    const Scan s = scan(x, n);
    if (s.finite == 0) return;
    if (!seen_) min_ = s.lo, max_ = s.hi, seen_ = true;
    min_ = std::min(min_, s.lo);
    max_ = std::max(max_, s.hi);
    return;
  }
  hist_.add(x, n);
  seen_ = seen_ || hist_.total() > 0;
}

Range Observer::observed() const {
  return method_ == CalibMethod::MaxMin ? Range{min_, max_} : Range{hist_.min(), hist_.max()};
}

double Observer::overflow(Range r) const {
  const Range o = observed();
  if (o.lo >= r.lo && o.hi <= r.hi) return 0;
  // MAX_MIN keeps no histogram; its own range clips nothing, and anything else is out of reach.
  if (method_ == CalibMethod::MaxMin) return std::numeric_limits<double>::quiet_NaN();
  return hist_.fraction_outside(r.lo, r.hi);
}

Range Observer::range() const {
  switch (method_) {
    case CalibMethod::MaxMin: return {min_, max_};
    case CalibMethod::Percentile: {
      const double q = percentile_ / 100.0;
      return {hist_.quantile(1.0 - q), hist_.quantile(q)};
    }
    case CalibMethod::KL: {
      // A one-signed tensor (after ReLU) gets all 256 uint8 steps on its side, not half of them.
      const bool one_signed = hist_.min() >= 0 || hist_.max() <= 0;
      // Exact zeros (half of a ReLU output) are exact under any threshold; left in, their spike
      // in bin 0 dominates the divergence and drives the threshold far too low.
      std::vector<double> mag = hist_.magnitude();
      mag[0] -= hist_.zeros();
      const float t = kl_threshold(mag, hist_.width(), one_signed ? 256 : 128);
      return {std::max(hist_.min(), -t), std::min(hist_.max(), t)};
    }
    case CalibMethod::MSE: return mse_range(hist_);
    case CalibMethod::Auto: {
      const double q = percentile_ / 100.0;
      const Range p{hist_.quantile(1.0 - q), hist_.quantile(q)};
      const double seen = double(hist_.max()) - double(hist_.min()), kept = double(p.hi) - double(p.lo);
      if (seen > kAutoOutlierRatio * kept && kept > 0) return p;
      return {hist_.min(), hist_.max()};
    }
  }
  return {};
}

}  // namespace ms::quant
