// Not on bool tensors (the branch conditions models compute next to their If nodes): one pass over
// the bytes, in place when the arena plans it so (Not is elementwise).
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

class FastNot : public FastKernel {
 public:
  const char* name() const override { return "logical_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Bool) return false;
    Tensor y = output_tensor(memory, 0, DType::Bool, x.shape());
    const bool* px = x.data<bool>();
    bool* py = y.data<bool>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = !px[i];
    ctx.set_output(0, std::move(y));
    return true;
  }
};

}  // namespace

void register_logical_kernels(FastKernelRegistry& r) {
  r.add("", "Not", [](const KernelBuildInfo&) -> std::unique_ptr<FastKernel> { return std::make_unique<FastNot>(); });
}

}  // namespace ms::rt
