// QuantizeLinear (float32 -> int8/uint8) and DequantizeLinear (int8/uint8 -> float32) with one
// scale and zero point per tensor: vectorized loops over chunks that the threads share. They sit
// between the int8 convolutions and the float ops of a quantized model, so they run once per
// activation tensor. Same values as the reference kernels:
//   Q:  y = saturate(round_half_even(x / scale) + zp)   (a division, as ONNX writes it)
//   DQ: y = (x - zp) * scale
#include <algorithm>
#include <cstdint>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

// Rounds half to even under the default rounding mode for |v| < 2^22 (v is clamped first): adding
// 1.5·2^23 leaves no fraction bits, so the FPU rounds, and the subtraction is exact.
constexpr float kRoundMagic = 12582912.f;

template <class Q>
__attribute__((target_clones("avx512f", "avx2", "default"))) void quantize_loop(const float* x, Q* y, int64_t n,
                                                                                float scale, float zp, float lo,
                                                                                float hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / scale;
    v = std::min(std::max(v, lo - zp), hi - zp);  // NaN stays NaN here and is saturated below
    v = (v + kRoundMagic) - kRoundMagic + zp;
    y[i] = static_cast<Q>(static_cast<int32_t>(std::min(std::max(v, lo), hi)));
  }
}

template <class Q>
__attribute__((target_clones("avx512f", "avx2", "default"))) void dequantize_loop(const Q* x, float* y, int64_t n,
                                                                                  float scale, int32_t zp) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zp) * scale;
}

// Scale and zero point when both are per-tensor (one value) and of the supported types.
bool per_tensor(const KernelContext& ctx, float& scale, int32_t& zp, DType& zp_type) {
  if (!ctx.has_input(1) || !ctx.has_input(2)) return false;
  const Tensor &s = ctx.input(1), &z = ctx.input(2);
  if (s.dtype() != DType::Float32 || s.numel() != 1 || z.numel() != 1) return false;
  if (z.dtype() != DType::UInt8 && z.dtype() != DType::Int8) return false;
  scale = s.data<float>()[0];
  zp = static_cast<int32_t>(z.as_double(0));
  zp_type = z.dtype();
  return true;
}

class FastQuantize : public FastKernel {
 public:
  explicit FastQuantize(bool may_emit_nhwc) : may_emit_nhwc_(may_emit_nhwc) {}
  const char* name() const override { return "vec_quantize"; }
  // Input "blocked": the float kernels' nChw16c; output "blocked": NHWC, what the int8
  // convolutions read (qconv_onednn.cc).
  bool accepts_blocked(size_t input) const override { return may_emit_nhwc_ && input == 0; }
  bool emits_blocked() const override { return may_emit_nhwc_; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    x_blocked_ = !in.empty() && in[0];
    nhwc_ = out;
  }
  bool run(KernelContext& ctx, KernelMemory& memory) override {
    float scale;
    int32_t zp;
    DType q;
    const Tensor& x = ctx.input(0);
    const bool laid_out = nhwc_ || x_blocked_;
    if (x.dtype() != DType::Float32 || !per_tensor(ctx, scale, zp, q) || !(scale > 0) || (laid_out && x.rank() != 4)) {
      if (laid_out) fail("{}: internal: input does not fit the layout planned for it", ctx.node().label());
      return false;
    }
    Tensor y = output_tensor(memory, 0, q, x.shape());
    // Other layouts than plain in and out: quantized elementwise in the input's layout (a blocked
    // input's padding channels too) into a temporary, then oneDNN's reorder moves the bytes.
    const auto t = q == DType::UInt8 ? dnnl::memory::data_type::u8 : dnnl::memory::data_type::s8;
    dnnl::memory::desc in_md, out_md;
    int64_t count = x.numel();
    if (laid_out) {
      in_md = x_blocked_ ? blocked_f32_desc(x.shape()) : plain_f32_desc(x.shape());
      count = static_cast<int64_t>(in_md.get_size() / sizeof(float));
      in_md.data.data_type = t == dnnl::memory::data_type::u8 ? dnnl_u8 : dnnl_s8;  // same blocking, bytes
      out_md = dnnl::memory::desc(to_dims(x.shape()), t, nhwc_ ? dnnl::memory::format_tag::acdb : dnnl::memory::format_tag::abcd);
    }
    Tensor plain = laid_out ? uninit_tensor(q, {count}) : Tensor();
    Tensor& out = laid_out ? plain : y;
    const float* px = x.data<float>();
    const float fz = static_cast<float>(zp);
    if (q == DType::UInt8) {
      uint8_t* py = out.data<uint8_t>();
      parallel_chunks(count, [&](int64_t b, int64_t e) { quantize_loop<uint8_t>(px + b, py + b, e - b, scale, fz, 0.f, 255.f); });
    } else {
      int8_t* py = out.data<int8_t>();
      parallel_chunks(count, [&](int64_t b, int64_t e) { quantize_loop<int8_t>(px + b, py + b, e - b, scale, fz, -128.f, 127.f); });
    }
    if (laid_out) reorder(in_md, plain.raw(), out_md, y.raw());
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  bool may_emit_nhwc_, nhwc_ = false, x_blocked_ = false;
};

class FastDequantize : public FastKernel {
 public:
  const char* name() const override { return "vec_dequantize"; }
  bool run(KernelContext& ctx, KernelMemory& memory) override {
    float scale;
    int32_t zp;
    DType q;
    const Tensor& x = ctx.input(0);
    if (!per_tensor(ctx, scale, zp, q) || x.dtype() != q) return false;
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    float* py = y.data<float>();
    if (q == DType::UInt8) {
      const uint8_t* px = x.data<uint8_t>();
      parallel_chunks(x.numel(), [&](int64_t b, int64_t e) { dequantize_loop<uint8_t>(px + b, py + b, e - b, scale, zp); });
    } else {
      const int8_t* px = x.data<int8_t>();
      parallel_chunks(x.numel(), [&](int64_t b, int64_t e) { dequantize_loop<int8_t>(px + b, py + b, e - b, scale, zp); });
    }
    ctx.set_output(0, std::move(y));
    return true;
  }
};

// Per-axis parameters (more than one value) are left to the reference kernel: run() declines them.
std::unique_ptr<FastKernel> make_quantize(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0) || !info.has_input(2)) return nullptr;
  // NHWC output only when it can never be declined: rank 4 and constant per-tensor parameters.
  const Tensor *s = info.constant(1), *z = info.constant(2);
  const bool per_tensor_const = s && z && s->numel() == 1 && z->numel() == 1 && s->dtype() == DType::Float32 &&
                                s->as_double(0) > 0 && (z->dtype() == DType::UInt8 || z->dtype() == DType::Int8);
  return std::make_unique<FastQuantize>(per_tensor_const && info.is_f32_rank(0, 4));
}

std::unique_ptr<FastKernel> make_dequantize(const KernelBuildInfo& info) {
  if (!info.has_input(2)) return nullptr;
  return std::make_unique<FastDequantize>();
}

}  // namespace

void register_quantize_kernels(FastKernelRegistry& r) {
  r.add("", "QuantizeLinear", make_quantize);
  r.add("", "DequantizeLinear", make_dequantize);
}

}  // namespace ms::rt
