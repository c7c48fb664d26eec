// Conv and com.mstools FusedConv on oneDNN: bias, residual input Z (a sum post-op) and the
// activation run inside the convolution. Weights are reordered once per input shape into the
// layout the chosen implementation wants; 1-D, 2-D and 3-D, grouped and depthwise, any
// pads/strides/dilations. Rank-4 convolutions read and write the channel-blocked layout when the
// session places their neighbours' values in it; otherwise they reorder at their own boundary.
// With a half-precision compute type (half_compute.h) the source and weights are read in that type.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <omp.h>

#include "ops/conv_pool_util.h"
#include "ops/ms_domain.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/half_compute.h"
#include "runtime/kernels/onednn_autotune.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/memory/large_buffer.h"

namespace ms::rt {
namespace {

constexpr size_t kZ = 3;  // FusedConv's residual input
// 3x3 stride-1 convolutions with at least this many input and output channels are timed with
// every Winograd and direct implementation oneDNN offers, and run with the fastest
// (onednn_autotune.h). Below it Winograd's transforms cost more than they save.
constexpr int64_t kWinogradMinChannels = 32;
// Without timing (MS_AUTOTUNE=0) Winograd is taken from this many channels on (ResNet-50: 128
// channels and up ran F(2x2,3x3) 1.3-3x faster than direct).
constexpr int64_t kWinogradUntimedChannels = 128;
// Packed weights up to this size may take any implementation's layout, however much larger.
constexpr size_t kSmallWeightBytes = size_t(10) << 20;

using ConvPd = dnnl::convolution_forward::primitive_desc;

bool is_reference_impl(const ConvPd& pd) { return std::string(pd.impl_info_str()).rfind("ref", 0) == 0; }

ConvPd clone_pd(const ConvPd& pd) {
  dnnl_primitive_desc_t copy = nullptr;
  dnnl::error::wrap_c_api(dnnl_primitive_desc_clone(&copy, pd.get()), "could not clone a convolution descriptor");
  return ConvPd(copy);
}

// Every implementation oneDNN has for the Winograd and the direct algorithm, but its reference
// ones (slow by design), without repeats; the preferred algorithm's first. The descriptor must
// outlive the iteration: oneDNN's iterator reads it again on each next_impl().
template <typename MakeDesc>
std::vector<ConvPd> implementations(const MakeDesc& make_desc, const dnnl::primitive_attr& attr, bool winograd_first) {
  std::vector<ConvPd> r;
  std::set<std::string> seen;
  std::vector<dnnl::algorithm> order = {dnnl::algorithm::convolution_winograd, dnnl::algorithm::convolution_direct};
  if (!winograd_first) std::reverse(order.begin(), order.end());
  for (auto alg : order) {
    try {
      const auto desc = make_desc(alg);
      ConvPd pd(desc, attr, cpu_engine());
      do {
        if (!is_reference_impl(pd) && seen.insert(pd.impl_info_str()).second) r.push_back(clone_pd(pd));
      } while (pd.next_impl());
    } catch (const dnnl::error&) {
      // no implementation of this algorithm for this ISA, shape or post-op
    }
  }
  return r;
}

class OnednnConv : public FastKernel {
 public:
  OnednnConv(const KernelBuildInfo& info, Activation act)
      : node_(info.node), def_(info.def), act_(act), group_(info.attrs().attr_int("group")),
        rank4_(info.is_f32_rank(0, 4)), compute_(info.compute) {
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
    const size_t rounded_bytes = p.round_inputs ? round64(p.x_md.get_size()) : 0;
    const size_t scratch_total = pad_bytes + src_bytes + dst_bytes + rounded_bytes;
    Tensor own_scratch;  // when the session lends none
    char* scratch = static_cast<char*>(memory.scratch(scratch_total));
    if (!scratch) {
      own_scratch = uninit_tensor(DType::UInt8, {static_cast<int64_t>(scratch_total)});
      scratch = static_cast<char*>(own_scratch.raw());
    }
    // Source: as it comes (rounded to the half type when that is emulated), or reordered into the
    // layout the implementation chose.
    const void* x_data = x.raw();
    if (rounded_bytes) {
      float* rounded = reinterpret_cast<float*>(scratch + pad_bytes + src_bytes + dst_bytes);
      round_to_half(compute_, x.data<float>(), rounded, static_cast<int64_t>(p.x_md.get_size() / sizeof(float)));
      x_data = rounded;
    }
    void* src = const_cast<void*>(x_data);
    if (src_bytes) {
      src = scratch + pad_bytes;
      reorder(p.x_md, x_data, p.src_md, src);
    }
    void* dst = dst_bytes ? scratch + pad_bytes + src_bytes : y.raw();
    if (has_z && !p.z_binary) reorder(p.z_md, ctx.input(kZ).raw(), p.dst_md, dst);  // the sum adds onto dst
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p.src_md, cpu_engine(), src)},
        {DNNL_ARG_DST, dnnl::memory(p.dst_md, cpu_engine(), dst)},
    };
    if (weights_.defined()) {
      args[DNNL_ARG_WEIGHTS] = p.packed_w.memory;
    } else {
      dnnl::memory packed(p.wmd, cpu_engine());
      const Tensor w_used = p.round_inputs ? rounded_to_half(w, compute_) : w;
      reorder(p.user_wmd, w_used.raw(), p.wmd, packed.get_data_handle());
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
    // Half-precision compute emulated: source and weights rounded to the type, float32 primitive.
    bool round_inputs = false;
    dnnl::convolution_forward prim;
    // x_md/y_md/z_md: the layouts of the tensors as stored; src_md/dst_md: the implementation's.
    dnnl::memory::desc x_md, y_md, z_md, src_md, dst_md, bias_md, wmd, user_wmd, scratchpad_md;
    PackedWeights packed_w;  // constant weights in the implementation's layout
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
    // Half precision natively: the source and weights in the half type (the source reordered into
    // it), accumulation and output in float32.
    const bool native_half = compute_ != DType::Float32 && compute_natively_ && computes_natively(compute_);
    const dt in_type = native_half ? onednn_half_type(compute_) : dt::f32;
    auto any = [](const Shape& s, dt type = dt::f32) { return dnnl::memory::desc(to_dims(s), type, tag::any); };
    // A blocked neighbour fixes the layout; a plain one lets the implementation choose, and the
    // kernel reorders at its boundary.
    dnnl::memory::desc src_req = x_blocked_ ? blocked_desc(xs, in_type) : any(xs, in_type);
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
    // 3x3 stride-1 convolutions between many channels may run Winograd: F(2x2,3x3) does 2.25x and
    // F(4x4,3x3) 4x fewer multiplications than the direct method (outputs within 1e-5 relative of
    // the reference kernels on ResNet-50).
    bool unit_steps = true;
    for (size_t d = 0; d < strides.size(); ++d) unit_steps = unit_steps && strides[d] == 1 && dilates[d] == 0;
    const bool winograd_shape = !native_half && xs.size() == 4 && group_ == 1 && w.dim(2) == 3 && w.dim(3) == 3 &&
                                unit_steps && xs[1] >= kWinogradMinChannels && M >= kWinogradMinChannels;
    auto make_desc = [&](dnnl::algorithm alg) {
      return has_bias ? dnnl::convolution_forward::desc(fwd, alg, src_req, any(wdims, in_type), p->bias_md, dst_req,
                                                        strides, dilates, pad_l, pad_r)
                      : dnnl::convolution_forward::desc(fwd, alg, src_req, any(wdims, in_type), dst_req, strides, dilates,
                                                        pad_l, pad_r);
    };
    auto make_pd = [&](dnnl::algorithm alg) { return ConvPd(make_desc(alg), attr, cpu_engine()); };
    ConvPd pd;
    try {
      pd = make_pd(dnnl::algorithm::convolution_direct);
      // A fixed layout on one side and a free one on the other can leave only oneDNN's slow
      // reference implementation (depthwise does); blocked on both sides has a fast one.
      if (xs.size() == 4 && is_reference_impl(pd)) {
        src_req = blocked_desc(xs, in_type);
        dst_req = blocked_f32_desc(p->y_shape);
        pd = make_pd(dnnl::algorithm::convolution_direct);
      }
    } catch (const dnnl::error&) {
      if (!native_half) throw;
    }
    // No fast half-precision implementation for this shape: the float32 one on rounded values.
    if (native_half && (!pd || is_reference_impl(pd))) {
      compute_natively_ = false;
      return build(xs, w, has_bias);
    }
    p->round_inputs = compute_ != DType::Float32 && !native_half;
    if (winograd_shape && weights_.defined()) {
      auto candidates = implementations(make_desc, attr, xs[1] >= kWinogradUntimedChannels);
      // Winograd weights grow with the tile: F(2x2,3x3) holds 16/9 and F(4x4,3x3) 36/9 of the
      // plain size (ResNet-50's 512-channel layers: 38 MB each instead of 9.4). Speed is not
      // bought with more than about twice the weight memory, except for small layers.
      const size_t plain_bytes = p->user_wmd.get_size();
      std::erase_if(candidates, [&](const ConvPd& c) {
        return c.weights_desc().get_size() > std::max(2 * plain_bytes, kSmallWeightBytes);
      });
      std::vector<TimedCandidate> timed;
      for (const auto& c : candidates) timed.push_back({c.impl_info_str(), timed_run(c, *p)});
      const std::string key = fmt::format("conv {} w {} bias {} z {}{} act {} in {} out {} threads {}", shape_str(xs),
                                          shape_str(wdims), has_bias, has_z, p->z_binary, int(act_.kind), x_blocked_,
                                          y_blocked_, omp_get_max_threads());
      if (!candidates.empty()) pd = candidates[fastest_candidate(key, timed)];
    }
    p->prim = dnnl::convolution_forward(pd);
    p->src_md = pd.src_desc();
    p->dst_md = pd.dst_desc();
    p->wmd = pd.weights_desc();
    p->scratchpad_md = pd.scratchpad_desc();
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    if (p->src_md != p->x_md) p->scratch_bytes += p->src_md.get_size();
    if (p->dst_md != p->y_md) p->scratch_bytes += p->dst_md.get_size();
    if (p->round_inputs) p->scratch_bytes += p->x_md.get_size();
    if (weights_.defined()) {
      const Tensor w_used = p->round_inputs ? rounded_to_half(weights_, compute_) : weights_;
      p->packed_w = pack_weights(p->user_wmd, w_used.raw(), p->wmd);
    }
    return p;
  }

