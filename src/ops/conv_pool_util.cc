#include "ops/conv_pool_util.h"

#include <algorithm>

namespace ms {

Shape WindowGeom::in_shape() const {
  Shape s;
  for (const auto& a : axes) s.push_back(a.in);
  return s;
}
Shape WindowGeom::kernel_shape() const {
  Shape s;
  for (const auto& a : axes) s.push_back(a.k);
  return s;
}
Shape WindowGeom::out_shape() const {
  Shape s;
  for (const auto& a : axes) s.push_back(a.out);
  return s;
}

static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int64_t window_axis_out(AxisWindow& a, const std::string& auto_pad, bool ceil_mode) {
  if (a.in < 0) return a.out = -1;
  const int64_t ek = (a.k - 1) * a.dilation + 1;  // effective (dilated) kernel extent
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    a.out = ceil_div(a.in, a.stride);
    const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.stride + ek - a.in);
    // SAME_UPPER puts the odd extra pad at the end, SAME_LOWER at the beginning.
    a.pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    a.pad_end = total - a.pad_begin;
    return a.out;
  }
  if (auto_pad == "VALID") {
    a.pad_begin = a.pad_end = 0;
    a.out = std::max<int64_t>(0, ceil_div(a.in - ek + 1, a.stride));
    return a.out;
  }
  const int64_t span = a.in + a.pad_begin + a.pad_end - ek;
  if (span < 0) return a.out = 0;
  a.out = (ceil_mode ? ceil_div(span, a.stride) : floor_div(span, a.stride)) + 1;
  // A ceil_mode window must start inside the input or the leading padding.
  if (ceil_mode && (a.out - 1) * a.stride >= a.in + a.pad_begin) --a.out;
  return a.out;
}

WindowGeom make_window_geom(const AttrReader& attrs, const Shape& in_spatial, const Shape& kernel,
                            bool ceil_mode) {
  const size_t n = in_spatial.size();
  const std::string label = attrs.node().label();
  if (kernel.size() != n)
    fail("{}: kernel has {} spatial dims but the input has {}", label, kernel.size(), n);
  auto get = [&](const char* name, int64_t def, size_t count) {
    std::vector<int64_t> v = attrs.has_attr(name) ? attrs.attr_ints(name) : std::vector<int64_t>{};
    if (v.empty()) v.assign(count, def);
    if (v.size() != count) fail("{}: attribute '{}' has {} values, expected {}", label, name, v.size(), count);
    return v;
  };
  auto strides = get("strides", 1, n), dil = get("dilations", 1, n), pads = get("pads", 0, 2 * n);
  std::string auto_pad = attrs.has_attr("auto_pad") ? attrs.attr_string("auto_pad") : "NOTSET";
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail("{}: unknown auto_pad '{}'", label, auto_pad);
  WindowGeom g;
  for (size_t i = 0; i < n; ++i) {
    AxisWindow a{in_spatial[i], kernel[i], strides[i], dil[i], pads[i], pads[i + n], 0};
    if (a.k <= 0 || a.stride <= 0 || a.dilation <= 0 || a.pad_begin < 0 || a.pad_end < 0)
      fail("{}: invalid window on axis {}: kernel {}, stride {}, dilation {}, pads {}/{}", label, i, a.k,
           a.stride, a.dilation, a.pad_begin, a.pad_end);
    window_axis_out(a, auto_pad, ceil_mode);
    g.axes.push_back(a);
  }
  return g;
}

std::vector<int64_t> spatial_dims(const TypeInfo& t) {
  std::vector<int64_t> v;
  if (!t.shape) return v;
  for (size_t i = 2; i < t.shape->size(); ++i) v.push_back((*t.shape)[i].is_static() ? (*t.shape)[i].value : -1);
  return v;
}

std::vector<Dim> dims_from(const std::vector<int64_t>& v) {
  std::vector<Dim> d;
  for (int64_t x : v) d.push_back(x >= 0 ? Dim::fixed(x) : Dim{});
  return d;
}

