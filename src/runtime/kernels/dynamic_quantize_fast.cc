// DynamicQuantizeLinear (float32 -> uint8 with a scale and zero point computed from the data), as
// ONNX Runtime's dynamic quantization puts before every ConvInteger / MatMulInteger: one vectorized
// pass for the range, one for the quantization, both shared by the threads. Same values as the
// reference kernel (ops/dynamic_quantize_linear.cc):
//   scale = (max(0, max x) - min(0, min x)) / 255        (float32 arithmetic)
//   zp    = saturate(round_half_even(-min / scale))
//   y     = saturate(round_half_even(x / scale) + zp)    (a division, as ONNX writes it)
// NaN elements leave the range alone (as the reference's std::min/max do); a non-finite range is
// left to the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/conv_pool_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

constexpr int kLanes = 16;

// Rounds half to even under the default rounding mode for |v| < 2^22 (v is clamped first): adding
// 1.5·2^23 leaves no fraction bits, so the FPU rounds, and the subtraction is exact.
constexpr float kRoundMagic = 12582912.f;

// Range of x[0, n) joined with [lo, hi]. Written with explicit lanes (one min/max pair per lane,
// `x < lo ? x : lo` so that NaN keeps lo) so the compiler keeps it in vector registers.
__attribute__((target_clones("avx512f", "avx2", "default"))) void range_loop(const float* x, int64_t n, float& lo,
                                                                             float& hi) {
  float l[kLanes], h[kLanes];
  for (int j = 0; j < kLanes; ++j) l[j] = lo, h[j] = hi;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      l[j] = v < l[j] ? v : l[j];
      h[j] = v > h[j] ? v : h[j];
    }
  for (; i < n; ++i) {
    l[0] = x[i] < l[0] ? x[i] : l[0];
    h[0] = x[i] > h[0] ? x[i] : h[0];
  }
  for (int j = 0; j < kLanes; ++j) lo = std::min(lo, l[j]), hi = std::max(hi, h[j]);
}

// x / scale clamped to [-zp, 255 - zp] first (so the rounding trick holds and saturation is the
// reference's), rounded half to even, shifted by zp.
__attribute__((target_clones("avx512f", "avx2", "default"))) void quantize_u8_loop(const float* x, uint8_t* y,
                                                                                   int64_t n, float scale, float zp) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / scale;
    v = std::min(std::max(v, -zp), 255.f - zp);  // NaN stays NaN and is saturated below
    v = (v + kRoundMagic) - kRoundMagic + zp;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(std::min(std::max(v, 0.f), 255.f)));
  }
}

class FastDynamicQuantize : public FastKernel {
 public:
  const char* name() const override { return "vec_dynamic_quantize"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32) return false;  // the reference names the dtype
    const float* px = x.data<float>();
    const int64_t n = x.numel();
    // Fixed blocks (not one per thread) so that the result never depends on the thread count.
    constexpr int64_t kBlock = 1 << 16;
    const int64_t blocks = std::max<int64_t>(1, (n + kBlock - 1) / kBlock);
    std::vector<float> los(blocks, 0.f), his(blocks, 0.f);
    parallel_chunks(blocks, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t begin = k * kBlock, end = std::min(n, begin + kBlock);
        range_loop(px + begin, end - begin, los[k], his[k]);
      }
    }, kBlock);
    float lo = 0.f, hi = 0.f;  // the range always includes zero
    for (int64_t k = 0; k < blocks; ++k) lo = std::min(lo, los[k]), hi = std::max(hi, his[k]);
    if (!std::isfinite(lo) || !std::isfinite(hi)) return false;
    const float scale = (hi - lo) / 255.0f;
    const uint8_t zp = scale == 0 ? 0 : saturate_round<uint8_t>(std::nearbyint(0.0f - lo / scale));
    Tensor y = output_tensor(memory, 0, DType::UInt8, x.shape());
    uint8_t* py = y.data<uint8_t>();
    if (scale == 0) {
      std::memset(py, zp, size_t(n));  // every element is zero (or NaN): the reference writes zp
    } else {
      parallel_chunks(n, [&](int64_t b, int64_t e) { quantize_u8_loop(px + b, py + b, e - b, scale, float(zp)); });
    }
    ctx.set_output(0, std::move(y));
    ctx.set_output(1, Tensor::scalar<float>(scale));
    ctx.set_output(2, Tensor::scalar<uint8_t>(zp));
    return true;
  }
};

std::unique_ptr<FastKernel> make_dynamic_quantize(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  return std::make_unique<FastDynamicQuantize>();
}

}  // namespace

void register_dynamic_quantize_kernels(FastKernelRegistry& r) {
  r.add("", "DynamicQuantizeLinear", make_dynamic_quantize);
}

}  // namespace ms::rt
