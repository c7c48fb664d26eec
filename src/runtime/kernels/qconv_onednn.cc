// QLinearConv and com.mstools QConvFloatOut on oneDNN's int8 convolution (VNNI / AMX-int8 here):
// u8 (with zero point) or s8 activations, s8 symmetric weights per tensor or per output channel.
// Requantization runs inside the primitive, as oneDNN 2.x computes an int8 convolution:
//   dst = saturate(round(oscale[m] · (acc + bias[m]) [+ post-ops] + dst_zp)),  acc = Σ (x − x_zp)·w
// With oscale = x_s·w_s[m]/y_s and an int32 bias this is QLinearConv exactly up to the float
// association of the multiplier (both round half to even: oneDNN converts under the default MXCSR
// mode, the reference with nearbyint); padding is x_zp in both (oneDNN pads x − x_zp with zero).
// QConvFloatOut: oscale = x_s·w_s[m], bias B/(x_s·w_s[m]) in f32 (so that the scaled sum is B),
// residual Z as a sum post-op, activation as an eltwise post-op, f32 output.
// Weights and scales are constants read once; weights are prepacked per input shape. The primitive
// computes in NHWC (oneDNN 2.6 has fast int8 convolutions only there); neighbours that can hand over
// int8 NHWC or float nChw16c do so (accepts_blocked below), others get the plain layout.
#include <mutex>
#include <unordered_map>

#include "ops/conv_pool_util.h"
#include "ops/fused_activation.h"
#include "ops/ms_domain.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// Where the inputs sit in each op.
struct QConvLayout {
  bool float_out;
  size_t bias, z;  // z = SIZE_MAX when the op has none
};

class OnednnQConv : public FastKernel {
 public:
  OnednnQConv(const KernelBuildInfo& info, QConvLayout io, Activation act, dt x_type, dt y_type)
      : node_(info.node), def_(info.def), io_(io), act_(act), x_type_(x_type), y_type_(y_type),
        group_(info.attrs().attr_int("group")) {
    weights_ = *info.constant(3);
    rank4_ = weights_.rank() == 4;
    const int64_t M = weights_.dim(0);
    const float xs = float(info.constant(1)->as_double(0));
    x_zp_ = int32_t(info.constant(2)->as_double(0));
    const auto ws = info.constant(4)->to_double_vector();
    const float ys = io_.float_out ? 1.f : float(info.constant(6)->as_double(0));
    y_zp_ = io_.float_out ? 0 : int32_t(info.constant(7)->as_double(0));
    for (size_t m = 0; m < ws.size(); ++m) scales_.push_back(xs * float(ws[m]) / ys);
    if (const Tensor* b = info.has_input(io_.bias) ? info.constant(io_.bias) : nullptr) {
      if (io_.float_out) {
        // The primitive adds the bias before scaling: B/(x_s·w_s[m]) scales back to B.
        std::vector<float> unscaled(M);
        const auto bv = b->to_double_vector();
        for (int64_t m = 0; m < M; ++m) unscaled[m] = float(bv[m]) / (xs * float(ws[ws.size() == 1 ? 0 : m]));
        bias_ = Tensor::from_vector<float>(unscaled, {M});
      } else {
        bias_ = *b;
      }
    }
  }

