// Cast on the conversions that lie on hot paths: to its own type (what half-precision lowering
// leaves where a Cast feeds a graph output: the output shares the input's storage, no copy), and
// between float32 and float16/bfloat16 (element conversions spread over the threads). Other
// conversions (integers, strings, float8) stay on the reference.
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

template <class From, class To>
void convert(const Tensor& x, Tensor& y) {
  const From* src = x.data<From>();
  To* dst = y.data<To>();
  parallel_chunks(x.numel(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = To(static_cast<float>(src[i]));
  }, 1);
}

class FastCast : public FastKernel {
 public:
  explicit FastCast(DType to) : to_(to) {}
  const char* name() const override { return "cast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == to_) {
      ctx.set_output(0, x);
      return true;
    }
    const bool widen = to_ == DType::Float32 && (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16);
    const bool narrow = x.dtype() == DType::Float32 && (to_ == DType::Float16 || to_ == DType::BFloat16);
    if (!widen && !narrow) return false;
    Tensor y = output_tensor(memory, 0, to_, x.shape());
    if (x.dtype() == DType::Float16) convert<float16_t, float>(x, y);
    else if (x.dtype() == DType::BFloat16) convert<bfloat16_t, float>(x, y);
    else if (to_ == DType::Float16) convert<float, float16_t>(x, y);
    else convert<float, bfloat16_t>(x, y);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  DType to_;
};

std::unique_ptr<FastKernel> make_cast(const KernelBuildInfo& info) {
  const Attribute* to = info.node.attr("to");
  if (!to || to->type != AttrType::Int) return nullptr;
  // "saturate" only concerns float8 targets, which this kernel declines.
  return std::make_unique<FastCast>(static_cast<DType>(to->i));
}

}  // namespace

void register_cast_kernels(FastKernelRegistry& r) { r.add("", "Cast", make_cast); }

}  // namespace ms::rt
