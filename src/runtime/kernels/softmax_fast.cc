// Softmax on float32 over contiguous rows: the last axis (opset >= 13), or the flattened trailing
// dims from `axis` (before opset 13). A softmax over an inner axis stays on the reference.
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

class FastSoftmax : public FastKernel {
 public:
  FastSoftmax(int64_t axis, bool legacy) : axis_(axis), legacy_(legacy) {}
  const char* name() const override { return "vec_softmax"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.numel() == 0 || x.rank() == 0) return false;
    const int64_t axis = axis_ < 0 ? axis_ + x.rank() : axis_;
    if (axis < 0 || axis >= x.rank() || (!legacy_ && axis != x.rank() - 1)) return false;
    int64_t n = 1;
    for (int64_t d = axis; d < x.rank(); ++d) n *= x.dim(static_cast<int>(d));
    const int64_t rows = x.numel() / n;
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    const float* px = x.data<float>();
    float* py = y.data<float>();
    const auto row = vec_loops().softmax_row;
    parallel_chunks(rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(px + r * n, py + r * n, n);
    }, n);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  int64_t axis_;
  bool legacy_;
};

std::unique_ptr<FastKernel> make_softmax(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  const bool legacy = info.opset < 13;
  AttrReader a = info.attrs();
  const int64_t axis = info.node.attr("axis") ? a.attr_int("axis") : (legacy ? 1 : -1);
  return std::make_unique<FastSoftmax>(axis, legacy);
}

}  // namespace

void register_softmax_kernels(FastKernelRegistry& r) { r.add("", "Softmax", make_softmax); }

}  // namespace ms::rt