  // One execution of implementation `pd` on zeroed scratch tensors shaped like plan `p`'s, for
  // timing (the constant weights reordered for it); allocated on the first call only, so that
  // candidates never timed cost no memory.
  std::function<void()> timed_run(const ConvPd& pd, const Plan& p) const {
    struct Run {
      dnnl::convolution_forward prim;
      std::unordered_map<int, dnnl::memory> args;
      std::vector<Tensor> buffers;  // the memory the args view
    };
    auto run = std::make_shared<std::optional<Run>>();
    return [=, this] {
      if (!*run) {
        Run r{dnnl::convolution_forward(pd), {}, {}};
        // Mapped buffers (zero-filled): they leave no resident memory behind once tuning is done.
        auto zeroed = [&r](const dnnl::memory::desc& md) {
          r.buffers.push_back(owned_bytes(mapped_buffer(md.get_size()), md.get_size()));
          return view_memory(md, r.buffers.back());
        };
        r.args[DNNL_ARG_SRC] = zeroed(pd.src_desc());
        r.args[DNNL_ARG_DST] = zeroed(pd.dst_desc());
        r.args[DNNL_ARG_WEIGHTS] = zeroed(pd.weights_desc());
        reorder(p.user_wmd, weights_.raw(), pd.weights_desc(), r.args[DNNL_ARG_WEIGHTS].get_data_handle());
        if (p.has_bias) r.args[DNNL_ARG_BIAS] = zeroed(pd.bias_desc());
        if (pd.scratchpad_desc().get_size()) r.args[DNNL_ARG_SCRATCHPAD] = zeroed(pd.scratchpad_desc());
        if (p.z_binary) r.args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = zeroed(p.z_md);
        *run = std::move(r);
      }
      (*run)->prim.execute(cpu_stream(), (*run)->args);
      cpu_stream().wait();
    };
  }

  const Node& node_;
  const OpDef& def_;
  Activation act_;
  int64_t group_;
  bool rank4_;
  DType compute_;                 // SessionOptions::compute_precision
  bool compute_natively_ = true;  // false once a shape had no fast native half implementation
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