void window_offsets_at(const WindowGeom& g, int64_t o, int64_t* offs) {
  const size_t n = g.axes.size();
  const auto in_strides = strides_of(g.in_shape());
  std::vector<int64_t> oi(n, 0), ki(n, 0);
  for (int d = static_cast<int>(n) - 1; d >= 0; --d) {
    oi[size_t(d)] = o % g.axes[size_t(d)].out;
    o /= g.axes[size_t(d)].out;
  }
  const int64_t K = g.kernel_numel();
  for (int64_t k = 0; k < K; ++k) {
    int64_t off = 0;
    int state = 0;  // 0 inside, 1 in pad, 2 beyond pad
    for (size_t d = 0; d < n; ++d) {
      const AxisWindow& a = g.axes[d];
      const int64_t p = oi[d] * a.stride - a.pad_begin + ki[d] * a.dilation;
      if (p < 0 || p >= a.in)
        state = std::max(state, (p < -a.pad_begin || p >= a.in + a.pad_end) ? 2 : 1);
      else
        off += p * in_strides[d];
    }
    offs[k] = state == 0 ? off : (state == 1 ? kInPad : kBeyondPad);
    for (int d = static_cast<int>(n) - 1; d >= 0; --d) {
      if (++ki[size_t(d)] < g.axes[size_t(d)].k) break;
      ki[size_t(d)] = 0;
    }
  }
}

std::vector<int64_t> window_offsets(const WindowGeom& g) {
  const int64_t K = g.kernel_numel(), O = g.out_numel();
  std::vector<int64_t> offs(static_cast<size_t>(O * K));
  for (int64_t o = 0; o < O; ++o) window_offsets_at(g, o, offs.data() + o * K);
  return offs;
}

Shape conv_kernel_shape(const AttrReader& attrs, const Shape& w_shape) {
  if (attrs.has_attr("kernel_shape") && !attrs.attr_ints("kernel_shape").empty())
    return attrs.attr_ints("kernel_shape");
  return Shape(w_shape.begin() + std::min<size_t>(2, w_shape.size()), w_shape.end());
}

WindowGeom conv_geom(const AttrReader& attrs, const Shape& x, const Shape& w, int64_t group) {
  const std::string label = attrs.node().label();
  if (x.size() < 3) fail("{}: input X must have rank >= 3 (N, C, spatial...), got {}", label, shape_str(x));
  if (w.size() != x.size()) fail("{}: weight W {} must have the rank of X {}", label, shape_str(w), shape_str(x));
  if (group <= 0 || x[1] % group != 0 || w[0] % group != 0)
    fail("{}: group {} must divide input channels {} and output channels {}", label, group, x[1], w[0]);
  if (w[1] * group != x[1])
    fail("{}: W {} expects {} input channels per group but X {} has {} channels in {} groups", label,
         shape_str(w), w[1], shape_str(x), x[1], group);
  Shape kernel = conv_kernel_shape(attrs, w);
  Shape wk(w.begin() + 2, w.end());
  if (kernel != wk) fail("{}: kernel_shape {} does not match W {}", label, shape_str(kernel), shape_str(w));
  return make_window_geom(attrs, Shape(x.begin() + 2, x.end()), kernel, false);
}

void infer_conv_like(InferContext& ctx, size_t x_idx, size_t w_idx, DType out_dtype) {
  const TypeInfo& xt = ctx.input_type(x_idx);
  const TypeInfo& wt = ctx.input_type(w_idx);
  if (!xt.shape || !wt.shape || xt.shape->size() < 3) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(out_dtype));
    return;
  }
  const auto sp = spatial_dims(xt);
  Shape kernel;
  bool known = true;
  if (ctx.has_attr("kernel_shape") && !ctx.attr_ints("kernel_shape").empty()) {
    kernel = ctx.attr_ints("kernel_shape");
  } else {
    for (size_t i = 2; i < wt.shape->size(); ++i) {
      known = known && (*wt.shape)[i].is_static();
      kernel.push_back((*wt.shape)[i].value);
    }
  }
  std::vector<Dim> out{(*xt.shape)[0], wt.shape->empty() ? Dim{} : (*wt.shape)[0]};
  if (!known || kernel.size() != sp.size()) {
    for (size_t i = 0; i < sp.size(); ++i) out.push_back(Dim{});
  } else {
    auto g = make_window_geom(ctx, sp, kernel, false);
    auto d = dims_from(g.out_shape());
    out.insert(out.end(), d.begin(), d.end());
  }
  ctx.set_output_type(0, TypeInfo::tensor(out_dtype, out));
}

