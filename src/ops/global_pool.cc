// GlobalAveragePool / GlobalMaxPool / GlobalLpPool: y[n,c,1,...,1] = mean / max / Lp-norm of x[n,c,:].
#include <cmath>

#include "ops/conv_pool_util.h"

namespace ms {
namespace {

enum class GlobalKind { Average, Max, Lp };

void infer_global(InferContext& ctx) {
  const TypeInfo& xt = ctx.input_type(0);
  if (!xt.shape) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(xt.dtype));
    return;
  }
  std::vector<Dim> d = *xt.shape;
  for (size_t i = 2; i < d.size(); ++i) d[i] = Dim::fixed(1);
  ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, d));
}

KernelFn global_kernel(GlobalKind kind) {
  return [kind](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) fail("{}: input must have rank >= 2 (N, C, ...), got {}", ctx.node().label(), shape_str(x.shape()));
    Shape ys = x.shape();
    for (size_t i = 2; i < ys.size(); ++i) ys[i] = 1;
    Tensor y(x.dtype(), ys);
    const int64_t NC = x.dim(0) * x.dim(1), I = NC ? x.numel() / NC : 0;
    const double p = kind == GlobalKind::Lp ? double(ctx.attr_int("p")) : 0.0;
    dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = x.data<T>();
      T* yp = y.data<T>();
      for (int64_t nc = 0; nc < NC; ++nc) {
        const T* v = xp + nc * I;
        double acc = kind == GlobalKind::Max ? -INFINITY : 0.0;
        for (int64_t i = 0; i < I; ++i) {
          const double e = double(v[i]);
          if (kind == GlobalKind::Max) acc = std::max(acc, e);
          else if (kind == GlobalKind::Average) acc += e;
          else acc += std::pow(std::fabs(e), p);
        }
        if (kind == GlobalKind::Average) acc = I ? acc / double(I) : 0.0;
        if (kind == GlobalKind::Lp) acc = std::pow(acc, 1.0 / p);
        yp[nc] = T(acc);
      }
    });
    ctx.set_output(0, std::move(y));
  };
}

}  // namespace

void register_op_global_pool(OpRegistry& r) {
  r.add(OpDef("GlobalAveragePool").inputs(1).outputs(1).infer_fn(infer_global).kernel_fn(global_kernel(GlobalKind::Average)));
  r.add(OpDef("GlobalMaxPool").trait(kTraitHalfCompute).inputs(1).outputs(1).infer_fn(infer_global).kernel_fn(global_kernel(GlobalKind::Max)));
  r.add(OpDef("GlobalLpPool").inputs(1).outputs(1).attr_int("p", 2).infer_fn(infer_global).kernel_fn(global_kernel(GlobalKind::Lp)));
}

}  // namespace ms
