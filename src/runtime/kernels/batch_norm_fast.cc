// Inference BatchNormalization on float32: per channel, y = x * a + b with
// a = scale / sqrt(var + epsilon) and b = B - mean * a, one vectorized pass over each plane.
// (The optimizer folds most BatchNormalizations into convolutions; this covers the rest.)
#include <cmath>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

class FastBatchNorm : public FastKernel {
 public:
  explicit FastBatchNorm(float eps) : eps_(eps) {}
  const char* name() const override { return "vec_batch_norm"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.rank() < 2 || x.numel() == 0) return false;
    const int64_t C = x.dim(1);
    for (size_t i = 1; i < 5; ++i)
      if (ctx.input(i).dtype() != DType::Float32 || ctx.input(i).numel() != C) return false;
    const float* scale = ctx.input(1).data<float>();
    const float* shift = ctx.input(2).data<float>();
    const float* mean = ctx.input(3).data<float>();
    const float* var = ctx.input(4).data<float>();
    std::vector<float> a(C), b(C);
    for (int64_t c = 0; c < C; ++c) {
      a[c] = scale[c] / std::sqrt(var[c] + eps_);
      b[c] = shift[c] - mean[c] * a[c];
    }
    const int64_t plane = x.numel() / (x.dim(0) * C);
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    const float* px = x.data<float>();
    float* py = y.data<float>();
    const UnaryLoop affine = vec_loops().unary[static_cast<int>(UnaryOp::Affine)];
    parallel_chunks(x.dim(0) * C, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) affine(px + p * plane, py + p * plane, plane, a[p % C], b[p % C]);
    }, plane);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  float eps_;
};

std::unique_ptr<FastKernel> make_batch_norm(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  for (size_t i = 1; i < info.node.outputs.size(); ++i)
    if (!info.node.outputs[i].empty()) return nullptr;  // training outputs
  AttrReader a = info.attrs();
  if (info.node.attr("training_mode") && a.attr_int("training_mode")) return nullptr;
  return std::make_unique<FastBatchNorm>(a.attr_float("epsilon"));
}

}  // namespace

void register_batch_norm_kernels(FastKernelRegistry& r) { r.add("", "BatchNormalization", make_batch_norm); }

}  // namespace ms::rt
