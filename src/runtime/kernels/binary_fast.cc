// Add, Sub, Mul, Div and two-input Max, Min on float32 with numpy broadcasting. The shapes are reduced to the fewest
// dimensions (adjacent axes that broadcast alike merge), so per-channel scales ([1,C,1,1]), row
// biases ([N]) and scalars all become contiguous vectorized runs (vec_loops.h) in an outer loop
// that OpenMP splits between the threads.
#include <array>

#include "runtime/kernels/binary_blocked.h"
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
  FastBinary(BinaryOp op, std::array<bool, 2> may_block) : op_(op), may_block_(may_block) {}
  const char* name() const override { return "vec_binary"; }
  bool accepts_blocked(size_t input) const override { return input < 2 && may_block_[input]; }
  bool emits_blocked() const override { return may_block_[0] || may_block_[1]; }
  bool blocked_only_after_blocked() const override { return true; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    for (size_t i = 0; i < 2; ++i) blocked_in_[i] = i < in.size() && in[i];
    blocked_out_ = out;
  }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DType::Float32 || b.dtype() != DType::Float32) return false;
    const BroadcastPlan p = plan_broadcast(a.shape(), b.shape());
    if (!p.ok || shape_numel(p.out) == 0) return false;  // the reference names the mismatch
    if (blocked_in_[0] || blocked_in_[1] || blocked_out_) return run_blocked(ctx, memory, a, b, p);
    Tensor y = output_tensor(memory, 0, DType::Float32, p.out);
    compute_plain(p, a.data<float>(), b.data<float>(), y.data<float>());
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  // Values planned channel-blocked (between convolutions): the blocked loops, or for a broadcast
  // they do not cover, the plain loops between reorders.
  bool run_blocked(KernelContext& ctx, KernelMemory& memory, const Tensor& a, const Tensor& b, const BroadcastPlan& p) {
    const dnnl::memory::desc md = blocked_f32_desc(p.out), plain_md = plain_f32_desc(p.out);
    Tensor y = output_tensor(memory, 0, DType::Float32, p.out, blocked_out_ ? md.get_size() : 0);
    Tensor tmp;  // the result in the other layout, when the output's is not the one computed
    float* yb = blocked_out_ ? y.data<float>() : nullptr;
    if (!blocked_out_) {
      tmp = byte_buffer(md);
      yb = static_cast<float*>(tmp.raw());
    }
    if (binary_blocked(op_, a, blocked_in_[0], b, blocked_in_[1], p.out, yb)) {
      if (!blocked_out_) reorder(md, yb, plain_md, y.raw());
      ctx.set_output(0, std::move(y));
      return true;
    }
    auto plain = [](const Tensor& t, bool blocked) {
      if (!blocked) return t;
      Tensor r = uninit_tensor(DType::Float32, t.shape());
      reorder(blocked_f32_desc(t.shape()), t.raw(), plain_f32_desc(t.shape()), r.raw());
      return r;
    };
    const Tensor pa = plain(a, blocked_in_[0]), pb = plain(b, blocked_in_[1]);
    if (blocked_out_) tmp = uninit_tensor(DType::Float32, p.out);
    compute_plain(p, pa.data<float>(), pb.data<float>(), blocked_out_ ? tmp.data<float>() : y.data<float>());
    if (blocked_out_) reorder(plain_md, tmp.raw(), md, y.raw());
    ctx.set_output(0, std::move(y));
    return true;
  }

  void compute_plain(const BroadcastPlan& p, const float* pa, const float* pb, float* py) const {
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
  }

  BinaryOp op_;
  std::array<bool, 2> may_block_;
  std::array<bool, 2> blocked_in_{false, false};
  bool blocked_out_ = false;
};

// Whether input i may arrive channel-blocked: a rank-4 float tensor whose partner has rank 4 (same
// shape or per channel), is [C, 1, 1] or holds one element, the forms binary_blocked covers; a run
// that meets another broadcast still works, through reorders.
bool may_block(const KernelBuildInfo& info, size_t i) {
  if (!info.is_f32_rank(i, 4)) return false;
  if (const Tensor* c = info.constant(1 - i)) return c->numel() == 1 || c->rank() == 4 || c->rank() == 3;
  const TypeInfo* t = info.type(1 - i);
  if (!t || !t->shape) return false;
  if (t->shape->size() == 4) return true;
  for (const Dim& d : *t->shape)
    if (d.value != 1) return false;
  return true;
}

FastKernelFactory factory(BinaryOp op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    // Max and Min are variadic; the two-input form is the common one (x with a bound or a
    // scaled copy of itself).
    if (info.node.inputs.size() != 2 || !info.maybe_f32(0) || !info.maybe_f32(1)) return nullptr;
    return std::make_unique<FastBinary>(op, std::array<bool, 2>{may_block(info, 0), may_block(info, 1)});
  };
}

}  // namespace

void register_binary_kernels(FastKernelRegistry& r) {
  r.add("", "Add", factory(BinaryOp::Add));
  r.add("", "Sub", factory(BinaryOp::Sub));
  r.add("", "Mul", factory(BinaryOp::Mul));
  r.add("", "Div", factory(BinaryOp::Div));
  r.add("", "Max", factory(BinaryOp::Max));
  r.add("", "Min", factory(BinaryOp::Min));
}

}  // namespace ms::rt
