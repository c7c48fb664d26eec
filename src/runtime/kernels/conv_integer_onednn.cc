// ConvInteger on oneDNN's int8 convolution (VNNI / AMX-int8): u8 or s8 activations with a zero point
// read at run time (DynamicQuantizeLinear computes it per run), constant u8 or s8 weights with a
// zero point per tensor or per output channel, exact int32 output:
//   y[m] = Σ (x − xz)·(W[m] − wz[m])
// The primitive computes Σ (x − xz)·W8[m] with x's zero point as a runtime attribute (its padding
// is x − xz = 0, as in the reference); the weight zero point, which oneDNN 2.x does not take, is
// subtracted afterwards as wz8[m] times the window sums of x − xz (integer_weights.h has the
// identity; zero_point_sums.h the sums). The primitive picks its layouts (NHWC for int8); the
// graph's plain NCHW input and output are reordered in and out through scratch.
#include <mutex>
#include <unordered_map>

#include "ops/conv_pool_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/integer_weights.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/zero_point_sums.h"

namespace ms::rt {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

size_t round64(size_t b) { return (b + 63) / 64 * 64; }

class OnednnConvInteger : public FastKernel {
 public:
  OnednnConvInteger(const KernelBuildInfo& info, dt x_type, S8Weights w)
      : node_(info.node), def_(info.def), x_type_(x_type), group_(info.attrs().attr_int("group")), w_(std::move(w)) {}

