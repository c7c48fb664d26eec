// ConstantOfShape: the value attribute (one element, float32 0 by default) is read once, when the
// node is compiled; a run fills the output of the shape it is given. A negative or oversized shape
// is declined so that the reference reports it.
#include "runtime/kernels/datamove_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

class FastConstantOfShape : public FastKernel {
 public:
  explicit FastConstantOfShape(Tensor value) : value_(std::move(value)) {}
  const char* name() const override { return "constant_of_shape_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& s = ctx.input(0);
    if (s.dtype() != DType::Int64 || s.rank() != 1) return false;
    constexpr int64_t kMaxElements = int64_t{1} << 34;  // as the reference's check_output_shape
    Shape shape(s.data<int64_t>(), s.data<int64_t>() + s.numel());
    int64_t n = 1;
    for (int64_t d : shape)
      if (d < 0 || d > kMaxElements || __builtin_mul_overflow(n, d, &n) || n > kMaxElements) return false;
    Tensor y = output_tensor(memory, 0, value_.dtype(), std::move(shape));
    const size_t es = dtype_size(value_.dtype());
    auto* dst = static_cast<unsigned char*>(y.raw());
    const bool typed = dispatch_elem_size(es, [&](auto tag) {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, value_.raw(), sizeof(T));
      T* d = reinterpret_cast<T*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = v;
    });
    if (!typed)
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * es, value_.raw(), es);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  Tensor value_;
};

std::unique_ptr<FastKernel> make_constant_of_shape(const KernelBuildInfo& info) {
  const Attribute* a = info.node.attr("value");
  if (!a) return std::make_unique<FastConstantOfShape>(Tensor::scalar<float>(0.0f));
  if (a->type != AttrType::Tensor || a->t.numel() != 1 || !movable_dtype(a->t.dtype())) return nullptr;
  return std::make_unique<FastConstantOfShape>(a->t);
}

}  // namespace

void register_constant_of_shape_kernels(FastKernelRegistry& r) {
  r.add("", "ConstantOfShape", make_constant_of_shape);
}

}  // namespace ms::rt
