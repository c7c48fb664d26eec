// Negative log-likelihood over log-probabilities, shared by NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss: loss[n, d...] = -logp[n, t, d...] * w[t] with t = target[n, d...],
// 0 where t == ignore_index; reduced by none / sum / mean (sum divided by the sum of the
// applied weights).
#pragma once
#include "ops/reduce_util.h"

namespace ms {

inline Tensor nll_reduce(const KernelContext& ctx, const std::vector<double>& logp, const Shape& in_shape,
                         DType out_dtype, const Tensor& target, const Tensor* weight) {
  const std::string label = ctx.node().label();
  if (in_shape.size() < 2) fail("{}: input must have rank >= 2 (N x C x ...), got {}", label, shape_str(in_shape));
  Shape expect_t = in_shape;
  expect_t.erase(expect_t.begin() + 1);
  if (target.shape() != expect_t)
    fail("{}: target shape {} does not match input shape {} (expected {})", label, shape_str(target.shape()),
         shape_str(in_shape), shape_str(expect_t));
  const int64_t n = in_shape[0], c = in_shape[1], inner = dims_product(in_shape, 2, in_shape.size());
  std::vector<double> w;
  if (weight) {
    if (weight->numel() != c) fail("{}: weight has {} elements, expected C = {}", label, weight->numel(), c);
    w = weight->to_double_vector();
  }
  const bool has_ii = ctx.has_attr("ignore_index");
  const int64_t ii = has_ii ? ctx.attr_int("ignore_index") : 0;
  const std::string& reduction = ctx.attr_string("reduction");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    fail("{}: reduction must be none, sum or mean, got '{}'", label, reduction);
  auto tv = target.to_int64_vector();
  std::vector<double> loss(tv.size());
  double wsum = 0, lsum = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t k = b * inner + i, t = tv[k];
      if (has_ii && t == ii) {
        loss[k] = 0;
        continue;
      }
      if (t < 0 || t >= c) fail("{}: target value {} is out of range [0, {})", label, t, c);
      const double wt = w.empty() ? 1.0 : w[t];
      loss[k] = -logp[(b * c + t) * inner + i] * wt;
      wsum += wt;
      lsum += loss[k];
    }
  Tensor out(out_dtype, reduction == "none" ? target.shape() : Shape{});
  dispatch_float(out_dtype, label, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    if (reduction == "none")
      for (size_t k = 0; k < loss.size(); ++k) p[k] = from_acc<T>(loss[k]);
    else
      p[0] = from_acc<T>(reduction == "sum" ? lsum : lsum / wsum);
  });
  return out;
}

}  // namespace ms
