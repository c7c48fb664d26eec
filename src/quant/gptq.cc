#include "quant/gptq.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <dnnl.h>

#include "core/error.h"

namespace ms::quant {
namespace {

// Threads pay for a parallel region from this many columns on (a 512-column block: 45 M
// multiply-adds for the Cholesky factor, 22 M for the inverse).
constexpr int64_t kParallelColumns = 128;

// a[0..n) · b[0..n): vectorized, so summed in a different order than a plain loop (double sums of
// at most 512 terms: the orders agree to about 1e-16 relative).
__attribute__((target_clones("avx512f", "avx2", "default"))) double dot(const double* a, const double* b, int64_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// y[0..n) -= a * x[0..n): GPTQ's column update, most of its work (rows x cols² / 2).
__attribute__((target_clones("avx512f", "avx2", "default"))) void subtract_scaled(float* __restrict y, const float* __restrict x,
                                                                                  float a, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] -= a * x[j];
}

// In place: the lower Cholesky factor L of the n x n `a` (a = L Lᵀ); false when a is not positive
// definite. Only the lower triangle is read and written. Once column j's diagonal is known, the rows
// below it are independent.
bool cholesky_lower(std::vector<double>& a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const double* rj = &a[size_t(j * n)];
    double d = a[size_t(j * n + j)] - dot(rj, rj, j);
    if (!(d > 0)) return false;
    d = std::sqrt(d);
    a[size_t(j * n + j)] = d;
#pragma omp parallel for schedule(static) if (n - j > kParallelColumns)
    for (int64_t i = j + 1; i < n; ++i) a[size_t(i * n + j)] = (a[size_t(i * n + j)] - dot(&a[size_t(i * n)], rj, j)) / d;
  }
  return true;
}

// The upper factor U of H⁻¹ = Uᵀ U, whose rows GPTQ's column updates read. Factoring H with its
// rows and columns reversed, J H J = M Mᵀ, gives H = R Rᵀ with R = J M J upper triangular; then
// H⁻¹ = R⁻ᵀ R⁻¹, so U = R⁻¹ = J M⁻¹ J: one Cholesky and one triangular inverse.
bool inverse_upper_factor(const std::vector<double>& h, int64_t n, std::vector<double>& u) {
  std::vector<double> m(size_t(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) m[size_t(i * n + j)] = h[size_t((n - 1 - i) * n + (n - 1 - j))];
  if (!cholesky_lower(m, n)) return false;
  // M⁻¹ one column at a time by forward substitution (contiguous rows of M), stored reversed; the
  // columns are independent.
  u.assign(size_t(n * n), 0.0);
#pragma omp parallel if (n > kParallelColumns)
  {
    std::vector<double> x(static_cast<size_t>(n));
#pragma omp for schedule(dynamic, 8)
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t i = c; i < n; ++i) {
        const double* mi = &m[size_t(i * n)];
        x[size_t(i)] = ((i == c ? 1.0 : 0.0) - dot(mi + c, &x[size_t(c)], i - c)) / mi[i];
        u[size_t((n - 1 - i) * n + (n - 1 - c))] = x[size_t(i)];
      }
    }
  }
  return true;
}

int8_t round_to_grid(float w, float scale, int qmax) {
  return int8_t(std::clamp(std::nearbyint(w / scale), float(-qmax), float(qmax)));
}

// GPTQ over the columns in their order.
std::vector<int8_t> round_columns_in_order(std::vector<float> w, int64_t rows, int64_t cols, const std::vector<float>& scale,
                                           int qmax, std::vector<double> h, double damp) {
  std::vector<int8_t> q(size_t(rows * cols));
  double mean_diag = 0;
  for (int64_t i = 0; i < cols; ++i) mean_diag += h[size_t(i * cols + i)];
  mean_diag /= double(std::max<int64_t>(1, cols));
  std::vector<double> u;
  bool ok = mean_diag > 0;
  if (ok) {
    // A column no vector reached carries no information: it is rounded to nearest and keeps its
    // own error (a unit diagonal, no coupling).
    for (int64_t i = 0; i < cols; ++i) {
      double& d = h[size_t(i * cols + i)];
      d = d == 0 ? mean_diag : d + damp * mean_diag;
    }
    ok = inverse_upper_factor(h, cols, u);
  }
  if (!ok) {  // no usable H: nearest
    for (size_t k = 0; k < q.size(); ++k) q[k] = round_to_grid(w[k], scale[k], qmax);
    return q;
  }
  // The column updates in float. A row's updates read only that row
  // and U: the rows run in parallel, each through all columns (U, 1 MB at most, stays in cache).
  const std::vector<float> uf(u.begin(), u.end());
#pragma omp parallel for schedule(static) if (rows * cols > kParallelColumns * kParallelColumns)
  for (int64_t r = 0; r < rows; ++r) {
    float* row = &w[size_t(r * cols)];
    for (int64_t i = 0; i < cols; ++i) {
      const float* ui = &uf[size_t(i * cols)];
      const size_t k = size_t(r * cols + i);
      q[k] = round_to_grid(row[i], scale[k], qmax);
      const float err = (row[i] - float(q[k]) * scale[k]) / ui[i];
      subtract_scaled(row + i + 1, ui + i + 1, err, cols - i - 1);
    }
  }
  return q;
}

}  // namespace

double hessian_coupling(double vectors, int64_t dim) { return vectors > 0 ? vectors / (vectors + double(dim)) : 0.0; }

std::vector<int8_t> gptq_round(std::vector<float> w, int64_t rows, int64_t cols, const std::vector<float>& scale, int qmax,
                               std::vector<double> h, double coupling, double damp) {
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (i != j) h[size_t(i * cols + j)] *= coupling;
  // Columns with the most input energy first (GPTQ's "act order"): their errors matter most, and
  // rounded early they can still be compensated by every other column.
  std::vector<int64_t> order(static_cast<size_t>(cols));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return h[size_t(a * cols + a)] > h[size_t(b * cols + b)]; });
  std::vector<float> pw(w.size()), ps(w.size());
  std::vector<double> ph(h.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      pw[size_t(r * cols + c)] = w[size_t(r * cols + order[size_t(c)])];
      ps[size_t(r * cols + c)] = scale[size_t(r * cols + order[size_t(c)])];
    }
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < cols; ++j) ph[size_t(i * cols + j)] = h[size_t(order[size_t(i)] * cols + order[size_t(j)])];
  const std::vector<int8_t> pq = round_columns_in_order(std::move(pw), rows, cols, ps, qmax, std::move(ph), damp);
  std::vector<int8_t> q(pq.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) q[size_t(r * cols + order[size_t(c)])] = pq[size_t(r * cols + c)];
  return q;
}

double output_error(const std::vector<float>& w, const std::vector<int8_t>& q, const std::vector<float>& scale, int64_t rows,
                    int64_t cols, const std::vector<double>& h) {
  // tr(E H Eᵀ) as one product E H, then a row-wise dot with E (float: it ranks two roundings).
  std::vector<float> e(w.size()), eh(w.size()), hf(h.begin(), h.end());
  for (size_t k = 0; k < w.size(); ++k) e[k] = float(q[k]) * scale[k] - w[k];
  if (dnnl_sgemm('N', 'N', rows, cols, cols, 1.f, e.data(), cols, hf.data(), cols, 0.f, eh.data(), cols) != dnnl_success)
    fail("internal: oneDNN sgemm failed for a {}x{}x{} product", rows, cols, cols);
  double total = 0;
  for (size_t k = 0; k < w.size(); ++k) total += double(e[k]) * double(eh[k]);
  return total;
}

}  // namespace ms::quant
