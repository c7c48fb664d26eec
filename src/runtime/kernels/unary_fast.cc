// Elementwise activations and unary math on float32 (Relu, LeakyRelu, Clip, Sigmoid, Tanh,
// HardSigmoid, HardSwish, Exp, Neg, Sqrt): vectorized loops (vec_loops.h) over chunks that the
// threads share.
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

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.numel() == 0) return false;
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

}  // namespace

void register_unary_kernels(FastKernelRegistry& r) {
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
}

}  // namespace ms::rt
