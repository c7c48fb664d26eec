// ConvTranspose on oneDNN's deconvolution: 1-D to 3-D, groups, strides, dilations, pads and
// output_padding (folded into the end padding), bias; weights reordered once per input shape.
// Nodes with output_shape or auto_pad stay on the reference.
#include <mutex>
#include <unordered_map>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

using dims = dnnl::memory::dims;

class OnednnDeconv : public FastKernel {
 public:
  explicit OnednnDeconv(const KernelBuildInfo& info) : node_(info.node), def_(info.def) {
    if (const Tensor* w = info.constant(1)) weights_ = *w;
  }
  const char* name() const override { return "onednn_deconv"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = weights_.defined() ? weights_ : ctx.input(1);
    const bool has_bias = ctx.has_input(2);
    if (x.dtype() != DType::Float32 || w.dtype() != DType::Float32 || x.rank() < 3 || x.rank() > 5 ||
        w.rank() != x.rank() || x.numel() == 0 || (has_bias && ctx.input(2).dtype() != DType::Float32))
      return false;
    std::lock_guard<std::mutex> lock(mu_);
    try {
      if (!plan_ || plan_->x_shape != x.shape() || plan_->w_shape != w.shape() || plan_->has_bias != has_bias)
        plan_ = build(x.shape(), w, has_bias);
    } catch (const dnnl::error&) {
      plan_.reset();
      return false;
    }
    if (!plan_) return false;
    Plan& p = *plan_;
    Tensor y = output_tensor(memory, 0, DType::Float32, p.y_shape);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, view_memory(p.x_md, x)},
                                                  {DNNL_ARG_DST, view_memory(p.y_md, y)}};
    if (weights_.defined()) {
      args[DNNL_ARG_WEIGHTS] = p.packed_w.memory;
    } else {
      dnnl::memory packed(p.wmd, cpu_engine());
      reorder(p.user_wmd, w.raw(), p.wmd, packed.get_data_handle());
      args[DNNL_ARG_WEIGHTS] = packed;
    }
    if (has_bias) args[DNNL_ARG_BIAS] = view_memory(p.bias_md, ctx.input(2));
    p.prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  struct Plan {
    Shape x_shape, w_shape, y_shape;
    bool has_bias = false;
    dnnl::deconvolution_forward prim;
    dnnl::memory::desc x_md, y_md, bias_md, wmd, user_wmd;
    PackedWeights packed_w;
  };

  std::unique_ptr<Plan> build(const Shape& xs, const Tensor& w, bool has_bias) {
    AttrReader a(node_, def_);
    const size_t nsp = xs.size() - 2;
    const int64_t group = a.attr_int("group");
    const int64_t C = xs[1], M = w.dim(1) * group;
    if (group <= 0 || C % group || w.dim(0) != C) return nullptr;
    auto per_axis = [&](const char* name, int64_t def, size_t n) {
      std::vector<int64_t> v = a.attr_ints(name);
      if (v.empty()) v.assign(n, def);
      return v;
    };
    const auto strides = per_axis("strides", 1, nsp), dil = per_axis("dilations", 1, nsp);
    const auto pads = per_axis("pads", 0, 2 * nsp), out_pad = per_axis("output_padding", 0, nsp);
    if (strides.size() != nsp || dil.size() != nsp || pads.size() != 2 * nsp || out_pad.size() != nsp) return nullptr;
    auto p = std::make_unique<Plan>();
    p->x_shape = xs;
    p->w_shape = w.shape();
    p->has_bias = has_bias;
    p->y_shape = {xs[0], M};
    dims st, dl, pl, pr;
    for (size_t d = 0; d < nsp; ++d) {
      const int64_t k = w.dim(static_cast<int>(d + 2));
      const int64_t out = strides[d] * (xs[d + 2] - 1) + out_pad[d] + (k - 1) * dil[d] + 1 - pads[d] - pads[d + nsp];
      if (out <= 0) return nullptr;
      p->y_shape.push_back(out);
      st.push_back(strides[d]);
      dl.push_back(dil[d] - 1);
      pl.push_back(pads[d]);
      pr.push_back(pads[d + nsp] - out_pad[d]);  // output_padding extends the end
    }
    // ONNX weights are stored (C, M/group, k...); oneDNN wants them as (M, C, k...) or grouped
    // (g, M/g, C/g, k...): the same memory described by strides.
    using tag = dnnl::memory::format_tag;
    int64_t K = 1;
    for (size_t d = 2; d < w.shape().size(); ++d) K *= w.dim(static_cast<int>(d));
    const int64_t mg = M / group, cg = C / group;
    dims wd{mg, cg}, ws{K, mg * K};
    for (size_t d = 2; d < w.shape().size(); ++d) wd.push_back(w.dim(static_cast<int>(d)));
    for (size_t d = 2, inner = K; d < w.shape().size(); ++d) ws.push_back(inner /= w.dim(static_cast<int>(d)));
    if (group > 1) {
      wd.insert(wd.begin(), group);
      ws.insert(ws.begin(), cg * mg * K);
    }
    p->user_wmd = dnnl::memory::desc(wd, dnnl::memory::data_type::f32, ws);
    p->x_md = plain_f32_desc(xs);
    p->y_md = plain_f32_desc(p->y_shape);
    if (has_bias) p->bias_md = plain_f32_desc({M});
    const dnnl::memory::desc any_w(wd, dnnl::memory::data_type::f32, tag::any);
    const auto fwd = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::deconvolution_direct;
    auto desc = has_bias ? dnnl::deconvolution_forward::desc(fwd, alg, p->x_md, any_w, p->bias_md, p->y_md, st, dl, pl, pr)
                         : dnnl::deconvolution_forward::desc(fwd, alg, p->x_md, any_w, p->y_md, st, dl, pl, pr);
    dnnl::deconvolution_forward::primitive_desc pd(desc, cpu_engine());
    p->prim = dnnl::deconvolution_forward(pd);
    p->wmd = pd.weights_desc();
    if (weights_.defined()) {
      p->packed_w = pack_weights(p->user_wmd, weights_.raw(), p->wmd);
    }
    return p;
  }

  const Node& node_;
  const OpDef& def_;
  Tensor weights_;
  std::mutex mu_;
  std::unique_ptr<Plan> plan_;
};

std::unique_ptr<FastKernel> make_deconv(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  AttrReader a = info.attrs();
  if (info.node.attr("output_shape") || a.attr_string("auto_pad") != "NOTSET") return nullptr;
  if (info.node.attr("kernel_shape")) {
    const Tensor* w = info.constant(1);
    const auto& k = a.attr_ints("kernel_shape");
    if (!w || w->rank() != static_cast<int>(k.size()) + 2) return nullptr;
    for (size_t d = 0; d < k.size(); ++d)
      if (w->dim(static_cast<int>(d + 2)) != k[d]) return nullptr;
  }
  return std::make_unique<OnednnDeconv>(info);
}

}  // namespace

void register_onednn_deconv_kernels(FastKernelRegistry& r) { r.add("", "ConvTranspose", make_deconv); }

}  // namespace ms::rt
