// QLinearMatMul on oneDNN's int8 matmul: A u8 (with zero point) or s8, per tensor; B a constant s8
// 2-D matrix, symmetric (zero point 0), scales per tensor or per column; Y u8/s8 per tensor.
// A's leading dims fold into rows (B is 2-D, so there is no batch broadcasting to do). As oneDNN
// 2.x computes it, requantization is inside the primitive:
//   y = saturate(round(oscale[n] · Σ_k (a − a_zp)·b) + y_zp),  oscale[n] = a_s·b_s[n]/y_s
// the reference's multiplier, rounded half to even by both. B is prepacked once per row count.
#include <mutex>
#include <unordered_map>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"

namespace ms::rt {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

class OnednnQMatMul : public FastKernel {
 public:
  OnednnQMatMul(const KernelBuildInfo& info, dt a_type, dt y_type) : a_type_(a_type), y_type_(y_type) {
    b_ = *info.constant(3);
    const float as = float(info.constant(1)->as_double(0)), ys = float(info.constant(6)->as_double(0));
    a_zp_ = int32_t(info.constant(2)->as_double(0));
    y_zp_ = int32_t(info.constant(7)->as_double(0));
    for (double bs : info.constant(4)->to_double_vector()) scales_.push_back(as * float(bs) / ys);
  }
  const char* name() const override { return "onednn_qmatmul_int8"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& a = ctx.input(0);
    if (int8_data_type(a.dtype()) != a_type_ || a.rank() < 2 || a.dim(-1) != b_.dim(0) || a.numel() == 0) return false;
    const int64_t M = a.numel() / a.dim(-1), N = b_.dim(1);
    std::lock_guard<std::mutex> lock(mu_);
    Plan* p;
    try {
      p = &plan_for(M);
    } catch (const dnnl::error&) {
      return false;
    }
    Shape ys = a.shape();
    ys.back() = N;
    Tensor y = output_tensor(memory, 0, y_type_ == dt::u8 ? DType::UInt8 : DType::Int8, ys);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p->a_md, cpu_engine(), const_cast<void*>(a.raw()))},
        {DNNL_ARG_WEIGHTS, p->packed_b.memory},
        {DNNL_ARG_DST, dnnl::memory(p->y_md, cpu_engine(), y.raw())},
    };
    Tensor pad;
    if (p->scratchpad_md.get_size()) {
      void* s = memory.scratch(p->scratchpad_md.get_size());
      if (!s) {
        pad = byte_buffer(p->scratchpad_md);
        s = pad.raw();
      }
      args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p->scratchpad_md, cpu_engine(), s);
    }
    if (a_zp_) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = dnnl::memory({{1}, dt::s32, tag::x}, cpu_engine(), &a_zp_);
    if (y_zp_) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = dnnl::memory({{1}, dt::s32, tag::x}, cpu_engine(), &y_zp_);
    p->prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  struct Plan {
    int64_t M = 0;
    dnnl::matmul prim;
    dnnl::memory::desc a_md, y_md, scratchpad_md;
    PackedWeights packed_b;
  };

  Plan& plan_for(int64_t M) {
    for (auto& p : plans_)
      if (p->M == M) return *p;
    if (plans_.size() >= 8) plans_.erase(plans_.begin());
    auto p = std::make_unique<Plan>();
    p->M = M;
    const int64_t K = b_.dim(0), N = b_.dim(1);
    p->a_md = dnnl::memory::desc({M, K}, a_type_, tag::ab);
    p->y_md = dnnl::memory::desc({M, N}, y_type_, tag::ab);
    const dnnl::memory::desc user_b({K, N}, dt::s8, tag::ab);
    dnnl::primitive_attr attr;
    attr.set_output_scales(scales_.size() == 1 ? 0 : 1 << 1, scales_);
    if (a_zp_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (y_zp_) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a_md, dnnl::memory::desc({K, N}, dt::s8, tag::any), p->y_md),
                                    attr, cpu_engine());
    p->prim = dnnl::matmul(pd);
    p->scratchpad_md = pd.scratchpad_desc();
    p->packed_b = pack_weights(user_b, b_.raw(), pd.weights_desc());
    plans_.push_back(std::move(p));
    return *plans_.back();
  }

  dt a_type_, y_type_;
  Tensor b_;
  std::vector<float> scales_;
  int32_t a_zp_ = 0, y_zp_ = 0;
  std::mutex mu_;
  std::vector<std::unique_ptr<Plan>> plans_;
};

bool all_zero(const Tensor& t) {
  for (double v : t.to_double_vector())
    if (v != 0) return false;
  return true;
}

std::unique_ptr<FastKernel> make_qlinear_matmul(const KernelBuildInfo& info) {
  const TypeInfo* ta = info.type(0);
  if (!ta || ta->kind != TypeInfo::Kind::Tensor) return nullptr;
  const auto a_type = int8_data_type(ta->dtype);
  const Tensor *as = info.constant(1), *az = info.constant(2), *b = info.constant(3), *bs = info.constant(4),
               *bz = info.constant(5), *ys = info.constant(6), *yz = info.constant(7);
  if (!a_type || !as || !az || !b || !bs || !bz || !ys || !yz) return nullptr;
  if (as->numel() != 1 || az->numel() != 1 || ys->numel() != 1 || yz->numel() != 1) return nullptr;
  if (b->dtype() != DType::Int8 || b->rank() != 2 || !all_zero(*bz)) return nullptr;
  if (bs->dtype() != DType::Float32 || (bs->numel() != 1 && bs->numel() != b->dim(1))) return nullptr;
  const auto y_type = int8_data_type(yz->dtype());
  if (!y_type) return nullptr;
  return std::make_unique<OnednnQMatMul>(info, *a_type, *y_type);
}

}  // namespace

void register_onednn_qmatmul_kernels(FastKernelRegistry& r) { r.add("", "QLinearMatMul", make_qlinear_matmul); }

}  // namespace ms::rt