  const char* name() const override { return "onednn_conv_integer"; }
  size_t scratch_bytes() const override { return last_ ? last_->scratch_bytes : 0; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (int8_data_type(x.dtype()) != x_type_ || x.rank() != w_.values.rank() || x.numel() == 0) return false;
    int32_t xz = 0;
    if (ctx.has_input(2)) {
      const Tensor& z = ctx.input(2);
      if (z.numel() != 1 || z.dtype() != x.dtype()) return false;  // the reference names the mismatch
      xz = int32_t(z.as_double(0));
    }
    std::lock_guard<std::mutex> lock(mu_);
    Plan* planned;
    try {
      planned = &plan_for(x.shape(), xz != 0);
    } catch (const dnnl::error&) {
      return false;  // no int8 implementation for this geometry: the reference runs
    }
    Plan& p = *planned;
    Tensor y = output_tensor(memory, 0, DType::Int32, p.y_shape);
    Tensor own_scratch;
    char* scratch = static_cast<char*>(memory.scratch(p.scratch_bytes));
    if (!scratch && p.scratch_bytes) {
      own_scratch = uninit_tensor(DType::UInt8, {static_cast<int64_t>(p.scratch_bytes)});
      scratch = static_cast<char*>(own_scratch.raw());
    }
    void* src = const_cast<void*>(x.raw());
    if (p.src_bytes) {
      src = scratch + p.src_at;
      reorder(p.x_md, x.raw(), p.src_md, src);
    }
    void* dst = p.dst_bytes ? scratch + p.dst_at : y.raw();
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p.src_md, cpu_engine(), src)},
        {DNNL_ARG_DST, dnnl::memory(p.dst_md, cpu_engine(), dst)},
        {DNNL_ARG_WEIGHTS, p.packed_w.memory},
    };
    if (p.pad_bytes) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p.scratchpad_md, cpu_engine(), scratch);
    if (p.with_zp) {
      xz_arg_ = xz;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = dnnl::memory({{1}, dt::s32, tag::x}, cpu_engine(), &xz_arg_);
    }
    p.prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    if (dst != y.raw()) reorder(p.dst_md, dst, p.y_md, y.raw());
    if (!w_.zp.empty()) {
      auto* cs = reinterpret_cast<int32_t*>(scratch + p.sums_at);
      auto* s = reinterpret_cast<int32_t*>(scratch + p.sums_at + p.channel_sum_bytes);
      conv_window_sums(x, xz, group_, p.geom, cs, s);
      subtract_channel_products(y.data<int32_t>(), p.y_shape[0], p.y_shape[1], group_, p.geom.out_numel(), w_.zp, s);
    }
    ctx.set_output(0, std::move(y));
    return true;
  }

  // The implementation oneDNN chose for the last plan ("" before the first run); for tests.
  std::string impl() const { return last_ ? last_->impl : ""; }

 private:
  struct Plan {
    Shape x_shape, y_shape;
    bool with_zp = false;
    WindowGeom geom;
    dnnl::convolution_forward prim;
    dnnl::memory::desc x_md, y_md, src_md, dst_md, scratchpad_md;
    PackedWeights packed_w;
    // Scratch: oneDNN's scratchpad, then src and dst in the primitive's layout (when it differs
    // from the plain one), then the channel sums and window sums of the zero-point correction.
    size_t pad_bytes = 0, src_at = 0, src_bytes = 0, dst_at = 0, dst_bytes = 0, sums_at = 0, channel_sum_bytes = 0;
    size_t scratch_bytes = 0;
    std::string impl;
  };

  Plan& plan_for(const Shape& xs, bool with_zp) {
    for (auto& p : plans_)
      if (p->x_shape == xs && p->with_zp == with_zp) return *(last_ = p.get());
    if (plans_.size() >= 8) plans_.erase(plans_.begin());
    plans_.push_back(build(xs, with_zp));
    return *(last_ = plans_.back().get());
  }

  std::unique_ptr<Plan> build(const Shape& xs, bool with_zp) {
    AttrReader attrs(node_, def_);
    const Tensor& w = w_.values;
    auto p = std::make_unique<Plan>();
    p->geom = conv_geom(attrs, xs, w.shape(), group_);
    p->x_shape = xs;
    p->with_zp = with_zp;
    const int64_t M = w.dim(0);
    p->y_shape = {xs[0], M};
    dnnl::memory::dims strides, dilates, pad_l, pad_r;
    for (const auto& a : p->geom.axes) {
      p->y_shape.push_back(a.out);
      strides.push_back(a.stride);
      dilates.push_back(a.dilation - 1);
      pad_l.push_back(a.pad_begin);
      pad_r.push_back(a.pad_end);
    }
    Shape wdims = w.shape();
    if (group_ > 1) {
      wdims[0] = M / group_;
      wdims.insert(wdims.begin(), group_);
    }
    p->x_md = dnnl::memory::desc(to_dims(xs), x_type_, plain_tag(xs.size()));
    p->y_md = dnnl::memory::desc(to_dims(p->y_shape), dt::s32, plain_tag(p->y_shape.size()));
    auto any = [](const Shape& s, dt t) { return dnnl::memory::desc(to_dims(s), t, tag::any); };
    dnnl::primitive_attr attr;
    if (with_zp) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         any(xs, x_type_), any(wdims, dt::s8), any(p->y_shape, dt::s32), strides,
                                         dilates, pad_l, pad_r);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    p->impl = pd.impl_info_str();
    p->prim = dnnl::convolution_forward(pd);
    p->src_md = pd.src_desc();
    p->dst_md = pd.dst_desc();
    p->scratchpad_md = pd.scratchpad_desc();
    p->pad_bytes = round64(p->scratchpad_md.get_size());
    p->src_at = p->pad_bytes;
    p->src_bytes = p->src_md != p->x_md ? round64(p->src_md.get_size()) : 0;
    p->dst_at = p->src_at + p->src_bytes;
    p->dst_bytes = p->dst_md != p->y_md ? round64(p->dst_md.get_size()) : 0;
    p->sums_at = p->dst_at + p->dst_bytes;
    if (!w_.zp.empty()) {
      p->channel_sum_bytes = round64(sizeof(int32_t) * size_t(xs[0] * group_ * p->geom.in_numel()));
      p->scratch_bytes = p->sums_at + p->channel_sum_bytes + round64(sizeof(int32_t) * size_t(xs[0] * group_ * p->geom.out_numel()));
    } else {
      p->scratch_bytes = p->sums_at;
    }
    const dnnl::memory::desc user_wmd(to_dims(wdims), dt::s8, plain_tag(wdims.size()));
    p->packed_w = pack_weights(user_wmd, w.raw(), pd.weights_desc());
    return p;
  }

  const Node& node_;
  const OpDef& def_;
  dt x_type_;
  int64_t group_;
  S8Weights w_;
  int32_t xz_arg_ = 0;  // the buffer the zero-point argument points at
  std::mutex mu_;
  std::vector<std::unique_ptr<Plan>> plans_;
  Plan* last_ = nullptr;
};

// Declines (the reference runs) unless the weights and their zero point are constants oneDNN's
// int8 convolution can take after integer_weights.h's conversion.
std::unique_ptr<FastKernel> make_conv_integer(const KernelBuildInfo& info) {
  const TypeInfo* tx = info.type(0);
  if (!tx || tx->kind != TypeInfo::Kind::Tensor) return nullptr;
  const auto x_type = int8_data_type(tx->dtype);
  const Tensor* w = info.constant(1);
  if (!x_type || !w || w->rank() < 3 || w->rank() > 5) return nullptr;
  const Tensor* wz = nullptr;
  if (info.has_input(3) && !(wz = info.constant(3))) return nullptr;  // a weight zero point computed at run time
  const int64_t group = info.attrs().attr_int("group");
  if (group < 1 || w->dim(0) % group) return nullptr;  // the reference names the mismatch
  S8Weights s8;
  if (!to_s8_weights(*w, wz, true, s8)) return nullptr;
  return std::make_unique<OnednnConvInteger>(info, *x_type, std::move(s8));
}

}  // namespace

void register_conv_integer_kernels(FastKernelRegistry& r) { r.add("", "ConvInteger", make_conv_integer); }

}  // namespace ms::rt
