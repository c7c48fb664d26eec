// ConvTranspose whose kernel equals its stride, without padding, dilation or groups (the 2x2
// stride-2 upsampling of FPN/DB heads such as PaddleOCR's): every input pixel spreads into its own
// k_h x k_w output patch, no two patches overlap, so
//   y[n, m, h*s_h + i, w*s_w + j] = b[m] + sum_c x[n, c, h, w] * W[c, m, i, j]
// is one GEMM, Z = W^T (M*k_h*k_w x C) . x[n] (C x H*W), followed by a scatter of Z's rows into
// the output. oneDNN's deconvolution has only its gemm-based col2im implementation for the plain
// layout, several times slower on these shapes.
#include <oneapi/dnnl/dnnl.h>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

class UpsampleDeconv : public FastKernel {
 public:
  UpsampleDeconv(const Tensor& w, int64_t sh, int64_t sw) : w_(w), sh_(sh), sw_(sw) {}
  const char* name() const override { return "gemm_upsample_deconv"; }
  size_t scratch_bytes() const override { return z_bytes_; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const bool has_bias = ctx.has_input(2);
    if (x.dtype() != DType::Float32 || x.rank() != 4 || x.dim(1) != w_.dim(0) || x.numel() == 0) return false;
    if (has_bias && (ctx.input(2).dtype() != DType::Float32 || ctx.input(2).numel() != w_.dim(1))) return false;
    const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), M = w_.dim(1);
    const int64_t rows = M * sh_ * sw_, HW = H * W, OH = H * sh_, OW = W * sw_;
    z_bytes_ = static_cast<size_t>(rows * HW) * sizeof(float);
    Tensor y = output_tensor(memory, 0, DType::Float32, {N, M, OH, OW});
    Tensor own_z;  // when the session lends no scratch
    float* pz = static_cast<float*>(memory.scratch(z_bytes_));
    if (!pz) {
      own_z = uninit_tensor(DType::Float32, {rows, HW});
      pz = own_z.data<float>();
    }
    const float* bias = has_bias ? ctx.input(2).data<float>() : nullptr;
    float* py = y.data<float>();
    for (int64_t n = 0; n < N; ++n) {
      // Row-major: W is C x rows, x[n] is C x HW; Z = W^T x[n].
      if (dnnl_sgemm('T', 'N', rows, HW, C, 1.f, w_.data<float>(), rows, x.data<float>() + n * C * HW, HW, 0.f, pz, HW) !=
          dnnl_success)
        fail("internal: oneDNN sgemm failed for a {}x{}x{} product", rows, HW, C);
      // Row (m, i) of the output image takes, for each j, Z row (m, i, j) at every s_w-th place.
      parallel_chunks(M * OH, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t m = r / OH, oh = r % OH, h = oh / sh_, i = oh % sh_;
          const float b = bias ? bias[m] : 0.f;
          float* out = py + ((n * M + m) * OH + oh) * OW;
          for (int64_t j = 0; j < sw_; ++j) {
            const float* zr = pz + ((m * sh_ + i) * sw_ + j) * HW + h * W;
            for (int64_t w = 0; w < W; ++w) out[w * sw_ + j] = zr[w] + b;
          }
        }
      }, OW);
    }
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  Tensor w_;  // ONNX layout (C, M, k_h, k_w), read as a C x (M k_h k_w) matrix
  int64_t sh_, sw_;
  size_t z_bytes_ = 0;
};

std::unique_ptr<FastKernel> make_upsample_deconv(const KernelBuildInfo& info) {
  const Tensor* w = info.constant(1);
  if (!w || w->dtype() != DType::Float32 || w->rank() != 4 || !info.maybe_f32(0)) return nullptr;
  AttrReader a = info.attrs();
  if (info.node.attr("output_shape") || a.attr_string("auto_pad") != "NOTSET" || a.attr_int("group") != 1) return nullptr;
  const std::vector<int64_t> k = {w->dim(2), w->dim(3)};
  auto all = [](const std::vector<int64_t>& v, int64_t value) {
    for (int64_t e : v)
      if (e != value) return false;
    return true;
  };
  const auto strides = a.attr_ints("strides");
  if (strides != k) return nullptr;
  if (info.node.attr("kernel_shape") && a.attr_ints("kernel_shape") != k) return nullptr;
  if (!all(a.attr_ints("pads"), 0) || !all(a.attr_ints("dilations"), 1) || !all(a.attr_ints("output_padding"), 0))
    return nullptr;
  return std::make_unique<UpsampleDeconv>(*w, k[0], k[1]);
}

}  // namespace

void register_upsample_deconv_kernels(FastKernelRegistry& r) { r.add("", "ConvTranspose", make_upsample_deconv); }

}  // namespace ms::rt
