// SoftmaxCrossEntropyLoss: log_prob = log_softmax(scores) over axis 1, loss = negative
// log-likelihood of log_prob at the labels (weighted, ignore_index, reduction none/sum/mean).
#include "ops/loss_util.h"

namespace ms {

void register_op_softmax_cross_entropy_loss(OpRegistry& r) {
  r.add(OpDef("SoftmaxCrossEntropyLoss")
            .inputs(2, 3)
            .outputs(1, 2)
            .attr_string("reduction", "mean")
            .attr("ignore_index", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              const DType dt = ctx.input_type(0).dtype;
              if (ctx.attr_string("reduction") != "none") ctx.set_output_type(0, TypeInfo::tensor(dt, Shape{}));
              else if (ctx.input_type(1).shape) ctx.set_output_type(0, TypeInfo::tensor(dt, *ctx.input_type(1).shape));
              else ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
              if (ctx.output_types().size() > 1) ctx.set_output_type(1, ctx.input_type(0));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2) fail("{}: scores must have rank >= 2 (N x C x ...), got {}", ctx.node().label(), shape_str(x.shape()));
              const int64_t n = x.dim(0), c = x.dim(1), inner = dims_product(x.shape(), 2, x.rank());
              auto logp = x.to_double_vector();
              for (int64_t b = 0; b < n; ++b)
                for (int64_t i = 0; i < inner; ++i) {
                  auto at = [&](int64_t k) -> double& { return logp[(b * c + k) * inner + i]; };
                  double mx = -std::numeric_limits<double>::infinity(), sum = 0;
                  for (int64_t k = 0; k < c; ++k) mx = std::max(mx, at(k));
                  for (int64_t k = 0; k < c; ++k) sum += std::exp(at(k) - mx);
                  const double ls = std::log(sum) + mx;
                  for (int64_t k = 0; k < c; ++k) at(k) -= ls;
                }
              const Tensor* w = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              ctx.set_output(0, nll_reduce(ctx, logp, x.shape(), x.dtype(), ctx.input(1), w));
              if (ctx.wants_output(1)) {
                Tensor lp(x.dtype(), x.shape());
                dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  T* p = lp.data<T>();
                  for (size_t k = 0; k < logp.size(); ++k) p[k] = from_acc<T>(logp[k]);
                });
                ctx.set_output(1, std::move(lp));
              }
            }));
}

}  // namespace ms
