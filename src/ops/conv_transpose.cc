// ConvTranspose: y[n,m,i*stride - pad + k*dilation] += x[n,c,i] * w[c,m,k] (gradient of Conv), plus b[m].
#include "ops/conv_pool_util.h"

namespace ms {
namespace {

struct TransposeGeom {
  Shape in, kernel, out;
  std::vector<int64_t> strides, dil, pad_begin;
};

// in/kernel may hold -1 (unknown): the matching out dim is then -1.
TransposeGeom transpose_geom(const AttrReader& a, const Shape& in, const Shape& kernel) {
  const size_t n = in.size();
  const std::string label = a.node().label();
  if (kernel.size() != n) fail("{}: kernel has {} spatial dims but X has {}", label, kernel.size(), n);
  auto get = [&](const char* name, int64_t def, size_t count) {
    std::vector<int64_t> v = a.has_attr(name) ? a.attr_ints(name) : std::vector<int64_t>{};
    if (v.empty()) v.assign(count, def);
    if (v.size() != count) fail("{}: attribute '{}' has {} values, expected {}", label, name, v.size(), count);
    return v;
  };
  auto strides = get("strides", 1, n), dil = get("dilations", 1, n), pads = get("pads", 0, 2 * n);
  auto out_pad = get("output_padding", 0, n);
  std::vector<int64_t> out_shape = a.has_attr("output_shape") ? a.attr_ints("output_shape") : std::vector<int64_t>{};
  if (out_shape.size() > n) out_shape.erase(out_shape.begin(), out_shape.end() - n);  // given with N, C
  if (!out_shape.empty() && out_shape.size() != n)
    fail("{}: output_shape has {} values for {} spatial dims", label, out_shape.size(), n);
  std::string auto_pad = a.has_attr("auto_pad") ? a.attr_string("auto_pad") : "NOTSET";
  TransposeGeom g{in, kernel, Shape(n, -1), strides, dil, std::vector<int64_t>(n, 0)};
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] == 0)
      fail("{}: invalid stride {} / dilation {} / kernel {} on axis {}", label, strides[i], dil[i], kernel[i], i);
    if (in[i] < 0 || kernel[i] < 0) continue;
    const int64_t full = strides[i] * (in[i] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1;
    int64_t target = -1;
    if (!out_shape.empty()) target = out_shape[i];
    else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") target = in[i] * strides[i];
    if (target >= 0) {
      // A larger requested output than the full one is padded at the end (only bias lands there).
      const int64_t total = std::max<int64_t>(0, full - target);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.out[i] = target;
    } else {
      if (auto_pad != "VALID") g.pad_begin[i] = pads[i];
      g.out[i] = full - (auto_pad == "VALID" ? 0 : pads[i] + pads[i + n]);
    }
    if (g.out[i] < 0) fail("{}: negative output size {} on spatial axis {}", label, g.out[i], i);
  }
  return g;
}

Shape kernel_of(const AttrReader& a, const Shape& w) { return conv_kernel_shape(a, w); }

}  // namespace

