// BatchNormalization: y = scale * (x - mean) / sqrt(var + epsilon) + B per channel (axis 1).
// Inference uses the given mean/var; training_mode uses the batch statistics and also returns
// running_mean = mean * momentum + batch_mean * (1 - momentum) (likewise running_var).
#include "ops/reduce_util.h"

namespace ms {
namespace {

// A per-channel parameter as doubles; old opsets (spatial=0) give one value per C x spatial.
std::vector<double> bn_param(const KernelContext& ctx, size_t i, int64_t c, int64_t inner, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.numel() != c && t.numel() != c * inner)
    fail("{}: {} has {} elements, expected {} (one per channel)", ctx.node().label(), what, t.numel(), c);
  return t.to_double_vector();
}

Tensor vec_tensor(DType dt, const std::vector<double>& v) {
  Tensor t(dt, Shape{static_cast<int64_t>(v.size())});
  dispatch_float(dt, "BatchNormalization", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = from_acc<T>(v[i]);
  });
  return t;
}

}  // namespace

void register_op_batch_normalization(OpRegistry& r) {
  r.add(OpDef("BatchNormalization")
            .inputs(5)
            .outputs(1, 5)
            .attr_float("epsilon", 1e-5f)
            .attr_float("momentum", 0.9f)
            .attr_int("training_mode", 0)
            .attr_int("spatial", 1)
            .attr("is_test", AttrType::Int, false)           // opset < 7
            .attr("consumed_inputs", AttrType::Ints, false)  // opset < 6
            .infer_fn([](InferContext& ctx) {
              ctx.set_output_type(0, ctx.input_type(0));
              const TypeInfo& m = ctx.input_type(3);
              for (size_t i = 1; i < ctx.output_types().size(); ++i) ctx.set_output_type(i, i % 2 ? m : ctx.input_type(4));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2) fail("{}: input must have rank >= 2 (N x C x ...), got {}", ctx.node().label(), shape_str(x.shape()));
              const int64_t n = x.dim(0), c = x.dim(1), inner = dims_product(x.shape(), 2, x.rank());
              const double eps = ctx.attr_float("epsilon"), momentum = ctx.attr_float("momentum");
              auto scale = bn_param(ctx, 1, c, inner, "scale");
              auto bias = bn_param(ctx, 2, c, inner, "B");
              auto mean = bn_param(ctx, 3, c, inner, "mean");
              auto var = bn_param(ctx, 4, c, inner, "var");
              const bool training = ctx.attr_int("training_mode") != 0;
              auto xd = x.to_double_vector();
              std::vector<double> bmean(c, 0.0), bvar(c, 0.0);
              if (training) {
                const double cnt = static_cast<double>(n * inner);
                for (int64_t b = 0; b < n; ++b)
                  for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t i = 0; i < inner; ++i) bmean[ch] += xd[(b * c + ch) * inner + i];
                for (auto& m : bmean) m /= cnt;
                for (int64_t b = 0; b < n; ++b)
                  for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t i = 0; i < inner; ++i) {
                      double d = xd[(b * c + ch) * inner + i] - bmean[ch];
                      bvar[ch] += d * d;
                    }
                for (auto& v : bvar) v /= cnt;
              }
              auto pick = [&](const std::vector<double>& p, int64_t ch, int64_t i) {
                return static_cast<int64_t>(p.size()) == c ? p[ch] : p[ch * inner + i];
              };
              Tensor y(x.dtype(), x.shape());
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                for (int64_t b = 0; b < n; ++b)
                  for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t i = 0; i < inner; ++i) {
                      const int64_t off = (b * c + ch) * inner + i;
                      double m = training ? bmean[ch] : pick(mean, ch, i);
                      double v = training ? bvar[ch] : pick(var, ch, i);
                      out[off] = from_acc<T>(pick(scale, ch, i) * (xd[off] - m) / std::sqrt(v + eps) + pick(bias, ch, i));
                    }
              });
              ctx.set_output(0, std::move(y));
              if (ctx.num_outputs() > 1) {
                std::vector<double> rm = mean, rv = var;
                if (training && static_cast<int64_t>(mean.size()) == c)
                  for (int64_t ch = 0; ch < c; ++ch) {
                    rm[ch] = mean[ch] * momentum + bmean[ch] * (1 - momentum);
                    rv[ch] = var[ch] * momentum + bvar[ch] * (1 - momentum);
                  }
                const DType pdt = ctx.input(3).dtype();
                std::vector<std::vector<double>> outs = {rm, rv, bmean, bvar};
                for (size_t k = 1; k < ctx.num_outputs() && k <= 4; ++k)
                  if (ctx.wants_output(k)) ctx.set_output(k, vec_tensor(pdt, outs[k - 1]));
              }
            }));
}

}  // namespace ms
