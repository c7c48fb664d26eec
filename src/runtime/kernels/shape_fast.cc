// Shape and Size: the input's dims (sliced by start/end, as the reference) or element count, written
// straight into the output; start and end are read once, when the node is compiled.
#include <algorithm>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

class FastShape : public FastKernel {
 public:
  FastShape(bool size, const KernelBuildInfo& info) : size_(size) {
    if (size) return;
    const AttrReader a = info.attrs();
    start_ = a.attr_int("start");
    has_end_ = a.has_attr("end");
    if (has_end_) end_ = a.attr_int("end");
  }
  const char* name() const override { return "shape_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Value& v = ctx.input_value(0);
    if (!v.is_tensor() || !v.tensor.defined()) return false;
    const Shape& in = v.tensor.shape();
    if (size_) {
      Tensor y = output_tensor(memory, 0, DType::Int64, {});
      *y.data<int64_t>() = v.tensor.numel();
      ctx.set_output(0, std::move(y));
      return true;
    }
    const int64_t rank = static_cast<int64_t>(in.size());
    auto clampi = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
    const int64_t s = clampi(start_), e = std::max(s, has_end_ ? clampi(end_) : rank);
    Tensor y = output_tensor(memory, 0, DType::Int64, {e - s});
    std::copy(in.begin() + s, in.begin() + e, y.data<int64_t>());
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  bool size_;
  int64_t start_ = 0, end_ = 0;
  bool has_end_ = false;
};

}  // namespace

void register_shape_kernels(FastKernelRegistry& r) {
  r.add("", "Shape", [](const KernelBuildInfo& i) { return std::make_unique<FastShape>(false, i); });
  r.add("", "Size", [](const KernelBuildInfo& i) { return std::make_unique<FastShape>(true, i); });
}

}  // namespace ms::rt
