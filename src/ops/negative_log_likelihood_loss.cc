// NegativeLogLikelihoodLoss: loss = -input[n, target[n, d...], d...] * weight[target], reduced
// by none / sum / mean (weighted mean), skipping ignore_index.
#include "ops/loss_util.h"

namespace ms {

void register_op_negative_log_likelihood_loss(OpRegistry& r) {
  r.add(OpDef("NegativeLogLikelihoodLoss")
            .inputs(2, 3)
            .outputs(1)
            .attr_string("reduction", "mean")
            .attr("ignore_index", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              const DType dt = ctx.input_type(0).dtype;
              if (ctx.attr_string("reduction") != "none") ctx.set_output_type(0, TypeInfo::tensor(dt, Shape{}));
              else if (ctx.input_type(1).shape) ctx.set_output_type(0, TypeInfo::tensor(dt, *ctx.input_type(1).shape));
              else ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor* w = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              ctx.set_output(0, nll_reduce(ctx, x.to_double_vector(), x.shape(), x.dtype(), ctx.input(1), w));
            }));
}

}  // namespace ms
