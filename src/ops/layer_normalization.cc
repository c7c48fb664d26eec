// LayerNormalization: over the trailing dims from `axis`, y = (x - mean) * inv_std * Scale + B
// with inv_std = 1 / sqrt(var + epsilon); also returns Mean and InvStdDev (shape of x with the
// normalized dims set to 1).
#include "ops/reduce_util.h"

namespace ms {
namespace {

// Offsets of a Scale/B tensor broadcast over the normalized shape.
std::vector<int64_t> param_offsets(const KernelContext& ctx, const Tensor& p, const Shape& norm, const char* what) {
  Shape b = broadcast_shapes({p.shape(), norm}, ctx.node());
  if (b != norm)
    fail("{}: {} of shape {} does not broadcast to the normalized shape {}", ctx.node().label(), what,
         shape_str(p.shape()), shape_str(norm));
  return broadcast_offsets(p.shape(), norm);
}

DType stash_dtype(const AttrReader& ctx, DType x) { return ctx.attr_int("stash_type") == 1 ? DType::Float32 : x; }

}  // namespace

void register_op_layer_normalization(OpRegistry& r) {
  r.add(OpDef("LayerNormalization")
            .inputs(2, 3)
            .outputs(1, 3)
            .attr_int("axis", -1)
            .attr_float("epsilon", 1e-5f)
            .attr_int("stash_type", 1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              ctx.set_output_type(0, t);
              const DType sd = stash_dtype(ctx, t.dtype);
              TypeInfo stat = TypeInfo::tensor_unknown_shape(sd);
              if (t.shape) {
                auto dims = *t.shape;
                int64_t axis = normalize_axis(ctx.attr_int("axis"), static_cast<int64_t>(dims.size()), ctx.node());
                for (size_t i = axis; i < dims.size(); ++i) dims[i] = Dim::fixed(1);
                stat = TypeInfo::tensor(sd, dims);
              }
              for (size_t i = 1; i < ctx.output_types().size(); ++i) ctx.set_output_type(i, stat);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const int64_t rank = x.rank();
              if (rank == 0) fail("{}: input must have rank >= 1", ctx.node().label());
              const int64_t axis = normalize_axis(ctx.attr_int("axis"), rank, ctx.node());
              const Shape norm(x.shape().begin() + axis, x.shape().end());
              const int64_t outer = dims_product(x.shape(), 0, axis), inner = shape_numel(norm);
              const double eps = ctx.attr_float("epsilon");
              const Tensor& scale = ctx.input(1);
              auto soff = param_offsets(ctx, scale, norm, "Scale");
              auto sv = scale.to_double_vector();
              std::vector<double> bv;
              std::vector<int64_t> boff;
              if (ctx.has_input(2)) {
                boff = param_offsets(ctx, ctx.input(2), norm, "B");
                bv = ctx.input(2).to_double_vector();
              }
              auto xd = x.to_double_vector();
              Shape stat_shape = x.shape();
              for (int64_t i = axis; i < rank; ++i) stat_shape[i] = 1;
              const DType sd = stash_dtype(ctx, x.dtype());
              std::vector<double> means(outer), invs(outer);
              Tensor y(x.dtype(), x.shape());
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* out = y.data<T>();
                for (int64_t o = 0; o < outer; ++o) {
                  const double* p = xd.data() + o * inner;
                  double mean = 0, var = 0;
                  for (int64_t i = 0; i < inner; ++i) mean += p[i];
                  mean /= static_cast<double>(inner);
                  for (int64_t i = 0; i < inner; ++i) var += (p[i] - mean) * (p[i] - mean);
                  var /= static_cast<double>(inner);
                  const double inv = 1.0 / std::sqrt(var + eps);
                  means[o] = mean;
                  invs[o] = inv;
                  for (int64_t i = 0; i < inner; ++i)
                    out[o * inner + i] = from_acc<T>((p[i] - mean) * inv * sv[soff[i]] + (bv.empty() ? 0.0 : bv[boff[i]]));
                }
              });
              ctx.set_output(0, std::move(y));
              const std::vector<double>* stats[] = {&means, &invs};
              for (size_t k = 1; k < 3; ++k) {
                if (!ctx.wants_output(k)) continue;
                Tensor t(sd, stat_shape);
                dispatch_float(sd, ctx.node().label(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  T* p = t.data<T>();
                  for (int64_t o = 0; o < outer; ++o) p[o] = from_acc<T>((*stats[k - 1])[o]);
                });
                ctx.set_output(k, std::move(t));
              }
            }));
}

}  // namespace ms
