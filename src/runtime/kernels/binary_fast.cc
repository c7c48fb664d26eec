// Add, Sub, Mul, Div on float32 with numpy broadcasting. The shapes are reduced to the fewest
// dimensions (adjacent axes that broadcast alike merge), so per-channel scales ([1,C,1,1]), row
// biases ([N]) and scalars all become contiguous vectorized runs (vec_loops.h) in an outer loop
// that OpenMP splits between the threads.
#include <array>

#include "runtime/kernels/blocked_elementwise.h"
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
  // blockable[i]: input i is a rank-4 float32 tensor whose partner has its shape or is a constant
  // scalar, so the op can run on the blocked layout (padding included) for that input.
  FastBinary(BinaryOp op, std::array<bool, 2> blockable) : op_(op), blockable_(blockable) {}
  const char* name() const override { return "vec_binary"; }
  bool accepts_blocked(size_t input) const override { return input < 2 && blockable_[input]; }
  bool emits_blocked() const override { return blockable_[0] || blockable_[1]; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    for (size_t i = 0; i < 2 && i < in.size(); ++i) blocked_[i] = in[i];
    y_blocked_ = out;
  }

  bool run(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (blocked_[0] || blocked_[1] || y_blocked_) return run_blocked(ctx, a, b);
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
  // Full-size operands over the blocked buffer; a scalar operand broadcasts as itself.
  bool run_blocked(KernelContext& ctx, const Tensor& a, const Tensor& b) {
    const bool a_full = a.rank() == 4, b_full = b.rank() == 4;
    if (a.dtype() != DType::Float32 || b.dtype() != DType::Float32 || (a_full && b_full && a.shape() != b.shape()) ||
        (!a_full && a.numel() != 1) || (!b_full && b.numel() != 1))
      fail("{}: internal: inputs {} and {} do not fit the layout planned for them", ctx.node().label(),
           shape_str(a.shape()), shape_str(b.shape()));
    std::vector<BlockedOperand> full;
    if (a_full) full.push_back({&a, blocked_[0]});
    if (b_full) full.push_back({&b, blocked_[1]});
    const Operands kind = a_full && b_full ? Operands::BothVectors : a_full ? Operands::ScalarB : Operands::ScalarA;
    const BinaryLoop loop = vec_loops().binary[static_cast<int>(op_)][static_cast<int>(kind)];
    const float* scalar = !a_full ? a.data<float>() : !b_full ? b.data<float>() : nullptr;
    ctx.set_output(0, blocked_elementwise(full, (a_full ? a : b).shape(), y_blocked_,
                                          [&](const std::vector<const float*>& in, float* out, int64_t n) {
                                            if (kind == Operands::BothVectors) loop(in[0], in[1], out, n);
                                            else if (kind == Operands::ScalarB) loop(in[0], scalar, out, n);
                                            else loop(scalar, in[0], out, n);
                                          }));
    return true;
  }

  BinaryOp op_;
  std::array<bool, 2> blockable_;
  std::array<bool, 2> blocked_ = {false, false};
  bool y_blocked_ = false;
};

// Whether input i can be blocked: rank-4 float32 with a static shape, and the other input either of
// the same shape or a constant float32 scalar. Dividing by a blocked tensor is excluded: its zero
// padding would give 0/0 = NaN, which the next convolution's zero weights do not cancel.
bool blockable_input(const KernelBuildInfo& info, size_t i, BinaryOp op) {
  const size_t other = 1 - i;
  if (op == BinaryOp::Div && i == 1) return false;
  const TypeInfo* t = info.type(i);
  if (!info.is_f32_rank(i, 4) || !t->has_static_shape()) return false;
  if (const Tensor* c = info.constant(other); c && c->numel() == 1 && c->dtype() == DType::Float32) return true;
  const TypeInfo* u = info.type(other);
  return info.is_f32_rank(other, 4) && u->has_static_shape() && u->static_shape() == t->static_shape();
}

FastKernelFactory factory(BinaryOp op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (!info.maybe_f32(0) || !info.maybe_f32(1)) return nullptr;
    return std::make_unique<FastBinary>(op, std::array<bool, 2>{blockable_input(info, 0, op), blockable_input(info, 1, op)});
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
