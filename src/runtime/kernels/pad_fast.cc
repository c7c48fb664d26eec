// Pad in the constant, reflect, edge and wrap modes, any rank up to kMaxRank, any fixed-size dtype
// (elements are moved as bytes; the constant is converted to the dtype once per run). Each output
// row (the innermost dim) is one memcpy of the input row's kept part plus the padded elements at
// either end; a row that falls in the padding of an outer dim is all constant, or a copy of the
// input row that dim's mode maps it to. Negative pads crop. Parameters follow the reference
// (src/ops/pad.cc); what it rejects is declined so that it reports it.
#include "ops/kernel_util.h"
#include "runtime/kernels/datamove_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

constexpr int64_t kMaxRank = 16;

enum class PadMode { Constant, Reflect, Edge, Wrap };

// Source index along one axis for output position o, or -1 for the constant (as the reference).
inline int64_t pad_source(int64_t o, int64_t begin, int64_t n, PadMode mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return i < 0 ? 0 : n - 1;
    case PadMode::Wrap: return ((i % n) + n) % n;
    case PadMode::Reflect: break;
  }
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  i = ((i % period) + period) % period;
  return i < n ? i : period - i;
}

// The bytes of `v` as one element of dtype dt; false for dtypes without a numeric conversion.
bool fill_bytes(DType dt, double v, unsigned char* out) {
  bool ok = true;
  auto put = [&](auto x) { std::memcpy(out, &x, sizeof(x)); };
  switch (dt) {
    case DType::Float32: put(float(v)); break;
    case DType::Float64: put(double(v)); break;
    case DType::Float16: put(float16_t(v)); break;
    case DType::BFloat16: put(bfloat16_t(v)); break;
    case DType::Int8: put(int8_t(v)); break;
    case DType::Int16: put(int16_t(v)); break;
    case DType::Int32: put(int32_t(v)); break;
    case DType::Int64: put(int64_t(v)); break;
    case DType::UInt8: put(uint8_t(v)); break;
    case DType::UInt16: put(uint16_t(v)); break;
    case DType::UInt32: put(uint32_t(v)); break;
    case DType::UInt64: put(uint64_t(v)); break;
    case DType::Bool: put(bool(v != 0)); break;
    default: ok = false;
  }
  return ok;
}

// `count` copies of the element at `value` (esize bytes) from dst on.
void fill(unsigned char* dst, int64_t count, const unsigned char* value, size_t esize) {
  if (count <= 0) return;
  const bool typed = dispatch_elem_size(esize, [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, value, sizeof(T));
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < count; ++i) d[i] = v;
  });
  if (!typed)
    for (int64_t i = 0; i < count; ++i) std::memcpy(dst + static_cast<size_t>(i) * esize, value, esize);
}

