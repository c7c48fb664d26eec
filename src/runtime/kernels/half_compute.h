// Half-precision compute of the float32 Conv and MatMul kernels (SessionOptions::compute_precision).
// With float16 or bfloat16 asked for, those kernels read their inputs and weights as values of that
// type and accumulate in float32, as the mixed-precision inference of oneDNN, ONNX Runtime and
// MindSpore Lite does; their outputs, and every other op, stay float32. Where the CPU and oneDNN
// compute in the type (bfloat16 on AVX512-BF16 or AMX), oneDNN's half-precision primitives run;
// elsewhere the inputs and weights are rounded to the type and the float32 primitives run: the same
// numbers, with the rounding's cost on top.
#pragma once
#include <cstdint>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace ms::rt {

// True when oneDNN computes in `half` (Float16 or BFloat16) with this CPU's instructions.
bool computes_natively(DType half);
// "bfloat16 on AVX512-BF16 (native)" / "float16 emulated: ..." for the commands' output.
std::string half_compute_summary(DType half);
// oneDNN's type for Float16/BFloat16.
dnnl::memory::data_type onednn_half_type(DType half);

// y[i] = x[i] rounded to `half` (to nearest even; overflow to infinity as the type does), as float.
// x and y may be the same buffer.
void round_to_half(DType half, const float* x, float* y, int64_t n);
// A float32 copy of `t` with every value rounded to `half`.
Tensor rounded_to_half(const Tensor& t, DType half);

}  // namespace ms::rt
