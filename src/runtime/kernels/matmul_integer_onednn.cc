// MatMulInteger on oneDNN's int8 matmul: A u8 or s8 (any rank ≥ 2, its leading dims folded into
// rows) with a per-tensor zero point read at run time, B a constant 2-D u8 or s8 matrix with a zero
// point per tensor or per column, exact int32 output:
//   y[i, j] = Σ_k (A[i, k] − az)·(B[k, j] − bz[j])
// The primitive computes Σ_k (A − az)·B8 with A's zero point as a runtime attribute; the weight zero
// point, which oneDNN 2.x does not take, is subtracted afterwards as bz8[j] times the row sums of
// A − az (integer_weights.h has the identity). B is prepacked once per row count. A per-row A zero
// point (allowed by ONNX, not written by ONNX Runtime's quantizer) is left to the reference.
#include <mutex>
#include <unordered_map>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/integer_weights.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/zero_point_sums.h"

namespace ms::rt {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

class OnednnMatMulInteger : public FastKernel {
 public:
  OnednnMatMulInteger(dt a_type, S8Weights b) : a_type_(a_type), b_(std::move(b)) {}
  const char* name() const override { return "onednn_matmul_integer"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = b_.values;
    if (int8_data_type(a.dtype()) != a_type_ || a.rank() < 2 || a.dim(-1) != b.dim(0) || a.numel() == 0) return false;
    int32_t az = 0;
    if (ctx.has_input(2)) {
      const Tensor& z = ctx.input(2);
      if (z.numel() != 1 || z.dtype() != a.dtype()) return false;  // per-row, or a mismatch the reference names
      az = int32_t(z.as_double(0));
    }
    const int64_t M = a.numel() / a.dim(-1), N = b.dim(1);
    std::lock_guard<std::mutex> lock(mu_);
    Plan* p;
    try {
      p = &plan_for(M, az != 0);
    } catch (const dnnl::error&) {
      return false;
    }
    Shape ys = a.shape();
    ys.back() = N;
    Tensor y = output_tensor(memory, 0, DType::Int32, ys);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p->a_md, cpu_engine(), const_cast<void*>(a.raw()))},
        {DNNL_ARG_WEIGHTS, p->packed_b.memory},
        {DNNL_ARG_DST, dnnl::memory(p->y_md, cpu_engine(), y.raw())},
    };
    const size_t pad_bytes = (p->scratchpad_md.get_size() + 63) / 64 * 64;
    const size_t sum_bytes = b_.zp.empty() ? 0 : sizeof(int32_t) * size_t(M);
    Tensor own;
    char* scratch = static_cast<char*>(memory.scratch(pad_bytes + sum_bytes));
    if (!scratch && pad_bytes + sum_bytes) {
      own = uninit_tensor(DType::UInt8, {static_cast<int64_t>(pad_bytes + sum_bytes)});
      scratch = static_cast<char*>(own.raw());
    }
    if (pad_bytes) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p->scratchpad_md, cpu_engine(), scratch);
    if (p->with_zp) {
      az_arg_ = az;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = dnnl::memory({{1}, dt::s32, tag::x}, cpu_engine(), &az_arg_);
    }
    p->prim.execute(cpu_stream(), args);
    cpu_stream().wait();
    if (sum_bytes) {
      auto* s = reinterpret_cast<int32_t*>(scratch + pad_bytes);
      matmul_row_sums(a, az, s);
      subtract_column_products(y.data<int32_t>(), M, N, b_.zp, s);
    }
    last_bytes_ = pad_bytes + sum_bytes;
    ctx.set_output(0, std::move(y));
    return true;
  }
  size_t scratch_bytes() const override { return last_bytes_; }

 private:
  struct Plan {
    int64_t M = 0;
    bool with_zp = false;
    dnnl::matmul prim;
    dnnl::memory::desc a_md, y_md, scratchpad_md;
    PackedWeights packed_b;
  };

  Plan& plan_for(int64_t M, bool with_zp) {
    for (auto& p : plans_)
      if (p->M == M && p->with_zp == with_zp) return *p;
    if (plans_.size() >= 8) plans_.erase(plans_.begin());
    auto p = std::make_unique<Plan>();
    p->M = M;
    p->with_zp = with_zp;
    const int64_t K = b_.values.dim(0), N = b_.values.dim(1);
    p->a_md = dnnl::memory::desc({M, K}, a_type_, tag::ab);
    p->y_md = dnnl::memory::desc({M, N}, dt::s32, tag::ab);
    dnnl::primitive_attr attr;
    if (with_zp) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a_md, dnnl::memory::desc({K, N}, dt::s8, tag::any), p->y_md),
                                    attr, cpu_engine());
    p->prim = dnnl::matmul(pd);
    p->scratchpad_md = pd.scratchpad_desc();
    p->packed_b = pack_weights(dnnl::memory::desc({K, N}, dt::s8, tag::ab), b_.values.raw(), pd.weights_desc());
    plans_.push_back(std::move(p));
    return *plans_.back();
  }

  dt a_type_;
  S8Weights b_;
  int32_t az_arg_ = 0;  // the buffer the zero-point argument points at
  size_t last_bytes_ = 0;
  std::mutex mu_;
  std::vector<std::unique_ptr<Plan>> plans_;
};

std::unique_ptr<FastKernel> make_matmul_integer(const KernelBuildInfo& info) {
  const TypeInfo* ta = info.type(0);
  if (!ta || ta->kind != TypeInfo::Kind::Tensor) return nullptr;
  const auto a_type = int8_data_type(ta->dtype);
  const Tensor* b = info.constant(1);
  if (!a_type || !b || b->rank() != 2) return nullptr;
  const Tensor* bz = nullptr;
  if (info.has_input(3) && !(bz = info.constant(3))) return nullptr;  // a weight zero point computed at run time
  S8Weights s8;
  if (!to_s8_weights(*b, bz, false, s8)) return nullptr;
  return std::make_unique<OnednnMatMulInteger>(*a_type, std::move(s8));
}

}  // namespace

void register_matmul_integer_kernels(FastKernelRegistry& r) { r.add("", "MatMulInteger", make_matmul_integer); }

}  // namespace ms::rt
