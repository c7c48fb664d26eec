// com.mstools MultiHeadAttention: the two batched products (Q*K^T scaled, then by V) on oneDNN's
// matmul reading the heads straight out of the [B,S,H*D] tensors through strides (no head
// split/merge copies), and the row softmax vectorized in between, after the additive mask (any
// float32 mask that broadcasts to [B,H,Sq,Sk], read through broadcast strides, never expanded).
#include <array>
#include <cmath>
#include <mutex>

#include "ops/ms_domain.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

using dims = dnnl::memory::dims;

// A [B,S,H*D] tensor seen as [B,H,S,D] (or [B,H,D,S] when `keys_transposed`).
dnnl::memory::desc heads_view(int64_t B, int64_t S, int64_t H, int64_t D, bool keys_transposed) {
  const dims st = keys_transposed ? dims{S * H * D, D, 1, H * D} : dims{S * H * D, D, H * D, 1};
  const dims sh = keys_transposed ? dims{B, H, D, S} : dims{B, H, S, D};
  return dnnl::memory::desc(sh, dnnl::memory::data_type::f32, st);
}

// Element strides of `mask` read as `full` under NumPy broadcasting (0 along broadcast dims);
// false when it is not float32 or does not broadcast to `full`.
bool broadcast_strides(const Tensor& mask, const std::array<int64_t, 4>& full, std::array<int64_t, 4>& strides) {
  if (mask.dtype() != DType::Float32 || mask.rank() > 4) return false;
  const int64_t offset = 4 - static_cast<int64_t>(mask.rank());
  int64_t stride = 1;
  for (int64_t d = 3; d >= 0; --d) {
    const int64_t n = d < offset ? 1 : mask.dim(d - offset);
    if (n != 1 && n != full[d]) return false;
    strides[d] = n == 1 ? 0 : stride;
    stride *= n;
  }
  return true;
}

class OnednnAttention : public FastKernel {
 public:
  OnednnAttention(int64_t heads, float scale) : heads_(heads), scale_(scale) {}
  const char* name() const override { return "onednn_attention"; }
  size_t scratch_bytes() const override { return scores_bytes_; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    for (const Tensor* t : {&q, &k, &v})
      if (t->dtype() != DType::Float32 || t->rank() != 3 || t->numel() == 0) return false;
    const int64_t B = q.dim(0), Sq = q.dim(1), Sk = k.dim(1), H = heads_;
    if (k.dim(0) != B || v.dim(0) != B || v.dim(1) != Sk || q.dim(2) % H || v.dim(2) % H || k.dim(2) != q.dim(2))
      return false;
    const int64_t D = q.dim(2) / H, Dv = v.dim(2) / H;
    std::array<int64_t, 4> mask_strides{};
    if (mask && !broadcast_strides(*mask, {B, H, Sq, Sk}, mask_strides)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    const Shape key{B, Sq, Sk, q.dim(2), v.dim(2)};
    if (key != key_) {
      const float scale = scale_ != 0 ? scale_ : 1.0f / std::sqrt(static_cast<float>(D));
      dnnl::primitive_attr scaled;
      scaled.set_output_scales(0, {scale});
      scores_md_ = dnnl::memory::desc({B, H, Sq, Sk}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::abcd);
      q_md_ = heads_view(B, Sq, H, D, false);
      kt_md_ = heads_view(B, Sk, H, D, true);
      v_md_ = heads_view(B, Sk, H, Dv, false);
      y_md_ = heads_view(B, Sq, H, Dv, false);
      qk_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, kt_md_, scores_md_), scaled, cpu_engine()));
      pv_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(scores_md_, v_md_, y_md_), cpu_engine()));
      scores_ = Tensor();
      scores_bytes_ = static_cast<size_t>(B * H * Sq * Sk) * sizeof(float);
      key_ = key;
    }
    Tensor y = output_tensor(memory, 0, DType::Float32, {B, Sq, H * Dv});
    // The scores from the session's shared scratch buffer; kept per node they would add up.
    void* scores = memory.scratch(scores_bytes_);
    if (!scores) {
      if (!scores_.defined()) scores_ = uninit_tensor(DType::Float32, {B, H, Sq, Sk});
      scores = scores_.raw();
    }
    auto mem = [](const dnnl::memory::desc& md, const void* p) {
      return dnnl::memory(md, cpu_engine(), const_cast<void*>(p));
    };
    qk_.execute(cpu_stream(), {{DNNL_ARG_SRC, mem(q_md_, q.raw())},
                               {DNNL_ARG_WEIGHTS, mem(kt_md_, k.raw())},
                               {DNNL_ARG_DST, mem(scores_md_, scores)}});
    cpu_stream().wait();
    float* s = static_cast<float*>(scores);
    const auto row = vec_loops().softmax_row;
    const float* m = mask ? mask->data<float>() : nullptr;
    parallel_chunks(B * H * Sq, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        float* sr = s + r * Sk;
        if (m) {
          const int64_t i = r % Sq, h = (r / Sq) % H, bi = r / (Sq * H);
          const float* mr = m + bi * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2];
          if (mask_strides[3] == 1)
            for (int64_t j = 0; j < Sk; ++j) sr[j] += mr[j];
          else
            for (int64_t j = 0; j < Sk; ++j) sr[j] += mr[0];
        }
        row(sr, sr, Sk);
      }
    }, Sk);
    pv_.execute(cpu_stream(), {{DNNL_ARG_SRC, mem(scores_md_, scores)},
                               {DNNL_ARG_WEIGHTS, mem(v_md_, v.raw())},
                               {DNNL_ARG_DST, mem(y_md_, y.raw())}});
    cpu_stream().wait();
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  int64_t heads_;
  float scale_;
  std::mutex mu_;
  Shape key_;  // B, Sq, Sk, H*D, H*Dv of the current plan
  size_t scores_bytes_ = 0;
  dnnl::memory::desc scores_md_, q_md_, kt_md_, v_md_, y_md_;
  dnnl::matmul qk_, pv_;
  Tensor scores_;
};

std::unique_ptr<FastKernel> make_attention(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0) || (info.has_input(3) && !info.maybe_f32(3))) return nullptr;
  AttrReader a = info.attrs();
  return std::make_unique<OnednnAttention>(a.attr_int("num_heads"), a.attr_float("scale"));
}

}  // namespace

void register_attention_kernels(FastKernelRegistry& r) { r.add(kMsDomain, "MultiHeadAttention", make_attention); }

}  // namespace ms::rt
