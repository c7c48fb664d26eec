// The activation sums that the weight zero points of ConvInteger / MatMulInteger multiply
// (integer_weights.h): Σ (x − xz) over each output's receptive field, exact in int32, and the pass
// that subtracts wz8[m] times them from the primitive's output.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ops/conv_pool_util.h"

namespace ms::rt {

// Convolution: s[(n·G + g)·O + o] = Σ over channels c of group g and the window taps of output o
// that fall inside the input (padding adds nothing) of (x − xz). x is int8/uint8 NCHW (N, C,
// spatial... as g describes, 1 to 3 spatial axes); `channel_sums` is scratch of N·G·I int32.
void conv_window_sums(const Tensor& x, int32_t xz, int64_t groups, const WindowGeom& g, int32_t* channel_sums,
                      int32_t* s);

// Matrix product: s[i] = Σ_k (a[i, k] − az) over the rows of a (rank ≥ 2, K = last dim).
void matmul_row_sums(const Tensor& a, int32_t az, int32_t* s);

// y[(n·M + m)·O + o] −= zp[m] · s[(n·G + m / (M / G))·O + o]  for n < N (y int32, NC... layout).
void subtract_channel_products(int32_t* y, int64_t N, int64_t M, int64_t G, int64_t O, const std::vector<int32_t>& zp,
                               const int32_t* s);

// y[i·N + j] −= zp[j] · s[i]  for i < rows, j < N.
void subtract_column_products(int32_t* y, int64_t rows, int64_t N, const std::vector<int32_t>& zp, const int32_t* s);

}  // namespace ms::rt