MatMulPlan plan_matmul(const Shape& a0, const Shape& b0, const Node& node) {
  if (a0.empty() || b0.empty()) fail("{}: matmul inputs must not be scalars", node.label());
  Shape a = a0, b = b0;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulPlan p;
  p.M = a[a.size() - 2];
  p.K = a.back();
  p.N = b.back();
  if (b[b.size() - 2] != p.K)
    fail("{}: matmul shapes {} and {} do not agree on the inner dimension", node.label(), shape_str(a0),
         shape_str(b0));
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = broadcast_shapes({ab, bb}, node);
  auto ao = broadcast_offsets(ab, batch), bo = broadcast_offsets(bb, batch);
  for (auto& v : ao) v *= p.M * p.K;
  for (auto& v : bo) v *= p.K * p.N;
  p.a_off = std::move(ao);
  p.b_off = std::move(bo);
  p.out = batch;
  if (!a_vec) p.out.push_back(p.M);
  if (!b_vec) p.out.push_back(p.N);
  return p;
}

std::vector<Dim> infer_matmul_dims(const std::vector<Dim>& a0, const std::vector<Dim>& b0, const Node& node) {
  if (a0.empty() || b0.empty()) fail("{}: matmul inputs must not be scalars", node.label());
  auto a = a0, b = b0;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), Dim::fixed(1));
  if (b_vec) b.push_back(Dim::fixed(1));
  std::vector<Dim> ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  auto out = broadcast_dims({ab, bb}, node);
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return out;
}

QuantParam quant_param(const Tensor& p, const Shape& x_shape, int64_t axis, const Node& node, const char* what) {
  QuantParam q;
  q.values = p.to_double_vector();
  if (p.numel() == 1 && p.rank() <= 1) return q;
  if (p.rank() != 1) fail("{}: {} must be a scalar or 1-D, got {}", node.label(), what, shape_str(p.shape()));
  const int64_t ax = normalize_axis(axis, static_cast<int64_t>(x_shape.size()), node);
  if (p.numel() != x_shape[ax])
    fail("{}: {} has {} values but axis {} of the input {} has {}", node.label(), what, p.numel(), ax,
         shape_str(x_shape), x_shape[ax]);
  q.axis_dim = x_shape[ax];
  q.inner = 1;
  for (size_t i = ax + 1; i < x_shape.size(); ++i) q.inner *= x_shape[i];
  return q;
}

}  // namespace ms

namespace ms {

static bool pool_ceil(const AttrReader& attrs) { return attrs.has_attr("ceil_mode") && attrs.attr_int("ceil_mode") != 0; }

WindowGeom pool_geom(const AttrReader& attrs, const Shape& x) {
  if (x.size() < 3) fail("{}: input X must have rank >= 3 (N, C, spatial...), got {}", attrs.node().label(), shape_str(x));
  const auto& kernel = attrs.attr_ints("kernel_shape");
  return make_window_geom(attrs, Shape(x.begin() + 2, x.end()), kernel, pool_ceil(attrs));
}

Shape pool_out_shape(const Shape& x, const WindowGeom& g) {
  Shape s{x[0], x[1]};
  for (int64_t d : g.out_shape()) s.push_back(d);
  return s;
}

void infer_pool(InferContext& ctx) {
  const TypeInfo& xt = ctx.input_type(0);
  TypeInfo out = TypeInfo::tensor_unknown_shape(xt.dtype);
  if (xt.shape && xt.shape->size() >= 3) {
    auto g = make_window_geom(ctx, spatial_dims(xt), ctx.attr_ints("kernel_shape"), pool_ceil(ctx));
    std::vector<Dim> d{(*xt.shape)[0], (*xt.shape)[1]};
    for (const Dim& x : dims_from(g.out_shape())) d.push_back(x);
    out = TypeInfo::tensor(xt.dtype, d);
  }
  ctx.set_output_type(0, out);
  out.dtype = DType::Int64;
  ctx.set_output_type(1, out);
}

}  // namespace ms

