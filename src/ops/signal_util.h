// Helpers of the signal ops (DFT, STFT, windows, MelWeightMatrix).
#pragma once
#include <complex>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

// Naive DFT of x (length n_in, zero-padded or truncated to n), first n_out bins:
// X[k] = sum_j x[j] e^{-+2 pi i jk/n}; inverse uses e^{+...} and scales by 1/n.
std::vector<std::complex<double>> naive_dft(const std::vector<std::complex<double>>& x, int64_t n, int64_t n_out,
                                            bool inverse);
// Scalar integer input (window size, frame step, ...) as int64.
int64_t scalar_int_input(const KernelContext& ctx, size_t i);
// Writes doubles into a new tensor of dtype dt (any numeric dtype).
Tensor tensor_from_doubles(DType dt, Shape shape, const std::vector<double>& v, const std::string& who);

}  // namespace ms
