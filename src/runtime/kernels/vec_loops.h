// Vectorized float32 inner loops, compiled three times (vec_loops_avx512.cc, vec_loops_avx2.cc,
// vec_loops_generic.cc, each with its own target flags) from vec_loops.inc; vec_loops() picks the
// widest one the CPU supports, once. Kernels do the shape work and call these on contiguous runs.
#pragma once
#include <cstdint>

namespace ms::rt {

// Max/Min: NaN propagates from either side, ties keep the first operand (as the reference).
enum class BinaryOp { Add, Sub, Mul, Div, Max, Min, Count };
// Affine: y = alpha * x + beta (a per-channel scale and shift, e.g. inference BatchNormalization).
enum class UnaryOp { Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Exp, Neg, Sqrt, Affine, Square, Log, Count };

// How the two operands of one contiguous run are laid out.
enum class Operands { BothVectors, ScalarB, ScalarA, Count };

using BinaryLoop = void (*)(const float* a, const float* b, float* y, int64_t n);
using UnaryLoop = void (*)(const float* x, float* y, int64_t n, float alpha, float beta);

struct VecLoops {
  const char* isa;
  BinaryLoop binary[static_cast<int>(BinaryOp::Count)][static_cast<int>(Operands::Count)];
  UnaryLoop unary[static_cast<int>(UnaryOp::Count)];
  // y = softmax(x) over n contiguous values.
  void (*softmax_row)(const float* x, float* y, int64_t n);
  // y = (x - mean) / sqrt(var + eps) * gamma + beta over n contiguous values (beta may be null).
  void (*layer_norm_row)(const float* x, const float* gamma, const float* beta, float* y, int64_t n, float eps);
};

const VecLoops& vec_loops();

// The individual instruction-set builds (for tests and micro-benchmarks that compare them).
const VecLoops& vec_loops_generic();
const VecLoops* vec_loops_avx2();    // nullptr when the CPU lacks AVX2/FMA
const VecLoops* vec_loops_avx512();  // nullptr when the CPU lacks AVX-512F

}  // namespace ms::rt
