// GPTQ (Frantar et al., "GPTQ: Accurate Post-Training Quantization for Generative Pre-trained
// Transformers", 2022). Rounding to nearest minimises ||W_q - W||², blind to the inputs; what a
// layer should keep small is its output error ||(W_q - W) X||² = tr((W_q - W) H (W_q - W)ᵀ) with
// H = X Xᵀ over calibration vectors. GPTQ rounds one column at a time and moves its rounding error
// onto the columns not yet rounded, in the proportions that cancel it best given H (the optimal
// brain surgeon update, through the Cholesky factor of H⁻¹).
#pragma once
#include <cstdint>
#include <vector>

namespace ms::quant {

// Rounds the `rows` x `cols` row-major `w` to integers q in [-qmax, qmax] with w ~= q * scale
// (one scale per element, same layout). `h` is cols x cols, symmetric positive semi-definite.
// Estimated from few vectors, H's off-diagonal is mostly noise that GPTQ would fit: it is shrunk
// towards the diagonal, keeping `coupling` of it (1: all; 0: rounding to nearest), and damped by
// `damp` times its mean diagonal. Returns q, row-major.
std::vector<int8_t> gptq_round(std::vector<float> w, int64_t rows, int64_t cols, const std::vector<float>& scale, int qmax,
                               std::vector<double> h, double coupling = 1.0, double damp = 0.01);

// The share of an H estimated from `vectors` vectors of length `dim` worth trusting: vectors /
// (vectors + dim), a shrinkage that goes to rounding to nearest as the estimate runs out of data.
double hessian_coupling(double vectors, int64_t dim);

// tr(E H Eᵀ) for E = q * scale - w: the summed squared output error over the vectors behind `h`.
double output_error(const std::vector<float>& w, const std::vector<int8_t>& q, const std::vector<float>& scale, int64_t rows,
                    int64_t cols, const std::vector<double>& h);

}  // namespace ms::quant
