// Softmax: y = exp(x - max) / sum exp(x - max) along `axis`; LogSoftmax: y = x - max - log(sum
// exp(x - max)); Hardmax: y = 1 at the first maximum along `axis`, else 0.
// Before opset 13 the input is coerced to 2-D at `axis` (default 1) and the op runs over the
// flattened trailing dims; from 13 it runs over the single `axis` (default -1).
#include "ops/reduce_util.h"

namespace ms {
namespace {

enum class SoftKind { Softmax, LogSoftmax, Hardmax };

KernelFn softmax_kernel(SoftKind kind) {
  return [kind](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const bool legacy = ctx.opset() < 13;
    const int64_t rank = x.rank();
    int64_t axis = ctx.has_attr("axis") ? ctx.attr_int("axis") : (legacy ? 1 : -1);
    if (rank == 0) fail("{}: input must have rank >= 1", ctx.node().label());
    axis = normalize_axis(axis, rank, ctx.node());
    int64_t outer = dims_product(x.shape(), 0, axis), n, inner;
    if (legacy) {
      n = dims_product(x.shape(), axis, rank);
      inner = 1;
    } else {
      n = x.dim(axis);
      inner = dims_product(x.shape(), axis + 1, rank);
    }
    Tensor y(x.dtype(), x.shape());
    dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x.data<T>();
      T* out = y.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          auto at = [&](int64_t k) { return base + k * inner; };
          double mx = -std::numeric_limits<double>::infinity();
          int64_t arg = 0;
          for (int64_t k = 0; k < n; ++k) {
            double v = to_acc<double>(in[at(k)]);
            if (v > mx) {
              mx = v;
              arg = k;
            }
          }
          if (kind == SoftKind::Hardmax) {
            for (int64_t k = 0; k < n; ++k) out[at(k)] = from_acc<T>(k == arg ? 1.0 : 0.0);
            continue;
          }
          double sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += std::exp(to_acc<double>(in[at(k)]) - mx);
          const double log_sum = std::log(sum);
          for (int64_t k = 0; k < n; ++k) {
            double d = to_acc<double>(in[at(k)]) - mx;
            out[at(k)] = from_acc<T>(kind == SoftKind::Softmax ? std::exp(d) / sum : d - log_sum);
          }
        }
    });
    ctx.set_output(0, std::move(y));
  };
}

void add_soft(OpRegistry& r, const char* name, SoftKind kind) {
  r.add(OpDef(name)
            .inputs(1)
            .outputs(1)
            .attr_int("axis", -1)
            .infer_fn(infer_same_as_input0)
            .kernel_fn(softmax_kernel(kind)));
}

}  // namespace

void register_op_softmax(OpRegistry& r) {
  add_soft(r, "Softmax", SoftKind::Softmax);
  add_soft(r, "LogSoftmax", SoftKind::LogSoftmax);
  add_soft(r, "Hardmax", SoftKind::Hardmax);
}

}  // namespace ms