class FastPad : public FastKernel {
 public:
  FastPad(PadMode mode, const KernelBuildInfo& info) : mode_(mode) {
    const AttrReader a = info.attrs();
    if (a.has_attr("pads")) attr_pads_ = a.attr_ints("pads");
    else if (a.has_attr("paddings")) attr_pads_ = a.attr_ints("paddings");
    has_attr_pads_ = a.has_attr("pads") || a.has_attr("paddings");
    value_ = a.attr_float("value");
  }
  const char* name() const override { return "pad_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    if (!movable_dtype(x.dtype()) || rank == 0 || rank > kMaxRank) return false;
    int64_t begin[kMaxRank] = {}, end[kMaxRank] = {};
    if (!read_pads(ctx, rank, begin, end)) return false;
    const size_t es = dtype_size(x.dtype());
    unsigned char value[16] = {};
    if (mode_ == PadMode::Constant) {
      if (ctx.has_input(2)) {
        const Tensor& c = ctx.input(2);
        if (c.dtype() != x.dtype() || c.numel() != 1) return false;
        std::memcpy(value, c.raw(), es);
      } else if (es > sizeof(value) || !fill_bytes(x.dtype(), value_, value)) {
        return false;
      }
    }
    Shape out = x.shape();
    int64_t total = 1;
    constexpr int64_t kLimit = int64_t{1} << 40, kMaxElements = int64_t{1} << 34;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = out[d], b = begin[d], e = end[d];
      if (b < -kLimit || b > kLimit || e < -kLimit || e > kLimit) return false;
      out[d] = n + b + e;
      if (out[d] < 0 || out[d] > kMaxElements) return false;
      if (n == 0 && out[d] > 0 && mode_ != PadMode::Constant) return false;
      if (__builtin_mul_overflow(total, out[d], &total) || total > kMaxElements) return false;
    }
    Tensor y = output_tensor(memory, 0, x.dtype(), std::move(out));
    if (total > 0) pad(x, y, begin, value);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  // Per-axis (begin, end) pads from input 1 or the attribute, on the axes of input 3 (all by default).
  bool read_pads(const KernelContext& ctx, int64_t rank, int64_t* begin, int64_t* end) const {
    const int64_t* pads = nullptr;
    int64_t count = 0;
    if (ctx.has_input(1)) {
      const Tensor& p = ctx.input(1);
      if (p.dtype() != DType::Int64 || p.rank() > 1) return false;
      pads = p.data<int64_t>(), count = p.numel();
    } else if (has_attr_pads_) {
      pads = attr_pads_.data(), count = static_cast<int64_t>(attr_pads_.size());
    } else {
      return false;
    }
    if (!ctx.has_input(3)) {
      if (count != 2 * rank) return false;
      for (int64_t d = 0; d < rank; ++d) begin[d] = pads[d], end[d] = pads[rank + d];
      return true;
    }
    const Tensor& a = ctx.input(3);
    if (a.dtype() != DType::Int64 || a.rank() > 1 || count != 2 * a.numel()) return false;
    const int64_t n = a.numel();
    uint32_t seen = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t axis = a.data<int64_t>()[i];
      if (axis < -rank || axis >= rank) return false;
      if (axis < 0) axis += rank;
      if (seen >> axis & 1) return false;  // repeated: the reference decides which one counts
      seen |= 1u << axis;
      begin[axis] = pads[i], end[axis] = pads[n + i];
    }
    return true;
  }

  void pad(const Tensor& x, Tensor& y, const int64_t* begin, const unsigned char* value) const {
    const int64_t rank = x.rank(), L = rank - 1;
    const Shape& in = x.shape();
    const Shape& out = y.shape();
    const size_t es = dtype_size(x.dtype());
    int64_t st[kMaxRank];
    st[L] = 1;
    for (int64_t d = L - 1; d >= 0; --d) st[d] = st[d + 1] * in[d + 1];
    int64_t rows = 1;
    for (int64_t d = 0; d < L; ++d) rows *= out[d];
    const int64_t W = out[L], n = in[L], b = begin[L];
    const int64_t lo = std::clamp<int64_t>(b, 0, W), hi = std::clamp<int64_t>(b + n, lo, W);  // kept part
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y.raw());
    const PadMode mode = mode_;
    auto row = [&](unsigned char* drow, const unsigned char* srow) {
      if (!srow) return fill(drow, W, value, es);
      if (hi > lo) std::memcpy(drow + lo * es, srow + (lo - b) * es, static_cast<size_t>(hi - lo) * es);
      if (mode == PadMode::Constant) {
        fill(drow, lo, value, es);
        fill(drow + hi * es, W - hi, value, es);
        return;
      }
      auto edge = [&](int64_t o) {
        const int64_t i = pad_source(o, b, n, mode);
        std::memcpy(drow + o * es, i < 0 ? value : srow + i * es, es);
      };
      for (int64_t o = 0; o < lo; ++o) edge(o);
      for (int64_t o = hi; o < W; ++o) edge(o);
    };
    parallel_chunks(rows, [&](int64_t r0, int64_t r1) {
      int64_t idx[kMaxRank] = {};
      for (int64_t d = L - 1, rem = r0; d >= 0; --d) idx[d] = rem % out[d], rem /= out[d];
      for (int64_t r = r0; r < r1; ++r) {
        int64_t off = 0;
        bool constant = false;
        for (int64_t d = 0; d < L && !constant; ++d) {
          const int64_t i = pad_source(idx[d], begin[d], in[d], mode);
          if (i < 0) constant = true;
          else off += i * st[d];
        }
        row(dst + static_cast<size_t>(r * W) * es, constant ? nullptr : src + static_cast<size_t>(off) * es);
        for (int64_t d = L - 1; d >= 0 && ++idx[d] == out[d]; --d) idx[d] = 0;
      }
    }, W);
  }

  PadMode mode_;
  std::vector<int64_t> attr_pads_;
  bool has_attr_pads_ = false;
  float value_ = 0;
};

std::unique_ptr<FastKernel> make_pad(const KernelBuildInfo& info) {
  const std::string& mode = info.attrs().attr_string("mode");
  PadMode m;
  if (mode == "constant") m = PadMode::Constant;
  else if (mode == "reflect") m = PadMode::Reflect;
  else if (mode == "edge") m = PadMode::Edge;
  else if (mode == "wrap") m = PadMode::Wrap;
  else return nullptr;
  return std::make_unique<FastPad>(m, info);
}

}  // namespace

void register_pad_kernels(FastKernelRegistry& r) { r.add("", "Pad", make_pad); }

}  // namespace ms::rt
