// MatMul, Gemm and com.mstools FusedMatMul / FusedGemm on oneDNN's matmul: numpy batch
// broadcasting, Gemm's transposes through strides, bias (Gemm's C, FusedMatMul's bias) and the
// activation fused. A constant 2-D B is scaled by Gemm's alpha and packed once per shape; a batched
// A against a 2-D B is computed as one tall matrix product. With a half-precision compute type
// (half_compute.h) A and B are read in that type.
#include <mutex>

#include "ops/ms_domain.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/half_compute.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

struct MatMulSpec {
  bool gemm = false;  // Gemm / FusedGemm: 2-D inputs, transposes, alpha, beta
  bool trans_a = false, trans_b = false;
  float alpha = 1, beta = 1;
  Activation act;
};

using dims = dnnl::memory::dims;

// Strides of a row-major matrix stack, with the last two axes swapped when `trans`.
dims strides_of(const dims& d, bool trans) {
  dims s(d.size());
  int64_t acc = 1;
  for (size_t i = d.size(); i-- > 0;) {
    s[i] = acc;
    acc *= d[i];
  }
  if (trans) {
    const size_t r = d.size();
    s[r - 1] = d[r - 2];
    s[r - 2] = 1;
  }
  return s;
}

class OnednnMatMul : public FastKernel {
 public:
  OnednnMatMul(const KernelBuildInfo& info, MatMulSpec spec) : node_(info.node), spec_(spec), compute_(info.compute) {
    if (const Tensor* b = info.constant(1); b && b->rank() == 2 && b->dtype() == DType::Float32) {
      const_b_ = spec_.alpha == 1.f ? *b : b->clone();
      if (spec_.alpha != 1.f)
        for (int64_t i = 0; i < const_b_.numel(); ++i) const_b_.data<float>()[i] *= spec_.alpha;
    }
    if (const Tensor* c = info.constant(2); c && spec_.gemm && spec_.beta != 1.f && c->dtype() == DType::Float32) {
      scaled_c_ = c->clone();
      for (int64_t i = 0; i < scaled_c_.numel(); ++i) scaled_c_.data<float>()[i] *= spec_.beta;
    }
  }

  const char* name() const override { return "onednn_matmul"; }
  size_t scratch_bytes() const override { return last_ ? last_->scratch : 0; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = const_b_.defined() ? const_b_ : ctx.input(1);
    const bool has_c = ctx.has_input(2) && !(spec_.gemm && spec_.beta == 0.f);
    const Tensor* c = !has_c ? nullptr : scaled_c_.defined() ? &scaled_c_ : &ctx.input(2);
    if (a.dtype() != DType::Float32 || b.dtype() != DType::Float32 || (c && c->dtype() != DType::Float32)) return false;
    // alpha and beta must be folded into constants; a variable operand with a scale stays on the reference.
    if (spec_.gemm && ((spec_.alpha != 1.f && !const_b_.defined()) || (c && spec_.beta != 1.f && !scaled_c_.defined())))
      return false;
    if (a.numel() == 0 || b.numel() == 0 || a.rank() == 0 || b.rank() == 0) return false;
    if (spec_.gemm && (a.rank() != 2 || b.rank() != 2)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    Plan* p;
    try {
      p = &plan_for(a.shape(), b.shape(), c ? c->shape() : Shape{}, c != nullptr);
    } catch (const dnnl::error&) {
      return false;  // a broadcast oneDNN does not implement: the reference handles it
    }
    if (!p->valid) return false;
    Tensor y = output_tensor(memory, 0, DType::Float32, p->y_shape);
    // oneDNN's scratchpad, then A and B in the half type, from the session's shared scratch buffer.
    Tensor own_scratch;
    char* scratch = nullptr;
    if (p->scratch) {
      scratch = static_cast<char*>(memory.scratch(p->scratch));
      if (!scratch) scratch = static_cast<char*>((own_scratch = uninit_tensor(DType::UInt8, {static_cast<int64_t>(p->scratch)})).raw());
    }
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DST, view_memory(p->y_md, y)}};
    args[DNNL_ARG_SRC] = half_operand(*p, p->a_md, p->a_prim_md, a, scratch + p->a_offset);
    args[DNNL_ARG_WEIGHTS] = p->packed_b ? p->packed_b.memory : half_operand(*p, p->b_md, p->b_prim_md, b, scratch + p->b_offset);
    if (c) args[DNNL_ARG_BIAS] = view_memory(p->c_md, *c);
    if (p->scratchpad_md.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p->scratchpad_md, cpu_engine(), scratch);
    p->prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  struct Plan {
    Shape a_shape, b_shape, c_shape;
    bool valid = false;
    Shape y_shape;
    dnnl::matmul prim;
    dnnl::memory::desc a_md, b_md, c_md, y_md;
    // A and B as the primitive reads them: a_md/b_md, or the same strides in the half type.
    dnnl::memory::desc a_prim_md, b_prim_md;
    bool round_inputs = false;  // half precision emulated: A and B rounded, float32 primitive
    PackedWeights packed_b;
    size_t scratch = 0, a_offset = 0, b_offset = 0;  // scratch: oneDNN's pad, A's copy, B's copy
    dnnl::memory::desc scratchpad_md;
  };

