// Add, Sub, Mul, Div on float32 with numpy broadcasting. The shapes are reduced to the fewest
// dimensions (adjacent axes that broadcast alike merge), so per-channel scales ([1,C,1,1]), row
// biases ([N]) and scalars all become contiguous vectorized runs (vec_loops.h) in an outer loop
// that OpenMP splits between the threads.
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

// The broadcast shapes of two operands collapsed to runs of dims that broadcast alike.
struct BroadcastPlan {
  Shape out;
  std::vector<int64_t> dims, a_strides, b_strides;  // merged; stride 0 = broadcast along the dim
  bool ok = false;
};

BroadcastPlan plan_broadcast(const Shape& as, const Shape& bs) {
  BroadcastPlan p;
  const size_t r = std::max(as.size(), bs.size());
  Shape a(r, 1), b(r, 1);
  std::copy(as.begin(), as.end(), a.begin() + (r - as.size()));
  std::copy(bs.begin(), bs.end(), b.begin() + (r - bs.size()));
  p.out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) return p;
    p.out[i] = a[i] == 1 ? b[i] : a[i];
  }
  // Merge dims (skipping size-1 output dims) whose a/b broadcast flags match the previous one.
  std::vector<int64_t> dims;
  std::vector<bool> af, bf;
  for (size_t i = 0; i < r; ++i) {
    if (p.out[i] == 1) continue;
    const bool fa = a[i] != 1, fb = b[i] != 1;
    if (!dims.empty() && af.back() == fa && bf.back() == fb) {
      dims.back() *= p.out[i];
    } else {
      dims.push_back(p.out[i]);
      af.push_back(fa);
      bf.push_back(fb);
    }
  }
  if (dims.empty()) dims = {1}, af = {true}, bf = {true};
  p.dims = dims;
  p.a_strides.resize(dims.size());
  p.b_strides.resize(dims.size());
  int64_t sa = 1, sb = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    p.a_strides[i] = af[i] ? sa : 0;
    p.b_strides[i] = bf[i] ? sb : 0;
    if (af[i]) sa *= dims[i];
    if (bf[i]) sb *= dims[i];
  }
  p.ok = true;
  return p;
}

class FastBinary : public FastKernel {
 public:
  explicit FastBinary(BinaryOp op) : op_(op) {}
  const char* name() const override { return "vec_binary"; }

  bool run(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DType::Float32 || b.dtype() != DType::Float32) return false;
    const BroadcastPlan p = plan_broadcast(a.shape(), b.shape());
    if (!p.ok || shape_numel(p.out) == 0) return false;  // the reference names the mismatch
    Tensor y = uninit_tensor(DType::Float32, p.out);
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* py = y.data<float>();
    const size_t last = p.dims.size() - 1;
    const int64_t inner = p.dims[last];
    const Operands kind = p.a_strides[last] && p.b_strides[last] ? Operands::BothVectors
                          : p.a_strides[last]                   ? Operands::ScalarB
                                                                : Operands::ScalarA;
    const BinaryLoop loop = vec_loops().binary[static_cast<int>(op_)][static_cast<int>(kind)];
    const int64_t rows = shape_numel(p.out) / inner;
    if (rows == 1) {
      parallel_chunks(inner, [&](int64_t begin, int64_t end) {
        loop(pa + (p.a_strides[last] ? begin : 0), pb + (p.b_strides[last] ? begin : 0), py + begin, end - begin);
      });
    } else {
      parallel_chunks(rows, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          // Offsets of this row in a and b from its index over the outer dims.
          int64_t rem = row, oa = 0, ob = 0;
          for (size_t d = last; d-- > 0;) {
            const int64_t i = rem % p.dims[d];
            rem /= p.dims[d];
            oa += i * p.a_strides[d];
            ob += i * p.b_strides[d];
          }
          loop(pa + oa, pb + ob, py + row * inner, inner);
        }
      }, inner);
    }
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  BinaryOp op_;
};

FastKernelFactory factory(BinaryOp op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (!info.maybe_f32(0) || !info.maybe_f32(1)) return nullptr;
    return std::make_unique<FastBinary>(op);
  };
}

}  // namespace

void register_binary_kernels(FastKernelRegistry& r) {
  r.add("", "Add", factory(BinaryOp::Add));
  r.add("", "Sub", factory(BinaryOp::Sub));
  r.add("", "Mul", factory(BinaryOp::Mul));
  r.add("", "Div", factory(BinaryOp::Div));
}

}  // namespace ms::rt
