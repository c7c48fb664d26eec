#include "analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ms::analysis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> values_of(const Tensor& t) {
  if (t.dtype() == DType::String) fail("string tensors cannot be compared numerically");
  return t.to_double_vector();
}

// Indices of the k largest values of one row, largest first (lower index first among ties; NaN
// ranks below everything, which also keeps the ordering strict).
std::vector<int64_t> top_k(const double* row, int64_t n, int64_t k) {
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min(k, n);
  auto key = [&](int64_t i) { return std::isnan(row[i]) ? -kInf : row[i]; };
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int64_t a, int64_t b) { return key(a) > key(b) || (key(a) == key(b) && a < b); });
  idx.resize(k);
  return idx;
}

}  // namespace

void add_top_k_agreement(const Tensor& actual, const Tensor& ref, TensorMetrics& m) {
  auto layout = classification_layout(ref);
  if (!layout || !m.comparable || !dtype_is_float(actual.dtype())) return;
  const ClassLayout& l = *layout;
  auto a = values_of(actual);
  auto r = values_of(ref);
  int64_t agree1 = 0, agree5 = 0;
  for (int64_t row = 0; row < l.rows; ++row) {
    const double* pa = a.data() + row * l.classes;
    const double* pr = r.data() + row * l.classes;
    int64_t ref_top = top_k(pr, l.classes, 1)[0];
    auto mine = top_k(pa, l.classes, 5);
    agree1 += mine[0] == ref_top;
    agree5 += std::find(mine.begin(), mine.end(), ref_top) != mine.end();
  }
  m.top1 = static_cast<double>(agree1) / static_cast<double>(l.rows);
  if (l.classes > 5) m.top5 = static_cast<double>(agree5) / static_cast<double>(l.rows);
}

std::optional<ClassLayout> classification_layout(const Tensor& t) {
  if (!dtype_is_float(t.dtype()) || t.numel() == 0) return std::nullopt;
  Shape dims;
  for (int64_t d : t.shape())
    if (d != 1) dims.push_back(d);
  if (dims.empty() || dims.size() > 2 || dims.back() < 2) return std::nullopt;
  return ClassLayout{dims.size() == 2 ? dims[0] : 1, dims.back()};
}

std::vector<int64_t> row_argmax(const Tensor& t, const ClassLayout& layout) {
  auto v = values_of(t);
  std::vector<int64_t> out;
  for (int64_t row = 0; row < layout.rows; ++row) out.push_back(top_k(v.data() + row * layout.classes, layout.classes, 1)[0]);
  return out;
}

TensorMetrics compare_tensors(const Tensor& actual, const Tensor& ref, const Tolerance& tol) {
  TensorMetrics m;
  m.shape = actual.shape();
  m.ref_shape = ref.shape();
  m.same_shape = actual.shape() == ref.shape();
  if (actual.numel() != ref.numel()) {
    m.comparable = false;
    return m;
  }
  auto a = values_of(actual);
  auto r = values_of(ref);
  m.count = static_cast<int64_t>(a.size());
  double ref_peak = 0;
  for (double x : r)
    if (std::isfinite(x)) ref_peak = std::max(ref_peak, std::abs(x));
  const double rel_floor = 1e-6 * ref_peak;
  const double atol = tol.atol.value_or(0), rtol = tol.rtol.value_or(0);
  double dot = 0, norm_a = 0, norm_r = 0, sum_abs = 0, sum_sq = 0;
  int64_t finite = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double x = a[i], y = r[i];
    if (!std::isfinite(x) || !std::isfinite(y)) {
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same) ++m.nonfinite_mismatches;
      continue;
    }
    ++finite;
    double d = std::abs(x - y);
    dot += x * y;
    norm_a += x * x;
    norm_r += y * y;
    sum_abs += d;
    sum_sq += d * d;
    if (m.max_abs_index < 0 || d > m.max_abs) {
      m.max_abs = d;
      m.max_abs_index = static_cast<int64_t>(i);
    }
    double den = std::max(std::abs(y), rel_floor);
    double rel = d == 0 ? 0 : den == 0 ? kInf : d / den;
    m.max_rel = std::max(m.max_rel, rel);
    if (tol.elementwise() && d > atol + rtol * std::abs(y)) ++m.tolerance_violations;
  }
  if (norm_a == 0 && norm_r == 0)
    m.cosine = 1;
  else if (norm_a == 0 || norm_r == 0)
    m.cosine = 0;
  else
    m.cosine = std::clamp(dot / (std::sqrt(norm_a) * std::sqrt(norm_r)), -1.0, 1.0);
  if (finite > 0) {
    m.mean_abs = sum_abs / static_cast<double>(finite);
    m.mse = sum_sq / static_cast<double>(finite);
  }
  m.psnr = m.mse == 0 ? kInf : 10 * std::log10(ref_peak * ref_peak / m.mse);
  return m;
}

bool within_tolerance(const TensorMetrics& m, const Tolerance& tol) {
  if (!m.comparable || m.nonfinite_mismatches > 0) return false;
  if (tol.elementwise() && m.tolerance_violations > 0) return false;
  if (tol.min_cosine && !(m.cosine >= *tol.min_cosine)) return false;
  return true;
}

}  // namespace ms::analysis