  const char* name() const override { return "onednn_qconv_int8"; }
  size_t scratch_bytes() const override { return last_ ? last_->scratch_bytes : 0; }
  // "Blocked" means two things here, one per dtype: rank-4 int8 tensors travel between the int8
  // kernels (and QuantizeLinear) in NHWC, the layout oneDNN's int8 convolution computes in, so
  // consecutive QLinearConvs do not reorder; float tensors (QConvFloatOut's Z and output) in the
  // float kernels' nChw16c, which converts to and from the primitive's NHWC in 64-byte runs.
  bool accepts_blocked(size_t input) const override { return rank4_ && (input == 0 || (io_.float_out && input == io_.z)); }
  bool emits_blocked() const override { return rank4_; }
  void use_layouts(const std::vector<bool>& in, bool out) override {
    x_blocked_ = !in.empty() && in[0];
    z_blocked_ = io_.z < in.size() && in[io_.z];
    y_blocked_ = out;
  }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const bool has_z = io_.z != SIZE_MAX && ctx.has_input(io_.z);
    const bool blocked = x_blocked_ || y_blocked_ || z_blocked_;
    if (int8_data_type(x.dtype()) != x_type_ || x.rank() != weights_.rank() || x.numel() == 0 ||
        (has_z && ctx.input(io_.z).dtype() != DType::Float32)) {
      if (blocked) fail("{}: internal: input {} {} does not fit the layout planned for it", node_.label(),
                        dtype_name(x.dtype()), shape_str(x.shape()));
      return false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Plan* planned;
    try {
      planned = &plan_for(x.shape(), has_z);
    } catch (const dnnl::error& e) {
      if (blocked) fail("{}: oneDNN has no int8 convolution for input {}: {}", node_.label(), shape_str(x.shape()), e.what());
      return false;  // no int8 implementation for this geometry: the reference runs
    }
    Plan& p = *planned;
    if (has_z && ctx.input(io_.z).shape() != p.y_shape) return false;  // the reference names the mismatch
    const DType y_dtype = io_.float_out ? DType::Float32 : (y_type_ == dt::u8 ? DType::UInt8 : DType::Int8);
    Tensor y = output_tensor(memory, 0, y_dtype, p.y_shape, p.y_md.get_size());
    auto round64 = [](size_t b) { return (b + 63) / 64 * 64; };
    const size_t pad_bytes = round64(p.scratchpad_md.get_size());
    const size_t src_bytes = p.src_md != p.x_md ? round64(p.src_md.get_size()) : 0;
    const size_t dst_bytes = p.dst_md != p.y_md ? round64(p.dst_md.get_size()) : 0;
    Tensor own_scratch;
    char* scratch = static_cast<char*>(memory.scratch(pad_bytes + src_bytes + dst_bytes));
    if (!scratch) {
      own_scratch = uninit_tensor(DType::UInt8, {static_cast<int64_t>(pad_bytes + src_bytes + dst_bytes + 64)});
      scratch = static_cast<char*>(own_scratch.raw());
    }
    void* src = const_cast<void*>(x.raw());
    if (src_bytes) {
      src = scratch + pad_bytes;
      reorder(p.x_md, x.raw(), p.src_md, src);
    }
    void* dst = dst_bytes ? scratch + pad_bytes + src_bytes : y.raw();
    if (has_z) reorder(p.z_md, ctx.input(io_.z).raw(), p.dst_md, dst);  // the sum post-op adds onto dst
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p.src_md, cpu_engine(), src)},
        {DNNL_ARG_DST, dnnl::memory(p.dst_md, cpu_engine(), dst)},
        {DNNL_ARG_WEIGHTS, p.packed_w.memory},
    };
    if (bias_.defined()) args[DNNL_ARG_BIAS] = view_memory(p.bias_md, bias_);
    if (pad_bytes) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p.scratchpad_md, cpu_engine(), scratch);
    if (x_zp_) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = zp_memory(x_zp_src_, &x_zp_);
    if (y_zp_) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = zp_memory(y_zp_dst_, &y_zp_);
    p.prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    if (dst != y.raw()) reorder(p.dst_md, dst, p.y_md, y.raw());
    ctx.set_output(0, std::move(y));
    return true;
  }

  // The implementation oneDNN chose for the last plan ("" before the first run); for tests.
  std::string impl() const { return last_ ? last_->impl : ""; }

 private:
  struct Plan {
    Shape x_shape, y_shape;
    bool has_z = false;
    dnnl::convolution_forward prim;
    dnnl::memory::desc x_md, y_md, z_md, src_md, dst_md, bias_md, scratchpad_md;
    PackedWeights packed_w;
    size_t scratch_bytes = 0;
    std::string impl;
  };

  static dnnl::memory zp_memory(int32_t& storage, const int32_t* value) {
    storage = *value;
    return dnnl::memory({{1}, dt::s32, tag::x}, cpu_engine(), &storage);
  }

  Plan& plan_for(const Shape& xs, bool has_z) {
    for (auto& p : plans_)
      if (p->x_shape == xs && p->has_z == has_z) return *(last_ = p.get());
    if (plans_.size() >= 8) plans_.erase(plans_.begin());
    plans_.push_back(build(xs, has_z));
    return *(last_ = plans_.back().get());
  }

  std::unique_ptr<Plan> build(const Shape& xs, bool has_z) {
    AttrReader attrs(node_, def_);
    const WindowGeom g = conv_geom(attrs, xs, weights_.shape(), group_);
    auto p = std::make_unique<Plan>();
    p->x_shape = xs;
    p->has_z = has_z;
    const int64_t M = weights_.dim(0);
    p->y_shape = {xs[0], M};
    dnnl::memory::dims strides, dilates, pad_l, pad_r;
    for (const auto& a : g.axes) {
      p->y_shape.push_back(a.out);
      strides.push_back(a.stride);
      dilates.push_back(a.dilation - 1);
      pad_l.push_back(a.pad_begin);
      pad_r.push_back(a.pad_end);
    }
    Shape wdims = weights_.shape();
    if (group_ > 1) {
      wdims[0] = M / group_;
      wdims.insert(wdims.begin(), group_);
    }
    const dt out_type = io_.float_out ? dt::f32 : y_type_;
    p->x_md = dnnl::memory::desc(to_dims(xs), x_type_, x_blocked_ ? tag::acdb : plain_tag(xs.size()));
    const dnnl::memory::desc plain_y(to_dims(p->y_shape), out_type, plain_tag(p->y_shape.size()));
    if (io_.float_out) {
      p->y_md = y_blocked_ ? blocked_f32_desc(p->y_shape) : plain_y;
      p->z_md = z_blocked_ ? blocked_f32_desc(p->y_shape) : plain_y;
    } else {
      p->y_md = y_blocked_ ? dnnl::memory::desc(to_dims(p->y_shape), out_type, tag::acdb) : plain_y;
    }
    // Only int8 NHWC may be imposed on the primitive: float nChw16c leaves oneDNN's reference one.
    const bool fix_dst = y_blocked_ && !io_.float_out;
    const dnnl::memory::desc user_wmd(to_dims(wdims), dt::s8, plain_tag(wdims.size()));
    auto any = [](const Shape& s, dt t) { return dnnl::memory::desc(to_dims(s), t, tag::any); };
    if (bias_.defined()) p->bias_md = dnnl::memory::desc({M}, io_.float_out ? dt::f32 : dt::s32, tag::x);
    dnnl::primitive_attr attr;
    attr.set_output_scales(scales_.size() == 1 ? 0 : 1 << 1, scales_);
    if (x_zp_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (y_zp_) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    // Z is copied into dst for a sum post-op: a binary post-op reading Z in the graph's plain layout
    // leaves only oneDNN's reference implementation (measured with 2.6 on AMX).
    dnnl::post_ops ops;
    if (has_z) ops.append_sum(1.f);
    append_eltwise(ops, act_);
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const auto fwd = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::convolution_direct;
    auto make_pd = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
      auto desc = bias_.defined() ? dnnl::convolution_forward::desc(fwd, alg, src, any(wdims, dt::s8), p->bias_md, dst,
                                                                    strides, dilates, pad_l, pad_r)
                                  : dnnl::convolution_forward::desc(fwd, alg, src, any(wdims, dt::s8), dst, strides,
                                                                    dilates, pad_l, pad_r);
      return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    };
    // The implementation picks the layouts (nhwc for int8 here: brgconv on AMX, jit on VNNI); the
    // channel-blocked nChw16c the float kernels pass along leaves only the reference one.
    auto pd = make_pd(x_blocked_ ? p->x_md : any(xs, x_type_), fix_dst ? p->y_md : any(p->y_shape, out_type));
    p->impl = pd.impl_info_str();
    p->prim = dnnl::convolution_forward(pd);
    p->src_md = pd.src_desc();
    p->dst_md = pd.dst_desc();
    p->scratchpad_md = pd.scratchpad_desc();
    p->scratch_bytes = p->scratchpad_md.get_size();
    if (p->src_md != p->x_md) p->scratch_bytes += p->src_md.get_size();
    if (p->dst_md != p->y_md) p->scratch_bytes += p->dst_md.get_size();
    p->packed_w = pack_weights(user_wmd, weights_.raw(), pd.weights_desc());
    return p;
  }

  const Node& node_;
  const OpDef& def_;
  QConvLayout io_;
  Activation act_;
  dt x_type_, y_type_;
  int64_t group_;
  bool rank4_ = false, x_blocked_ = false, y_blocked_ = false, z_blocked_ = false;
  Tensor weights_, bias_;
  std::vector<float> scales_;
  int32_t x_zp_ = 0, y_zp_ = 0;
  int32_t x_zp_src_ = 0, y_zp_dst_ = 0;  // the buffers the zero-point arguments point at
  std::mutex mu_;
  std::vector<std::unique_ptr<Plan>> plans_;
  Plan* last_ = nullptr;
};