namespace ms {

static void require_8bit(const Tensor& t, const Node& node, const char* what) {
  if (t.dtype() != DType::UInt8 && t.dtype() != DType::Int8)
    fail_unsupported("{}: {} must be int8 or uint8, got {}", node.label(), what, dtype_name(t.dtype()));
}

std::vector<int64_t> conv_integer_acc(const AttrReader& attrs, const Tensor& x, const Tensor& w, int64_t x_zp,
                                      const std::vector<int64_t>& w_zp, Shape& y_shape) {
  require_8bit(x, attrs.node(), "x");
  require_8bit(w, attrs.node(), "w");
  const int64_t group = attrs.attr_int("group");
  const WindowGeom g = conv_geom(attrs, x.shape(), w.shape(), group);
  const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  y_shape = {N, M};
  for (int64_t d : g.out_shape()) y_shape.push_back(d);
  const auto xv = x.to_int64_vector(), wv = w.to_int64_vector();
  const int64_t I = g.in_numel(), K = g.kernel_numel(), O = g.out_numel(), cg = C / group;
  std::vector<int64_t> acc(shape_numel(y_shape));
  conv_loop<int64_t>(
      g, N, C, M, group, [&](int64_t n, int64_t c, int64_t off) { return xv[(n * C + c) * I + off] - x_zp; },
      [&](int64_t m, int64_t c, int64_t k) { return wv[(m * cg + c) * K + k] - w_zp[w_zp.size() == 1 ? 0 : m]; },
      [&](int64_t n, int64_t m, int64_t o, int64_t a) { acc[(n * M + m) * O + o] = a; });
  return acc;
}

std::vector<int64_t> matmul_integer_acc(const Tensor& a, const Tensor& b, const std::vector<int64_t>& a_zp,
                                        const std::vector<int64_t>& b_zp, const Node& node, MatMulPlan& p) {
  require_8bit(a, node, "A");
  require_8bit(b, node, "B");
  p = plan_matmul(a.shape(), b.shape(), node);
  if (a_zp.size() != 1 && int64_t(a_zp.size()) != p.M)
    fail("{}: a_zero_point has {} values, expected 1 or {}", node.label(), a_zp.size(), p.M);
  if (b_zp.size() != 1 && int64_t(b_zp.size()) != p.N)
    fail("{}: b_zero_point has {} values, expected 1 or {}", node.label(), b_zp.size(), p.N);
  const auto av = a.to_int64_vector(), bv = b.to_int64_vector();
  const int64_t batches = int64_t(p.a_off.size());
  std::vector<int64_t> acc(batches * p.M * p.N);
  for (int64_t bt = 0; bt < batches; ++bt)
    for (int64_t i = 0; i < p.M; ++i)
      for (int64_t j = 0; j < p.N; ++j) {
        int64_t s = 0;
        const int64_t az = a_zp[a_zp.size() == 1 ? 0 : i], bz = b_zp[b_zp.size() == 1 ? 0 : j];
        for (int64_t k = 0; k < p.K; ++k)
          s += (av[p.a_off[bt] + i * p.K + k] - az) * (bv[p.b_off[bt] + k * p.N + j] - bz);
        acc[(bt * p.M + i) * p.N + j] = s;
      }
  return acc;
}

std::vector<int64_t> zero_points(const KernelContext& ctx, size_t i, int64_t n, const char* what) {
  if (!ctx.has_input(i)) return {0};
  auto v = ctx.input(i).to_int64_vector();
  if (v.size() != 1 && int64_t(v.size()) != n)
    fail("{}: {} has {} values, expected 1 or {}", ctx.node().label(), what, v.size(), n);
  return v;
}

}  // namespace ms
