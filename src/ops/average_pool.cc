// AveragePool: y[n,c,o] = mean of x over the window at o (padding counted only with count_include_pad).
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_average_pool(OpRegistry& r) {
  r.add(OpDef("AveragePool").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .attr_string("auto_pad", "NOTSET")
            .attr_int("ceil_mode", 0)
            .attr_int("count_include_pad", 0)
            .attr_ints("dilations")
            .attr("kernel_shape", AttrType::Ints, true)
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn(infer_pool)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const WindowGeom g = pool_geom(ctx, x.shape());
              const bool include_pad = ctx.attr_int("count_include_pad") != 0;
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
                    int64_t count = 0;
                    const int64_t* row = offs.data() + o * K;
                    for (int64_t k = 0; k < K; ++k) {
                      if (row[k] >= 0) {
                        sum += double(xp[nc * I + row[k]]);
                        ++count;
                      } else if (row[k] == kInPad && include_pad) {
                        ++count;
                      }
                    }
                    yp[nc * O + o] = T(count > 0 ? sum / double(count) : 0.0);
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