bool all_zero(const Tensor& t) {
  for (double v : t.to_double_vector())
    if (v != 0) return false;
  return true;
}

// Declines (the reference runs) unless the quantization parameters and weights are constants of
// the kinds oneDNN's int8 convolution takes.
std::unique_ptr<FastKernel> make_qconv(const KernelBuildInfo& info, QConvLayout io, Activation act) {
  const TypeInfo* tx = info.type(0);
  if (!tx || tx->kind != TypeInfo::Kind::Tensor) return nullptr;
  const auto x_type = int8_data_type(tx->dtype);
  const Tensor *w = info.constant(3), *ws = info.constant(4), *wz = info.constant(5);
  const Tensor *xs = info.constant(1), *xz = info.constant(2);
  if (!x_type || !w || !ws || !xs || !xz || w->dtype() != DType::Int8 || w->rank() < 3 || w->rank() > 5) return nullptr;
  if (xs->numel() != 1 || xz->numel() != 1 || xz->dtype() != tx->dtype) return nullptr;
  if (ws->dtype() != DType::Float32 || (ws->numel() != 1 && ws->numel() != w->dim(0))) return nullptr;
  for (double s : ws->to_double_vector())
    if (!(s > 0)) return nullptr;  // the float bias is divided by x_s·w_s
  if (info.has_input(5) && (!wz || !all_zero(*wz))) return nullptr;  // oneDNN takes no weight zero points
  dt y_type = dt::f32;
  if (!io.float_out) {
    const Tensor *ys = info.constant(6), *yz = info.constant(7);
    if (!ys || !yz || ys->numel() != 1 || yz->numel() != 1) return nullptr;
    auto t = int8_data_type(yz->dtype());
    if (!t) return nullptr;
    y_type = *t;
  }
  if (info.has_input(io.bias)) {
    const Tensor* b = info.constant(io.bias);
    if (!b || b->numel() != w->dim(0) || b->dtype() != (io.float_out ? DType::Float32 : DType::Int32)) return nullptr;
  }
  if (io.z != SIZE_MAX && info.has_input(io.z) && !info.maybe_f32(io.z)) return nullptr;
  return std::make_unique<OnednnQConv>(info, io, act, *x_type, y_type);
}

std::unique_ptr<FastKernel> make_qlinear_conv(const KernelBuildInfo& info) {
  return make_qconv(info, {false, 8, SIZE_MAX}, {});
}

std::unique_ptr<FastKernel> make_qconv_float_out(const KernelBuildInfo& info) {
  AttrReader a = info.attrs();
  auto act = activation_from(a.attr_string("activation"), a.attr_floats("activation_params"));
  if (!act) return nullptr;
  return make_qconv(info, {true, 6, 7}, *act);
}

}  // namespace

void register_onednn_qconv_kernels(FastKernelRegistry& r) {
  r.add("", "QLinearConv", make_qlinear_conv);
  r.add(kMsDomain, "QConvFloatOut", make_qconv_float_out);
}

}  // namespace ms::rt
