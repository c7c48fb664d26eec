// MaxPool (without the Indices output), AveragePool, GlobalAveragePool and GlobalMaxPool on
// oneDNN, 1-D to 3-D. ONNX's ceil_mode becomes extra end padding (which max and exclude-padding
// average ignore); rank-4 pools read and write the channel-blocked layout like the convolutions.
// A plain rank-4 source that oneDNN would pool with a scalar implementation (its simple_nchw
// loops, ten times slower than a memory pass) goes through the blocked layout instead.
#include <mutex>
#include <string>

#include "ops/conv_pool_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

enum class PoolKind { Max, Average, GlobalAverage, GlobalMax };

class OnednnPool : public FastKernel {
 public:
  OnednnPool(const KernelBuildInfo& info, PoolKind kind)
      : node_(info.node), def_(info.def), kind_(kind), rank4_(info.is_f32_rank(0, 4)) {}

  const char* name() const override { return "onednn_pool"; }
  bool accepts_blocked(size_t input) const override { return rank4_ && input == 0; }
  bool emits_blocked() const override { return rank4_; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    x_blocked_ = !in.empty() && in[0];
    y_blocked_ = out;
  }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const bool blocked = x_blocked_ || y_blocked_;
    if (x.dtype() != DType::Float32 || x.rank() < 3 || x.rank() > 5 || x.numel() == 0 || (blocked && x.rank() != 4)) {
      if (blocked) fail("{}: internal: input {} {} does not fit the layout planned for it", node_.label(),
                        dtype_name(x.dtype()), shape_str(x.shape()));
      return false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Plan* planned;
    try {
      planned = &plan_for(x.shape());
    } catch (const dnnl::error& e) {
      if (blocked) fail("{}: oneDNN has no pooling for input {}: {}", node_.label(), shape_str(x.shape()), e.what());
      return false;
    }
    Plan& p = *planned;
    Tensor y = output_tensor(memory, 0, DType::Float32, p.y_shape, p.y_md.get_size());
    // Pooling keeps the source's layout (src_md: x's, or the blocked detour), then y is reordered if
    // needed.
    Tensor src_tmp = p.src_md == p.x_md ? Tensor() : byte_buffer(p.src_md);
    if (src_tmp.defined()) reorder(p.x_md, x.raw(), p.src_md, src_tmp.raw());
    const void* src = src_tmp.defined() ? src_tmp.raw() : x.raw();
    Tensor dst_tmp = p.dst_md == p.y_md ? Tensor() : byte_buffer(p.dst_md);
    void* dst = dst_tmp.defined() ? dst_tmp.raw() : y.raw();
    p.prim.execute(cpu_stream(), {{DNNL_ARG_SRC, dnnl::memory(p.src_md, cpu_engine(), const_cast<void*>(src))},
                                  {DNNL_ARG_DST, dnnl::memory(p.dst_md, cpu_engine(), dst)}});
    cpu_stream().wait();
    if (dst != y.raw()) reorder(p.dst_md, dst, p.y_md, y.raw());
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  struct Plan {
    Shape x_shape, y_shape;
    dnnl::pooling_v2_forward prim;
    dnnl::memory::desc x_md, y_md, src_md, dst_md;  // src/dst: the layouts the primitive pools in
  };

  Plan& plan_for(const Shape& xs) {
    if (plan_ && plan_->x_shape == xs) return *plan_;
    plan_ = build(xs);
    return *plan_;
  }

  std::unique_ptr<Plan> build(const Shape& xs) {
    auto p = std::make_unique<Plan>();
    p->x_shape = xs;
    dnnl::memory::dims kernel, strides, dilation, pad_l, pad_r;
    p->y_shape = {xs[0], xs[1]};
    dnnl::algorithm alg = dnnl::algorithm::pooling_max;
    if (kind_ == PoolKind::GlobalAverage || kind_ == PoolKind::GlobalMax) {
      for (size_t d = 2; d < xs.size(); ++d) {
        p->y_shape.push_back(1);
        kernel.push_back(xs[d]);
        strides.push_back(1);
        dilation.push_back(0);
        pad_l.push_back(0);
        pad_r.push_back(0);
      }
      if (kind_ == PoolKind::GlobalAverage) alg = dnnl::algorithm::pooling_avg_exclude_padding;
    } else {
      AttrReader attrs(node_, def_);
      const WindowGeom g = pool_geom(attrs, xs);
      for (const auto& a : g.axes) {
        p->y_shape.push_back(a.out);
        kernel.push_back(a.k);
        strides.push_back(a.stride);
        dilation.push_back(a.dilation - 1);
        pad_l.push_back(a.pad_begin);
        // The end padding that makes oneDNN's floor formula give ONNX's (possibly ceil_mode) size.
        pad_r.push_back((a.out - 1) * a.stride + (a.k - 1) * a.dilation + 1 - a.in - a.pad_begin);
      }
      if (kind_ == PoolKind::Average)
        alg = attrs.attr_int("count_include_pad") ? dnnl::algorithm::pooling_avg_include_padding
                                                  : dnnl::algorithm::pooling_avg_exclude_padding;
    }
    p->x_md = x_blocked_ ? blocked_f32_desc(xs) : plain_f32_desc(xs);
    p->y_md = y_blocked_ ? blocked_f32_desc(p->y_shape) : plain_f32_desc(p->y_shape);
    auto pooling = [&](bool blocked) {
      p->src_md = blocked ? blocked_f32_desc(xs) : p->x_md;
      p->dst_md = blocked ? blocked_f32_desc(p->y_shape) : plain_f32_desc(p->y_shape);
      dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, p->src_md, p->dst_md, strides,
                                          kernel, dilation, pad_l, pad_r);
      return dnnl::pooling_v2_forward::primitive_desc(desc, cpu_engine());
    };
    auto pd = pooling(x_blocked_);
    if (!x_blocked_ && xs.size() == 4 && std::string(pd.impl_info_str()).rfind("jit", 0) != 0) pd = pooling(true);
    p->prim = dnnl::pooling_v2_forward(pd);
    return p;
  }

  const Node& node_;
  const OpDef& def_;
  PoolKind kind_;
  bool rank4_;
  bool x_blocked_ = false, y_blocked_ = false;
  std::mutex mu_;
  std::unique_ptr<Plan> plan_;
};

// Pooled windows that reach past the explicit padding (ceil_mode) would be counted by oneDNN's
// include-padding average but not by ONNX's, so that combination stays on the reference.
bool handled(const KernelBuildInfo& info, PoolKind kind) {
  if (!info.maybe_f32(0)) return false;
  if (kind == PoolKind::Max)
    return info.node.outputs.size() < 2 || info.node.outputs[1].empty();
  if (kind == PoolKind::Average) {
    AttrReader a = info.attrs();
    return !(a.attr_int("count_include_pad") && a.attr_int("ceil_mode"));
  }
  return true;
}

FastKernelFactory factory(PoolKind kind) {
  return [kind](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (!handled(info, kind)) return nullptr;
    return std::make_unique<OnednnPool>(info, kind);
  };
}

}  // namespace

void register_onednn_pool_kernels(FastKernelRegistry& r) {
  r.add("", "MaxPool", factory(PoolKind::Max));
  r.add("", "AveragePool", factory(PoolKind::Average));
  r.add("", "GlobalAveragePool", factory(PoolKind::GlobalAverage));
  r.add("", "GlobalMaxPool", factory(PoolKind::GlobalMax));
}

}  // namespace ms::rt
