// MaxUnpool: y = zeros(output_shape); y.flat[indices[i]] = x.flat[i] (inverse of MaxPool with Indices).
#include "ops/conv_pool_util.h"

namespace ms {
namespace {

// Default output spatial size: (in - 1) * stride - pad_begin - pad_end + kernel.
std::vector<int64_t> default_unpool_dims(const AttrReader& a, const std::vector<int64_t>& in) {
  const size_t n = in.size();
  const auto& k = a.attr_ints("kernel_shape");
  if (k.size() != n) fail("{}: kernel_shape has {} values for {} spatial dims", a.node().label(), k.size(), n);
  std::vector<int64_t> s = a.attr_ints("strides"), p = a.attr_ints("pads");
  if (s.empty()) s.assign(n, 1);
  if (p.empty()) p.assign(2 * n, 0);
  if (s.size() != n || p.size() != 2 * n) fail("{}: strides/pads do not match {} spatial dims", a.node().label(), n);
  std::vector<int64_t> out(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (in[i] >= 0) out[i] = (in[i] - 1) * s[i] - p[i] - p[i + n] + k[i];
  return out;
}

}  // namespace

void register_op_max_unpool(OpRegistry& r) {
  r.add(OpDef("MaxUnpool")
            .inputs(2, 3)
            .outputs(1)
            .attr("kernel_shape", AttrType::Ints, true)
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              TypeInfo out = TypeInfo::tensor_unknown_shape(xt.dtype);
              if (const Tensor* os = ctx.has_input(2) ? ctx.input_constant(2) : nullptr) {
                out = TypeInfo::tensor(xt.dtype, os->to_int64_vector());
              } else if (!ctx.has_input(2) && xt.shape && xt.shape->size() >= 3) {
                std::vector<Dim> d{(*xt.shape)[0], (*xt.shape)[1]};
                for (const Dim& x : dims_from(default_unpool_dims(ctx, spatial_dims(xt)))) d.push_back(x);
                out = TypeInfo::tensor(xt.dtype, d);
              }
              ctx.set_output_type(0, out);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& ind = ctx.input(1);
              const std::string label = ctx.node().label();
              if (x.rank() < 3) fail("{}: X must have rank >= 3, got {}", label, shape_str(x.shape()));
              if (ind.shape() != x.shape())
                fail("{}: indices {} must have the shape of X {}", label, shape_str(ind.shape()), shape_str(x.shape()));
              // Indices address the default output shape; an explicit output_shape only pads it.
              Shape def{x.dim(0), x.dim(1)};
              auto dd = default_unpool_dims(ctx, Shape(x.shape().begin() + 2, x.shape().end()));
              def.insert(def.end(), dd.begin(), dd.end());
              Shape ys = def;
              if (ctx.has_input(2)) {
                ys = ctx.input(2).to_int64_vector();
                if (ys.size() != x.shape().size())
                  fail("{}: output_shape {} must have rank {}", label, shape_str(ys), x.rank());
              }
              for (int64_t d : ys)
                if (d < 0) fail("{}: negative output dimension in {}", label, shape_str(ys));
              Tensor y(x.dtype(), ys);
              auto idx = ind.to_int64_vector();
              const int64_t total = y.numel(), def_total = shape_numel(def);
              if (ys != def) {
                const auto ds = strides_of(def), os = strides_of(ys);
                for (auto& v : idx) {
                  if (v < 0 || v >= def_total) continue;  // reported below
                  int64_t rest = v, off = 0;
                  for (size_t d = 0; d < def.size(); ++d) {
                    const int64_t c = rest / ds[d];
                    rest %= ds[d];
                    if (c >= ys[d]) fail("{}: index {} does not fit output_shape {}", label, v, shape_str(ys));
                    off += c * os[d];
                  }
                  v = off;
                }
              }
              dispatch_by_size(x.dtype(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = raw_as<T>(x);
                T* yp = raw_as<T>(y);
                for (int64_t i = 0; i < x.numel(); ++i) {
                  if (idx[i] < 0 || idx[i] >= total)
                    fail("{}: index {} at position {} is outside the output of {} elements", label, idx[i], i, total);
                  yp[idx[i]] = xp[i];
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
