// LayerNormalization on float32 over the trailing dims from `axis`, with Scale (and B) covering
// exactly those dims; rows are independent and shared between the threads. Nodes that ask for the
// Mean / InvStdDev outputs stay on the reference.
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

class FastLayerNorm : public FastKernel {
 public:
  FastLayerNorm(int64_t axis, float eps) : axis_(axis), eps_(eps) {}
  const char* name() const override { return "vec_layer_norm"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (x.dtype() != DType::Float32 || scale.dtype() != DType::Float32 || (bias && bias->dtype() != DType::Float32))
      return false;
    const int64_t axis = axis_ < 0 ? axis_ + x.rank() : axis_;
    if (axis < 0 || axis >= x.rank() || x.numel() == 0) return false;
    int64_t n = 1;
    for (int64_t d = axis; d < x.rank(); ++d) n *= x.dim(static_cast<int>(d));
    if (scale.numel() != n || (bias && bias->numel() != n)) return false;  // broadcast Scale: reference
    const int64_t rows = x.numel() / n;
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    const float* px = x.data<float>();
    const float* pg = scale.data<float>();
    const float* pb = bias ? bias->data<float>() : nullptr;
    float* py = y.data<float>();
    const auto row = vec_loops().layer_norm_row;
    parallel_chunks(rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(px + r * n, pg, pb, py + r * n, n, eps_);
    }, n);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  int64_t axis_;
  float eps_;
};

std::unique_ptr<FastKernel> make_layer_norm(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  for (size_t i = 1; i < info.node.outputs.size(); ++i)
    if (!info.node.outputs[i].empty()) return nullptr;
  AttrReader a = info.attrs();
  return std::make_unique<FastLayerNorm>(a.attr_int("axis"), a.attr_float("epsilon"));
}

}  // namespace

void register_layer_norm_kernels(FastKernelRegistry& r) { r.add("", "LayerNormalization", make_layer_norm); }

}  // namespace ms::rt
