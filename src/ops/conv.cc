// Conv: y[n,m,o] = b[m] + sum_{c in group(m), k} x[n,c,o*stride - pad + k*dilation] * w[m,c,k] (1-D/2-D/3-D).
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_conv(OpRegistry& r) {
  r.add(OpDef("Conv").trait(kTraitHalfCompute)
            .inputs(2, 3)
            .outputs(1)
            .trait(kTraitPerChannelWeight)
            .attr_string("auto_pad", "NOTSET")
            .attr_ints("dilations")
            .attr_int("group", 1)
            .attr_ints("kernel_shape")
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn([](InferContext& ctx) { infer_conv_like(ctx, 0, 1, ctx.input_type(0).dtype); })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& w = ctx.input(1);
              const std::string label = ctx.node().label();
              if (w.dtype() != x.dtype())
                fail("{}: W is {} but X is {}", label, dtype_name(w.dtype()), dtype_name(x.dtype()));
              const int64_t group = ctx.attr_int("group");
              const WindowGeom g = conv_geom(ctx, x.shape(), w.shape(), group);
              const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
              const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              if (b && (b->numel() != M || b->dtype() != x.dtype()))
                fail("{}: bias B {} must be {} with {} values", label, shape_str(b->shape()),
                     dtype_name(x.dtype()), M);
              Shape ys{N, M};
              for (int64_t d : g.out_shape()) ys.push_back(d);
              Tensor y(x.dtype(), ys);
              dispatch_float(x.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                const T* wp = w.data<T>();
                const T* bp = b ? b->data<T>() : nullptr;
                T* yp = y.data<T>();
                const int64_t I = g.in_numel(), K = g.kernel_numel(), O = g.out_numel(), cg = C / group;
                conv_loop<double>(
                    g, N, C, M, group, [&](int64_t n, int64_t c, int64_t off) { return double(xp[(n * C + c) * I + off]); },
                    [&](int64_t m, int64_t c, int64_t k) { return double(wp[(m * cg + c) * K + k]); },
                    [&](int64_t n, int64_t m, int64_t o, double acc) {
                      yp[(n * M + m) * O + o] = T(acc + (bp ? double(bp[m]) : 0.0));
                    });
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
