// Conv and com.mstools FusedConv on oneDNN: bias, residual input Z (a sum post-op) and the
// activation run inside the convolution. Weights are reordered once per input shape into the
// layout the chosen implementation wants; 1-D, 2-D and 3-D, grouped and depthwise, any
// pads/strides/dilations. Rank-4 convolutions read and write the channel-blocked layout when the
// session places their neighbours' values in it; otherwise they reorder at their own boundary.
#include <mutex>
#include <optional>
#include <unordered_map>

#include "ops/conv_pool_util.h"
#include "ops/ms_domain.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

constexpr size_t kZ = 3;  // FusedConv's residual input
// Below this many input or output channels Winograd's transforms cost more than they save
// (ResNet-50's 64-channel 56x56 layer took 4x the direct method's time; 128 channels and up ran
// 1.3-3x faster).
constexpr int64_t kWinogradMinChannels = 128;

class OnednnConv : public FastKernel {
 public:
  OnednnConv(const KernelBuildInfo& info, Activation act)
      : node_(info.node), def_(info.def), act_(act), group_(info.attrs().attr_int("group")),
        rank4_(info.is_f32_rank(0, 4)) {
    if (const Tensor* w = info.constant(1)) weights_ = *w;
  }

  const char* name() const override { return "onednn_conv"; }
  size_t scratch_bytes() const override { return last_ ? last_->scratch_bytes : 0; }
  bool accepts_blocked(size_t input) const override { return rank4_ && (input == 0 || input == kZ); }
  bool emits_blocked() const override { return rank4_; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    x_blocked_ = in.size() > 0 && in[0];
    z_blocked_ = in.size() > kZ && in[kZ];
    y_blocked_ = out;
  }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = weights_.defined() ? weights_ : ctx.input(1);
    const bool has_bias = ctx.has_input(2), has_z = ctx.has_input(kZ);
    const bool blocked = x_blocked_ || y_blocked_ || z_blocked_;
    bool ok = x.dtype() == DType::Float32 && w.dtype() == DType::Float32 && x.rank() >= 3 && x.rank() <= 5 &&
              w.rank() == x.rank() && x.numel() > 0 && (!has_bias || ctx.input(2).dtype() == DType::Float32) &&
              (!has_z || ctx.input(kZ).dtype() == DType::Float32) && (!blocked || x.rank() == 4);
    if (!ok) {
      if (blocked) fail("{}: internal: input {} {} does not fit the layout planned for it", node_.label(),
                        dtype_name(x.dtype()), shape_str(x.shape()));
      return false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Plan* planned;
    try {
      planned = &plan_for(x.shape(), w, has_bias);
    } catch (const dnnl::error& e) {
      if (blocked) fail("{}: oneDNN has no convolution for input {}: {}", node_.label(), shape_str(x.shape()), e.what());
      return false;
    }
    Plan& p = *planned;
    if (has_z && ctx.input(kZ).shape() != p.y_shape) return false;  // the reference names the mismatch
    Tensor y = output_tensor(memory, 0, DType::Float32, p.y_shape, p.y_md.get_size());
    // Temporaries (oneDNN's scratchpad, then the boundary reorders' buffers) come from the
    // session's shared scratch buffer: kept per plan they would add up over the nodes.
    auto round64 = [](size_t b) { return (b + 63) / 64 * 64; };
    const size_t pad_bytes = round64(p.scratchpad_md.get_size());
    const size_t src_bytes = p.src_md != p.x_md ? round64(p.src_md.get_size()) : 0;
    const size_t dst_bytes = p.dst_md != p.y_md ? round64(p.dst_md.get_size()) : 0;
    Tensor own_scratch;  // when the session lends none
    char* scratch = static_cast<char*>(memory.scratch(pad_bytes + src_bytes + dst_bytes));
    if (!scratch) {
      own_scratch = uninit_tensor(DType::UInt8, {static_cast<int64_t>(pad_bytes + src_bytes + dst_bytes)});
      scratch = static_cast<char*>(own_scratch.raw());
    }
    // Source: as it comes, or reordered into the layout the implementation chose.
    void* src = const_cast<void*>(x.raw());
    if (src_bytes) {
      src = scratch + pad_bytes;
      reorder(p.x_md, x.raw(), p.src_md, src);
    }
    void* dst = dst_bytes ? scratch + pad_bytes + src_bytes : y.raw();
    if (has_z && !p.z_binary) reorder(p.z_md, ctx.input(kZ).raw(), p.dst_md, dst);  // the sum adds onto dst
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p.src_md, cpu_engine(), src)},
        {DNNL_ARG_DST, dnnl::memory(p.dst_md, cpu_engine(), dst)},
    };
    if (weights_.defined()) {
      args[DNNL_ARG_WEIGHTS] = p.packed_w;
    } else {
      dnnl::memory packed(p.wmd, cpu_engine());
      reorder(p.user_wmd, w.raw(), p.wmd, packed.get_data_handle());
      args[DNNL_ARG_WEIGHTS] = packed;
    }
    if (has_bias) args[DNNL_ARG_BIAS] = view_memory(p.bias_md, ctx.input(2));
    if (pad_bytes) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p.scratchpad_md, cpu_engine(), scratch);
    if (p.z_binary) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = view_memory(p.z_md, ctx.input(kZ));
    p.prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    if (dst != y.raw()) reorder(p.dst_md, dst, p.y_md, y.raw());
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  struct Plan {
    Shape x_shape, w_shape, y_shape;
    bool has_bias = false;
    bool z_binary = false;  // residual as a binary post-op (else a sum post-op)
    dnnl::convolution_forward prim;
    // x_md/y_md/z_md: the layouts of the tensors as stored; src_md/dst_md: the implementation's.
    dnnl::memory::desc x_md, y_md, z_md, src_md, dst_md, bias_md, wmd, user_wmd, scratchpad_md;
    dnnl::memory packed_w;  // constant weights in the implementation's layout
    size_t scratch_bytes = 0;
  };

  Plan& plan_for(const Shape& xs, const Tensor& w, bool has_bias) {
    for (auto& p : plans_)
      if (p->x_shape == xs && p->w_shape == w.shape() && p->has_bias == has_bias) return *(last_ = p.get());
    if (plans_.size() >= 8) plans_.erase(plans_.begin());
    plans_.push_back(build(xs, w, has_bias));
    return *(last_ = plans_.back().get());
  }

  std::unique_ptr<Plan> build(const Shape& xs, const Tensor& w, bool has_bias) {
    AttrReader attrs(node_, def_);
    const WindowGeom g = conv_geom(attrs, xs, w.shape(), group_);
    auto p = std::make_unique<Plan>();
    p->x_shape = xs;
    p->w_shape = w.shape();
    p->has_bias = has_bias;
    const int64_t M = w.dim(0);
    p->y_shape = {xs[0], M};
    dnnl::memory::dims strides, dilates, pad_l, pad_r;
    for (const auto& a : g.axes) {
      p->y_shape.push_back(a.out);
      strides.push_back(a.stride);
      dilates.push_back(a.dilation - 1);  // oneDNN counts the gap between taps
      pad_l.push_back(a.pad_begin);
      pad_r.push_back(a.pad_end);
    }
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    Shape wdims = w.shape();
    if (group_ > 1) {
      wdims[0] = M / group_;
      wdims.insert(wdims.begin(), group_);
    }
    p->x_md = x_blocked_ ? blocked_f32_desc(xs) : plain_f32_desc(xs);
    p->y_md = y_blocked_ ? blocked_f32_desc(p->y_shape) : plain_f32_desc(p->y_shape);
    p->z_md = z_blocked_ ? blocked_f32_desc(p->y_shape) : plain_f32_desc(p->y_shape);
    p->user_wmd = plain_f32_desc(wdims);
    auto any = [](const Shape& s) { return dnnl::memory::desc(to_dims(s), dt::f32, tag::any); };
    // A blocked neighbour fixes the layout; a plain one lets the implementation choose, and the
    // kernel reorders at its boundary.
    dnnl::memory::desc src_req = x_blocked_ ? p->x_md : any(xs);
    dnnl::memory::desc dst_req = y_blocked_ ? p->y_md : any(p->y_shape);
    if (has_bias) p->bias_md = plain_f32_desc({M});
    dnnl::post_ops ops;
    // The residual: read in place by a binary post-op when it is stored in the layout the output
    // is fixed to; otherwise copied into the output first for a sum post-op.
    const bool has_z = node_.inputs.size() > kZ && !node_.inputs[kZ].empty();
    p->z_binary = has_z && y_blocked_ && z_blocked_;
    if (p->z_binary) ops.append_binary(dnnl::algorithm::binary_add, p->z_md);
    else if (has_z) ops.append_sum(1.f);
    append_eltwise(ops, act_);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // the session's shared scratch buffer
    const auto fwd = dnnl::prop_kind::forward_inference;
    // 3x3 stride-1 convolutions between many channels run Winograd F(2x2, 3x3): 2.25x fewer
    // multiplications than the direct method, outputs 2e-6 mean relative error from the
    // reference kernels on ResNet-50.
    bool unit_steps = true;
    for (size_t d = 0; d < strides.size(); ++d) unit_steps = unit_steps && strides[d] == 1 && dilates[d] == 0;
    const bool winograd = xs.size() == 4 && group_ == 1 && w.dim(2) == 3 && w.dim(3) == 3 && unit_steps &&
                          xs[1] >= kWinogradMinChannels && M >= kWinogradMinChannels;
    auto alg = winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
    auto make_pd = [&] {
      auto desc = has_bias ? dnnl::convolution_forward::desc(fwd, alg, src_req, any(wdims), p->bias_md, dst_req,
                                                             strides, dilates, pad_l, pad_r)
                           : dnnl::convolution_forward::desc(fwd, alg, src_req, any(wdims), dst_req, strides, dilates,
                                                             pad_l, pad_r);
      return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    };
    std::optional<dnnl::convolution_forward::primitive_desc> made;
    try {
      made = make_pd();
    } catch (const dnnl::error&) {
      if (!winograd) throw;
      alg = dnnl::algorithm::convolution_direct;  // no Winograd kernel for this ISA or post-op
      made = make_pd();
    }
    auto pd = *made;
    // A fixed layout on one side and a free one on the other can leave only oneDNN's slow
    // reference implementation (depthwise does); blocked on both sides has a fast one.
    if (xs.size() == 4 && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
      src_req = blocked_f32_desc(xs);
      dst_req = blocked_f32_desc(p->y_shape);
      pd = make_pd();
    }
    p->prim = dnnl::convolution_forward(pd);
    p->src_md = pd.src_desc();
    p->dst_md = pd.dst_desc();
    p->wmd = pd.weights_desc();
    p->scratchpad_md = pd.scratchpad_desc();
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    if (p->src_md != p->x_md) p->scratch_bytes += p->src_md.get_size();
    if (p->dst_md != p->y_md) p->scratch_bytes += p->dst_md.get_size();
    if (weights_.defined()) {
      p->packed_w = dnnl::memory(p->wmd, cpu_engine());
      reorder(p->user_wmd, weights_.raw(), p->wmd, p->packed_w.get_data_handle());
    }
    return p;
  }

  const Node& node_;
  const OpDef& def_;
  Activation act_;
  int64_t group_;
  bool rank4_;
  bool x_blocked_ = false, z_blocked_ = false, y_blocked_ = false;
  Tensor weights_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Plan>> plans_;
  Plan* last_ = nullptr;
};

std::unique_ptr<FastKernel> make_conv(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0)) return nullptr;
  Activation act;
  if (info.node.op_type == "FusedConv") {
    AttrReader a = info.attrs();
    auto parsed = activation_from(a.attr_string("activation"), a.attr_floats("activation_params"));
    if (!parsed) return nullptr;
    act = *parsed;
  }
  return std::make_unique<OnednnConv>(info, act);
}

}  // namespace

void register_onednn_conv_kernels(FastKernelRegistry& r) {
  r.add("", "Conv", make_conv);
  r.add(kMsDomain, "FusedConv", make_conv);
}

}  // namespace ms::rt
