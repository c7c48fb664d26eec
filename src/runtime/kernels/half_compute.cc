#include "runtime/kernels/half_compute.h"

#include <cstring>

#include <immintrin.h>

#include "core/error.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

bool isa_has(unsigned bits) { return (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & bits) == bits; }

// Round to nearest even on the 16 bits bfloat16 keeps; NaN stays NaN (its payload's top bits kept
// non-zero by setting the quiet bit).
void round_bf16(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, &x[i], 4);
    const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
    u = nan ? (u | 0x00400000u) & 0xffff0000u : (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    std::memcpy(&y[i], &u, 4);
  }
}

__attribute__((target("avx,f16c"))) void round_f16_f16c(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) y[i] = static_cast<float>(float16_t(x[i]));
}

void round_f16(const float* x, float* y, int64_t n) {
  static const bool f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  if (f16c) return round_f16_f16c(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(float16_t(x[i]));
}

}  // namespace

bool computes_natively(DType half) {
  // oneDNN 2.x computes bfloat16 with AVX512-BF16 (and AMX); it has no float16 convolution or
  // matmul for x86-64 at all.
  if (half == DType::BFloat16) return isa_has(dnnl_cpu_isa_avx512_core_bf16);
  return false;
}

std::string half_compute_summary(DType half) {
  const std::string name = half == DType::BFloat16 ? "bf16" : "fp16";
  if (computes_natively(half)) return name + " computed natively (oneDNN, AVX512-BF16)";
  if (half == DType::BFloat16)
    return name + " emulated: this CPU has no AVX512-BF16, so inputs and weights are rounded to bfloat16 and "
                  "computed in float32 (slower than fp32)";
  return name + " emulated: oneDNN has no float16 convolution/matmul on x86-64, so inputs and weights are "
                "rounded to float16 and computed in float32 (slower than fp32)";
}

dnnl::memory::data_type onednn_half_type(DType half) {
  if (half == DType::BFloat16) return dnnl::memory::data_type::bf16;
  if (half == DType::Float16) return dnnl::memory::data_type::f16;
  fail("internal: {} is not a half-precision type", dtype_name(half));
}

void round_to_half(DType half, const float* x, float* y, int64_t n) {
  if (half != DType::Float16 && half != DType::BFloat16) fail("internal: {} is not a half-precision type", dtype_name(half));
  parallel_chunks(n, [&](int64_t b, int64_t e) {
    if (half == DType::BFloat16) round_bf16(x + b, y + b, e - b);
    else round_f16(x + b, y + b, e - b);
  }, 1);
}

Tensor rounded_to_half(const Tensor& t, DType half) {
  Tensor r = t.clone();
  round_to_half(half, r.data<float>(), r.data<float>(), r.numel());
  return r;
}

}  // namespace ms::rt
