// Elementwise activations and unary math on float32 (Relu, LeakyRelu, Clip, Sigmoid, Tanh,
// HardSigmoid, HardSwish, Exp, Neg, Sqrt, Log, and Pow by a constant 2, 0.5 or 1: the power spectra
// and RMS norms audio front ends and transformers spell with Pow): vectorized loops (vec_loops.h)
// over chunks that the threads share.
#include <limits>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace {

class FastUnary : public FastKernel {
 public:
  FastUnary(UnaryOp op, float alpha, float beta) : op_(op), alpha_(alpha), beta_(beta) {}
  const char* name() const override { return "vec_unary"; }
  // A binary op computed as unary (Pow by a constant) broadcasts to x's shape only when its other
  // operand's rank is at most x's.
  void set_max_other_rank(int64_t rank) { max_other_rank_ = rank; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.numel() == 0 || x.rank() < max_other_rank_) return false;
    float alpha = alpha_, beta = beta_;
    if (op_ == UnaryOp::Clip) {  // bounds are optional scalar inputs (opset >= 11)
      for (size_t i = 1; i < 3; ++i) {
        if (!ctx.has_input(i)) continue;
        const Tensor& t = ctx.input(i);
        if (t.dtype() != DType::Float32 || t.numel() != 1) return false;
        (i == 1 ? alpha : beta) = t.data<float>()[0];
      }
    }
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    const UnaryLoop loop = vec_loops().unary[static_cast<int>(op_)];
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_chunks(x.numel(), [&](int64_t b, int64_t e) { loop(px + b, py + b, e - b, alpha, beta); });
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  UnaryOp op_;
  float alpha_, beta_;
  int64_t max_other_rank_ = 0;
};

// alpha_attr / beta_attr: the op's float attributes read into the loop's parameters ("" = none).
FastKernelFactory factory(UnaryOp op, const char* alpha_attr = "", const char* beta_attr = "") {
  return [=](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (!info.maybe_f32(0)) return nullptr;
    AttrReader a = info.attrs();
    float alpha = 0, beta = 0;
    if (op == UnaryOp::Clip) {
      if (info.node.attr("min") || info.node.attr("max")) return nullptr;  // pre-11 form
      alpha = std::numeric_limits<float>::lowest();
      beta = std::numeric_limits<float>::max();
    }
    if (*alpha_attr) alpha = a.attr_float(alpha_attr);
    if (*beta_attr) beta = a.attr_float(beta_attr);
    return std::make_unique<FastUnary>(op, alpha, beta);
  };
}

// Pow(x, c) with a constant one-element exponent: x^2 = x * x, x^0.5 = sqrt(x), x^1 = x (as
// 1 * x + 0). The output has x's shape only when c's rank does not exceed x's (checked at run).
std::unique_ptr<FastKernel> make_pow(const KernelBuildInfo& info) {
  const Tensor* c = info.constant(1);
  if (!info.maybe_f32(0) || !c || c->numel() != 1 || c->dtype() == DType::String) return nullptr;
  const double e = c->to_double_vector()[0];
  std::unique_ptr<FastUnary> k;
  if (e == 2) k = std::make_unique<FastUnary>(UnaryOp::Square, 0.f, 0.f);
  else if (e == 0.5) k = std::make_unique<FastUnary>(UnaryOp::Sqrt, 0.f, 0.f);
  else if (e == 1) k = std::make_unique<FastUnary>(UnaryOp::Affine, 1.f, 0.f);
  else return nullptr;
  k->set_max_other_rank(c->rank());
  return k;
}

}  // namespace

void register_unary_kernels(FastKernelRegistry& r) {
  r.add("", "Pow", make_pow);
  r.add("", "Relu", factory(UnaryOp::Relu));
  r.add("", "LeakyRelu", factory(UnaryOp::LeakyRelu, "alpha"));
  r.add("", "Clip", factory(UnaryOp::Clip));
  r.add("", "Sigmoid", factory(UnaryOp::Sigmoid));
  r.add("", "Tanh", factory(UnaryOp::Tanh));
  r.add("", "HardSigmoid", factory(UnaryOp::HardSigmoid, "alpha", "beta"));
  r.add("", "HardSwish", factory(UnaryOp::HardSwish));
  r.add("", "Exp", factory(UnaryOp::Exp));
  r.add("", "Neg", factory(UnaryOp::Neg));
  r.add("", "Sqrt", factory(UnaryOp::Sqrt));
  r.add("", "Log", factory(UnaryOp::Log));
}

}  // namespace ms::rt