void register_op_conv_transpose(OpRegistry& r) {
  r.add(OpDef("ConvTranspose").trait(kTraitHalfCompute)
            .inputs(2, 3)
            .outputs(1)
            .attr_string("auto_pad", "NOTSET")
            .attr_ints("dilations")
            .attr_int("group", 1)
            .attr_ints("kernel_shape")
            .attr_ints("output_padding")
            .attr_ints("output_shape")
            .attr_ints("pads")
            .attr_ints("strides")
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              const TypeInfo& wt = ctx.input_type(1);
              if (!xt.shape || !wt.shape || xt.shape->size() < 3 || wt.shape->size() != xt.shape->size()) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(xt.dtype));
                return;
              }
              Shape wdims;
              for (const Dim& d : *wt.shape) wdims.push_back(d.value);
              auto g = transpose_geom(ctx, spatial_dims(xt), kernel_of(ctx, wdims));
              const Dim& wm = (*wt.shape)[1];
              std::vector<Dim> out{(*xt.shape)[0], wm.is_static() ? Dim::fixed(wm.value * ctx.attr_int("group")) : Dim{}};
              auto d = dims_from(g.out);
              out.insert(out.end(), d.begin(), d.end());
              ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& w = ctx.input(1);
              const std::string label = ctx.node().label();
              const int64_t group = ctx.attr_int("group");
              if (x.rank() < 3 || w.rank() != x.rank())
                fail("{}: X {} and W {} must have the same rank >= 3", label, shape_str(x.shape()), shape_str(w.shape()));
              if (w.dtype() != x.dtype()) fail("{}: W and X dtypes differ", label);
              const int64_t N = x.dim(0), C = x.dim(1);
              if (group <= 0 || C % group != 0 || w.dim(0) != C)
                fail("{}: W {} must have X's {} channels on axis 0, divisible by group {}", label,
                     shape_str(w.shape()), C, group);
              const int64_t mg = w.dim(1), M = mg * group, cg = C / group;
              Shape kernel = kernel_of(ctx, w.shape());
              if (kernel != Shape(w.shape().begin() + 2, w.shape().end()))
                fail("{}: kernel_shape {} does not match W {}", label, shape_str(kernel), shape_str(w.shape()));
              auto g = transpose_geom(ctx, Shape(x.shape().begin() + 2, x.shape().end()), kernel);
              const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              if (b && (b->numel() != M || b->dtype() != x.dtype()))
                fail("{}: bias B {} must have {} values", label, shape_str(b->shape()), M);
              Shape ys{N, M};
              ys.insert(ys.end(), g.out.begin(), g.out.end());
              Tensor y(x.dtype(), ys);
              // Table of output offsets for every (input position, kernel position); -1 = cropped.
              const size_t nsp = g.in.size();
              const int64_t I = shape_numel(g.in), K = shape_numel(g.kernel), O = shape_numel(g.out);
              const auto ost = strides_of(g.out);
              std::vector<int64_t> tab(I * K);
              std::vector<int64_t> ii(nsp, 0), ki(nsp, 0);
              for (int64_t i = 0; i < I; ++i) {
                std::fill(ki.begin(), ki.end(), 0);
                for (int64_t k = 0; k < K; ++k) {
                  int64_t off = 0;
                  for (size_t d = 0; d < nsp && off >= 0; ++d) {
                    int64_t p = ii[d] * g.strides[d] - g.pad_begin[d] + ki[d] * g.dil[d];
                    off = (p < 0 || p >= g.out[d]) ? -1 : off + p * ost[d];
                  }
                  tab[i * K + k] = off;
                  for (int d = static_cast<int>(nsp) - 1; d >= 0; --d) {
                    if (++ki[d] < g.kernel[d]) break;
                    ki[d] = 0;
                  }
                }
                for (int d = static_cast<int>(nsp) - 1; d >= 0; --d) {
                  if (++ii[d] < g.in[d]) break;
                  ii[d] = 0;
                }
              }
              dispatch_float(x.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                const T* wp = w.data<T>();
                T* yp = y.data<T>();
                std::vector<double> acc(O);
                for (int64_t n = 0; n < N; ++n)
                  for (int64_t m = 0; m < M; ++m) {
                    const int64_t gi = m / mg, mm = m % mg;
                    std::fill(acc.begin(), acc.end(), b ? double(b->data<T>()[m]) : 0.0);
                    for (int64_t c = gi * cg; c < (gi + 1) * cg; ++c) {
                      const T* xc = xp + (n * C + c) * I;
                      const T* wc = wp + (c * mg + mm) * K;
                      for (int64_t i = 0; i < I; ++i) {
                        const double xv = double(xc[i]);
                        const int64_t* row = tab.data() + i * K;
                        for (int64_t k = 0; k < K; ++k)
                          if (row[k] >= 0) acc[row[k]] += xv * double(wc[k]);
                      }
                    }
                    T* yc = yp + (n * M + m) * O;
                    for (int64_t o = 0; o < O; ++o) yc[o] = T(acc[o]);
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
