// LpPool: y[n,c,o] = (sum over the window at o of |x|^p)^(1/p); padding contributes zero.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_lp_pool(OpRegistry& r) {
  r.add(OpDef("LpPool")
            .inputs(1)
            .outputs(1)
            .attr_string("auto_pad", "NOTSET")
            .attr_int("ceil_mode", 0)
            .attr_ints("dilations")
            .attr("kernel_shape", AttrType::Ints, true)
            .attr_int("p", 2)
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn(infer_pool)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const WindowGeom g = pool_geom(ctx, x.shape());
              const double p = double(ctx.attr_int("p"));
              if (p <= 0) fail("{}: p must be positive, got {}", ctx.node().label(), p);
              Tensor y(x.dtype(), pool_out_shape(x.shape(), g));
              const auto offs = window_offsets(g);
              const int64_t I = g.in_numel(), K = g.kernel_numel(), O = g.out_numel(), NC = x.dim(0) * x.dim(1);
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                T* yp = y.data<T>();
                for (int64_t nc = 0; nc < NC; ++nc)
                  for (int64_t o = 0; o < O; ++o) {
                    double sum = 0;
                    const int64_t* row = offs.data() + o * K;
                    for (int64_t k = 0; k < K; ++k)
                      if (row[k] >= 0) sum += std::pow(std::fabs(double(xp[nc * I + row[k]])), p);
                    yp[nc * O + o] = T(std::pow(sum, 1.0 / p));
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
