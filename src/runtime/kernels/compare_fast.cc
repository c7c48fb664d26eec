// Equal, Less, Greater, LessOrEqual and GreaterOrEqual to bool, for the small comparisons models
// make on shapes, sample rates and indices: two operands of one integer, float32/float64 or bool
// type, of the same shape or one of them a single element (broadcast). Other broadcasts, other
// dtypes and the legacy broadcast attribute stay on the reference.
#include "ops/kernel_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

enum class Cmp { Equal, Less, Greater, LessOrEqual, GreaterOrEqual };

template <class T>
void compare(Cmp op, const T* a, int64_t as, const T* b, int64_t bs, bool* y, int64_t n) {
  auto loop = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i * as], b[i * bs]);
  };
  switch (op) {
    case Cmp::Equal: return loop([](T x, T z) { return x == z; });
    case Cmp::Less: return loop([](T x, T z) { return x < z; });
    case Cmp::Greater: return loop([](T x, T z) { return x > z; });
    case Cmp::LessOrEqual: return loop([](T x, T z) { return x <= z; });
    case Cmp::GreaterOrEqual: return loop([](T x, T z) { return x >= z; });
  }
}

class FastCompare : public FastKernel {
 public:
  explicit FastCompare(Cmp op) : op_(op) {}
  const char* name() const override { return "compare_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) return false;
    // Shapes that do not broadcast fail here as on the reference, naming the node.
    const Shape out = broadcast_shapes({a.shape(), b.shape()}, ctx.node());
    const int64_t n = shape_numel(out);
    // Each operand is either the whole output's shape (stride 1) or one element (stride 0).
    auto stride = [&](const Tensor& t, int64_t& s) {
      if (t.numel() == n) s = 1;
      else if (t.numel() == 1) s = 0;
      else return false;
      return true;
    };
    int64_t as = 0, bs = 0;
    if (!stride(a, as) || !stride(b, bs)) return false;
    const DType dt = a.dtype();
    Tensor y = output_tensor(memory, 0, DType::Bool, std::move(out));
    bool* py = y.data<bool>();
    const bool ok = n == 0 || dispatch(dt, [&](auto tag) {
      using T = decltype(tag);
      compare<T>(op_, static_cast<const T*>(a.raw()), as, static_cast<const T*>(b.raw()), bs, py, n);
    });
    if (!ok) return false;
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  template <class F>
  static bool dispatch(DType dt, F&& f) {
    switch (dt) {
      case DType::Float32: f(float{}); return true;
      case DType::Float64: f(double{}); return true;
      case DType::Int8: f(int8_t{}); return true;
      case DType::Int16: f(int16_t{}); return true;
      case DType::Int32: f(int32_t{}); return true;
      case DType::Int64: f(int64_t{}); return true;
      case DType::UInt8: f(uint8_t{}); return true;
      case DType::UInt16: f(uint16_t{}); return true;
      case DType::UInt32: f(uint32_t{}); return true;
      case DType::UInt64: f(uint64_t{}); return true;
      case DType::Bool: f(bool{}); return true;
      default: return false;
    }
  }

  Cmp op_;
};

FastKernelFactory factory(Cmp op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (info.opset < 7 || info.node.attr("broadcast") || info.node.attr("axis")) return nullptr;
    return std::make_unique<FastCompare>(op);
  };
}

}  // namespace

void register_compare_kernels(FastKernelRegistry& r) {
  r.add("", "Equal", factory(Cmp::Equal));
  r.add("", "Less", factory(Cmp::Less));
  r.add("", "Greater", factory(Cmp::Greater));
  r.add("", "LessOrEqual", factory(Cmp::LessOrEqual));
  r.add("", "GreaterOrEqual", factory(Cmp::GreaterOrEqual));
}

}  // namespace ms::rt
