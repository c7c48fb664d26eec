#include "runtime/kernels/zero_point_sums.h"

#include <algorithm>
#include <array>

#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

template <class T>
__attribute__((target_clones("avx512f", "avx2", "default"))) void add_row(const T* x, int32_t* out, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] += int32_t(x[i]);
}

template <class T>
__attribute__((target_clones("avx512f", "avx2", "default"))) int32_t row_sum(const T* x, int64_t n) {
  int32_t s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += int32_t(x[i]);
  return s;
}

// cs[(n·G + g)·I + i] = Σ_{c in group g} x[n, c, i]; split along i as well, so that one image of
// one group still spreads over the threads.
template <class T>
void channel_sums(const T* x, int64_t N, int64_t C, int64_t G, int64_t I, int32_t* cs) {
  constexpr int64_t kPiece = 4096;
  const int64_t cg = C / G, pieces = (I + kPiece - 1) / kPiece;
  parallel_chunks(N * G * pieces, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t ng = t / pieces, begin = (t % pieces) * kPiece, len = std::min(kPiece, I - begin);
      const int64_t n = ng / G, gi = ng % G;
      int32_t* out = cs + ng * I + begin;
      std::fill(out, out + len, 0);
      for (int64_t c = 0; c < cg; ++c) add_row(x + (n * C + gi * cg + c) * I + begin, out, len);
    }
  }, cg * kPiece);
}

// Number of taps of each output position along one axis that land inside the input.
std::vector<int32_t> valid_taps(const AxisWindow& a) {
  std::vector<int32_t> n(a.out, 0);
  for (int64_t o = 0; o < a.out; ++o)
    for (int64_t k = 0; k < a.k; ++k) {
      const int64_t i = o * a.stride + k * a.dilation - a.pad_begin;
      n[o] += i >= 0 && i < a.in;
    }
  return n;
}

}  // namespace

void conv_window_sums(const Tensor& x, int32_t xz, int64_t groups, const WindowGeom& g, int32_t* cs, int32_t* s) {
  // Up to three spatial axes, unit ones in front: (d, h, w).
  std::array<AxisWindow, 3> ax;
  const size_t nsp = g.axes.size();
  for (size_t i = 0; i < nsp; ++i) ax[3 - nsp + i] = g.axes[i];
  for (size_t i = 0; i < 3 - nsp; ++i) ax[i] = AxisWindow{1, 1, 1, 1, 0, 0, 1};
  const int64_t N = x.dim(0), C = x.dim(1), I = ax[0].in * ax[1].in * ax[2].in;
  const int64_t O = ax[0].out * ax[1].out * ax[2].out, cg = C / groups;
  if (x.dtype() == DType::UInt8) channel_sums(x.data<uint8_t>(), N, C, groups, I, cs);
  else channel_sums(x.data<int8_t>(), N, C, groups, I, cs);
  const auto cnt_d = valid_taps(ax[0]), cnt_h = valid_taps(ax[1]), cnt_w = valid_taps(ax[2]);
  const AxisWindow &D = ax[0], &H = ax[1], &W = ax[2];
  // Per tap along w: the output range [lo, hi) whose input index o·stride + off is inside [0, in).
  std::vector<int64_t> off(W.k), lo(W.k), hi(W.k);
  for (int64_t k = 0; k < W.k; ++k) {
    off[k] = k * W.dilation - W.pad_begin;
    lo[k] = off[k] >= 0 ? 0 : (-off[k] + W.stride - 1) / W.stride;
    hi[k] = W.in - 1 - off[k] < 0 ? 0 : std::min(W.out, (W.in - 1 - off[k]) / W.stride + 1);
  }
  const int64_t rows = N * groups * D.out * H.out;
  parallel_chunks(rows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t oh = r % H.out, od = (r / H.out) % D.out, ng = r / (H.out * D.out);
      int32_t* srow = s + ng * O + (od * H.out + oh) * W.out;
      std::fill(srow, srow + W.out, 0);
      for (int64_t kd = 0; kd < D.k; ++kd) {
        const int64_t id = od * D.stride + kd * D.dilation - D.pad_begin;
        if (id < 0 || id >= D.in) continue;
        for (int64_t kh = 0; kh < H.k; ++kh) {
          const int64_t ih = oh * H.stride + kh * H.dilation - H.pad_begin;
          if (ih < 0 || ih >= H.in) continue;
          const int32_t* crow = cs + ng * I + (id * H.in + ih) * W.in;
          for (int64_t k = 0; k < W.k; ++k)
            for (int64_t ow = lo[k]; ow < hi[k]; ++ow) srow[ow] += crow[ow * W.stride + off[k]];
        }
      }
      const int32_t taps_dh = cnt_d[od] * cnt_h[oh];
      for (int64_t ow = 0; ow < W.out; ++ow) srow[ow] -= xz * int32_t(cg) * taps_dh * cnt_w[ow];
    }
  }, W.out * D.k * H.k * W.k);
}

void matmul_row_sums(const Tensor& a, int32_t az, int32_t* s) {
  const int64_t K = a.dim(-1), rows = K ? a.numel() / K : 0;
  parallel_chunks(rows, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      s[i] = (a.dtype() == DType::UInt8 ? row_sum(a.data<uint8_t>() + i * K, K) : row_sum(a.data<int8_t>() + i * K, K)) -
             az * int32_t(K);
  }, K);
}

void subtract_channel_products(int32_t* y, int64_t N, int64_t M, int64_t G, int64_t O, const std::vector<int32_t>& zp,
                               const int32_t* s) {
  const int64_t mg = M / G;
  parallel_chunks(N * M, [&](int64_t b, int64_t e) {
    for (int64_t nm = b; nm < e; ++nm) {
      const int64_t n = nm / M, m = nm % M;
      const int32_t z = zp[m];
      if (!z) continue;
      int32_t* row = y + nm * O;
      const int32_t* srow = s + (n * G + m / mg) * O;
#pragma omp simd
      for (int64_t o = 0; o < O; ++o) row[o] -= z * srow[o];
    }
  }, O);
}

void subtract_column_products(int32_t* y, int64_t rows, int64_t N, const std::vector<int32_t>& zp, const int32_t* s) {
  parallel_chunks(rows, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int32_t* row = y + i * N;
      const int32_t si = s[i];
      const int32_t* z = zp.data();
#pragma omp simd
      for (int64_t j = 0; j < N; ++j) row[j] -= z[j] * si;
    }
  }, N);
}

}  // namespace ms::rt