  // Operand `t` (stored as `md`) as the primitive reads it (`prim_md`): a view of its buffer, or a
  // copy in `buffer` converted to the half type or rounded to it.
  dnnl::memory half_operand(const Plan& p, const dnnl::memory::desc& md, const dnnl::memory::desc& prim_md,
                            const Tensor& t, char* buffer) const {
    if (p.round_inputs) {
      round_to_half(compute_, t.data<float>(), reinterpret_cast<float*>(buffer), t.numel());
      return dnnl::memory(md, cpu_engine(), buffer);
    }
    if (prim_md == md) return view_memory(md, t);
    reorder(md, t.raw(), prim_md, buffer);
    return dnnl::memory(prim_md, cpu_engine(), buffer);
  }

  Plan& plan_for(const Shape& as, const Shape& bs, const Shape& cs, bool has_c) {
    if (last_ && last_->a_shape == as && last_->b_shape == bs && last_->c_shape == cs) return *last_;
    plan_ = std::make_unique<Plan>();
    last_ = plan_.get();
    build(*plan_, as, bs, cs, has_c);
    return *plan_;
  }

  void build(Plan& p, const Shape& as, const Shape& bs, const Shape& cs, bool has_c) {
    p.a_shape = as;
    p.b_shape = bs;
    p.c_shape = cs;
    // Logical operands (M x K and K x N after the transposes); strides_of() maps them to storage.
    dims a(as.begin(), as.end()), b(bs.begin(), bs.end());
    const bool ta = spec_.trans_a, tb = spec_.trans_b;
    const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
    if (a_vec) a = {1, a[0]};
    if (b_vec) b = {b[0], 1};
    if (ta) std::swap(a[a.size() - 1], a[a.size() - 2]);
    if (tb) std::swap(b[b.size() - 1], b[b.size() - 2]);
    const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
    if (K != b[b.size() - 2]) return;  // the reference reports the mismatch
    // The output shape numpy gives: broadcast batch dims, then M and N unless a side was a vector.
    const size_t r = std::max(a.size(), b.size());
    dims batch(r - 2, 1);
    for (size_t i = 0; i + 2 < r; ++i) {
      const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
      const int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
      if (da != db && da != 1 && db != 1) return;
      batch[i] = std::max(da, db);
    }
    p.y_shape.assign(batch.begin(), batch.end());
    if (!a_vec) p.y_shape.push_back(M);
    if (!b_vec) p.y_shape.push_back(N);
    dims ad, bd, yd;
    if (b.size() == 2 && !ta) {
      // One tall product: every batch row of A against the same B.
      int64_t rows = 1;
      for (size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
      ad = {rows, K};
      bd = b;
      yd = {rows, N};
    } else {
      ad = dims(r, 1);
      bd = dims(r, 1);
      std::copy(a.begin(), a.end(), ad.begin() + (r - a.size()));
      std::copy(b.begin(), b.end(), bd.begin() + (r - b.size()));
      yd = batch;
      yd.push_back(M);
      yd.push_back(N);
    }
    using dt = dnnl::memory::data_type;
    p.a_md = dnnl::memory::desc(ad, dt::f32, strides_of(ad, ta));
    p.b_md = dnnl::memory::desc(bd, dt::f32, strides_of(bd, tb));
    p.y_md = dnnl::memory::desc(yd, dt::f32, strides_of(yd, false));
    dnnl::memory::desc c_req;
    if (has_c) {
      // Bias dims right-aligned against the output, each 1 or the output's size.
      if (cs.size() > yd.size()) return;
      dims cd(yd.size(), 1);
      std::copy(cs.begin(), cs.end(), cd.begin() + (yd.size() - cs.size()));
      for (size_t i = 0; i < cd.size(); ++i)
        if (cd[i] != 1 && cd[i] != yd[i]) return;
      p.c_md = dnnl::memory::desc(cd, dt::f32, strides_of(cd, false));
    }
    dnnl::post_ops ops;
    append_eltwise(ops, spec_.act);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // the session's shared scratch buffer
    const bool pack = const_b_.defined() && bd.size() == 2;
    // Half precision natively: A and B in the half type (copied into it each run, B packed once),
    // accumulation and output in float32; where oneDNN has no fast implementation, emulated.
    const bool native_half = compute_ != DType::Float32 && compute_natively_ && computes_natively(compute_);
    const dt in_type = native_half ? onednn_half_type(compute_) : dt::f32;
    p.a_prim_md = dnnl::memory::desc(ad, in_type, strides_of(ad, ta));
    p.b_prim_md = dnnl::memory::desc(bd, in_type, strides_of(bd, tb));
    const dnnl::memory::desc b_req = pack ? dnnl::memory::desc(bd, in_type, dnnl::memory::format_tag::any) : p.b_prim_md;
    auto desc = has_c ? dnnl::matmul::desc(p.a_prim_md, b_req, p.c_md, p.y_md) : dnnl::matmul::desc(p.a_prim_md, b_req, p.y_md);
    dnnl::matmul::primitive_desc pd;
    try {
      pd = dnnl::matmul::primitive_desc(desc, attr, cpu_engine());
    } catch (const dnnl::error&) {
      if (!native_half) throw;
    }
    if (native_half && (!pd || std::string(pd.impl_info_str()).rfind("ref", 0) == 0)) {
      compute_natively_ = false;
      return build(p, as, bs, cs, has_c);
    }
    p.round_inputs = compute_ != DType::Float32 && !native_half;
    p.prim = dnnl::matmul(pd);
    p.scratchpad_md = pd.scratchpad_desc();
    // Scratch: oneDNN's pad, then A's and B's converted or rounded copies (64-byte aligned).
    auto round64 = [](size_t b) { return (b + 63) / 64 * 64; };
    const bool copy_inputs = native_half || p.round_inputs;
    p.a_offset = round64(p.scratchpad_md.get_size());
    p.b_offset = p.a_offset + (copy_inputs ? round64(p.a_md.get_size()) : 0);
    p.scratch = p.b_offset + (copy_inputs && !pack ? round64(p.b_md.get_size()) : 0);
    if (pack) {
      const Tensor b_used = p.round_inputs ? rounded_to_half(const_b_, compute_) : const_b_;
      p.packed_b = pack_weights(p.b_md, b_used.raw(), pd.weights_desc());
    }
    p.valid = true;
  }

  const Node& node_;
  MatMulSpec spec_;
  DType compute_;                 // SessionOptions::compute_precision
  bool compute_natively_ = true;  // false once a shape had no fast native half implementation
  Tensor const_b_, scaled_c_;
  std::mutex mu_;
  std::unique_ptr<Plan> plan_;
  Plan* last_ = nullptr;
};

std::unique_ptr<FastKernel> make_matmul(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0) || !info.maybe_f32(1)) return nullptr;
  MatMulSpec spec;
  AttrReader a = info.attrs();
  const std::string& op = info.node.op_type;
  if (op == "Gemm" || op == "FusedGemm") {
    spec.gemm = true;
    spec.trans_a = a.attr_int("transA") != 0;
    spec.trans_b = a.attr_int("transB") != 0;
    spec.alpha = a.attr_float("alpha");
    spec.beta = a.attr_float("beta");
  }
  if (op == "FusedGemm" || op == "FusedMatMul") {
    auto act = activation_from(a.attr_string("activation"), a.attr_floats("activation_params"));
    if (!act) return nullptr;
    spec.act = *act;
  }
  return std::make_unique<OnednnMatMul>(info, spec);
}

}  // namespace

void register_onednn_matmul_kernels(FastKernelRegistry& r) {
  r.add("", "MatMul", make_matmul);
  r.add("", "Gemm", make_matmul);
  r.add(kMsDomain, "FusedMatMul", make_matmul);
  r.add(kMsDomain, "FusedGemm", make_matmul);
}

}  // namespace ms::rt
