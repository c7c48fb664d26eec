// MaxPool: y[n,c,o] = max of x over the window at o (padding ignored); Indices = flat input index of the max.
#include "ops/conv_pool_util.h"

namespace ms {

void register_op_max_pool(OpRegistry& r) {
  r.add(OpDef("MaxPool").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1, 2)
            .attr_string("auto_pad", "NOTSET")
            .attr_int("ceil_mode", 0)
            .attr_ints("dilations")
            .attr("kernel_shape", AttrType::Ints, true)
            .attr_ints("pads")
            .attr_int("storage_order", 0)
            .attr_ints("strides")
            .infer_fn(infer_pool)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const WindowGeom g = pool_geom(ctx, x.shape());
              const bool col_major = ctx.attr_int("storage_order") != 0;
              const Shape ys = pool_out_shape(x.shape(), g);
              Tensor y(x.dtype(), ys);
              Tensor idx(DType::Int64, ys);
              const auto offs = window_offsets(g);
              const Shape in = g.in_shape();
              const auto rs = strides_of(in);
              // Column-major strides of the spatial plane, for storage_order = 1.
              std::vector<int64_t> cs(in.size(), 1);
              for (size_t d = 1; d < in.size(); ++d) cs[d] = cs[d - 1] * in[d - 1];
              auto flat = [&](int64_t off) {
                if (!col_major) return off;
                int64_t r = 0;
                for (size_t d = 0; d < in.size(); ++d) {
                  r += (off / rs[d]) * cs[d];
                  off %= rs[d];
                }
                return r;
              };
              const int64_t I = g.in_numel(), K = g.kernel_numel(), O = g.out_numel(), NC = x.dim(0) * x.dim(1);
              int64_t* ip = idx.data<int64_t>();
              dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                T* yp = y.data<T>();
                for (int64_t nc = 0; nc < NC; ++nc)
                  for (int64_t o = 0; o < O; ++o) {
                    const int64_t* row = offs.data() + o * K;
                    // Integers compare exactly; float16/bfloat16 compare through double.
                    auto val = [&](int64_t off) {
                      if constexpr (std::is_integral_v<T>) return xp[nc * I + off];
                      else return double(xp[nc * I + off]);
                    };
                    int64_t best = -1;
                    for (int64_t k = 0; k < K; ++k)
                      if (row[k] >= 0 && (best < 0 || val(row[k]) > val(best))) best = row[k];
                    yp[nc * O + o] = best >= 0 ? xp[nc * I + best] : T(0);
                    ip[nc * O + o] = best >= 0 ? nc * I + flat(best) : -1;
                  }
              });
              ctx.set_output(0, std::move(y));
              if (ctx.wants_output(1)) ctx.set_output(1, std::move(idx));
            }));
}

}  // namespace ms
