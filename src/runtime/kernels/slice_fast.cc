// Slice for any fixed-size dtype. The slice is split into iterated dims (each with a first index,
// a step and a count) and an inner block: the trailing dims that are taken whole, plus the last
// sliced dim when its step is 1. Each block is one memcpy; a stepped innermost dim is copied
// element by element. Parameters follow the reference (src/ops/slice.cc) exactly; anything the
// reference rejects (repeated axes, step 0, length mismatches) is declined so that it reports it.
#include "ops/shape_ops_util.h"
#include "runtime/kernels/datamove_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

class FastSlice : public FastKernel {
 public:
  const char* name() const override { return "slice_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    if (!movable_dtype(x.dtype()) || rank == 0) return false;
    auto starts = ints_input_or_attr(ctx, 1, "starts");
    auto ends = ints_input_or_attr(ctx, 2, "ends");
    auto axes = ints_input_or_attr(ctx, 3, "axes");
    auto steps = ints_input_or_attr(ctx, 4, "");
    if (!starts || !ends) return false;
    const size_t n = starts->size();
    if (ends->size() != n || (axes && axes->size() != n) || (steps && steps->size() != n)) return false;
    std::vector<int64_t> first(rank, 0), step(rank, 1);
    Shape out = x.shape();
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < n; ++i) {
      int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
      if (axis < -rank || axis >= rank) return false;
      if (axis < 0) axis += rank;
      if (seen[axis]) return false;
      seen[axis] = true;
      const int64_t s = steps ? (*steps)[i] : 1;
      if (s == 0) return false;
      auto [f, cnt] = clamp_slice((*starts)[i], (*ends)[i], s, x.shape()[axis]);
      first[axis] = f;
      step[axis] = s;
      out[axis] = cnt;
    }
    Tensor y = output_tensor(memory, 0, x.dtype(), out);
    if (y.numel() > 0) copy(x, y, first, step);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  static void copy(const Tensor& x, Tensor& y, const std::vector<int64_t>& first, const std::vector<int64_t>& step) {
    const int64_t rank = x.rank();
    const Shape& in = x.shape();
    const Shape& out = y.shape();
    const size_t es = dtype_size(x.dtype());
    std::vector<int64_t> st(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d) st[d] = st[d + 1] * in[d + 1];
    // k = first dim of the contiguous inner block: trailing whole dims, then one step-1 dim.
    int64_t k = rank;
    // Whole: every index in order (a full reversal also has count == dim, hence the other tests).
    while (k > 0 && out[k - 1] == in[k - 1] && first[k - 1] == 0 && (step[k - 1] == 1 || in[k - 1] == 1)) --k;
    int64_t block = 1;
    for (int64_t d = k; d < rank; ++d) block *= in[d];
    int64_t base = 0;  // offset of the block's start within its dims (all zero when whole)
    if (k > 0 && (step[k - 1] == 1 || out[k - 1] == 1)) {
      --k;
      block *= out[k];
      base = first[k] * st[k];
    }
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y.raw());
    if (k == 0) {
      std::memcpy(dst, src + static_cast<size_t>(base) * es, static_cast<size_t>(block) * es);
      return;
    }
    // Iterated dims 0..k-1; the last one (L = k-1) is the inner loop, with blocks `block` apart in
    // the output and step[L]*st[L] apart in the input.
    const int64_t L = k - 1, cnt = out[L], sstride = step[L] * st[L];
    int64_t rows = 1;
    for (int64_t d = 0; d < L; ++d) rows *= out[d];
    const size_t block_bytes = static_cast<size_t>(block) * es;
    parallel_chunks(rows, [&](int64_t b, int64_t e) {
      // An odometer over dims 0..L-1: divisions only once per chunk (they cost more than a short row).
      std::vector<int64_t> idx(static_cast<size_t>(L), 0);
      for (int64_t d = L - 1, rem = b; d >= 0; --d) idx[d] = rem % out[d], rem /= out[d];
      for (int64_t r = b; r < e; ++r) {
        int64_t off = base + first[L] * st[L];
        for (int64_t d = 0; d < L; ++d) off += (first[d] + idx[d] * step[d]) * st[d];
        for (int64_t d = L - 1; d >= 0 && ++idx[d] == out[d]; --d) idx[d] = 0;
        unsigned char* drow = dst + static_cast<size_t>(r * cnt) * block_bytes;
        const unsigned char* srow = src + static_cast<size_t>(off) * es;
        if (block == 1) {
          strided_gather(drow, srow, cnt, sstride, es);
        } else {
          for (int64_t i = 0; i < cnt; ++i)
            std::memcpy(drow + static_cast<size_t>(i) * block_bytes, srow + static_cast<size_t>(i * sstride) * es,
                        block_bytes);
        }
      }
    }, cnt * block);
  }
};

std::unique_ptr<FastKernel> make_slice(const KernelBuildInfo&) { return std::make_unique<FastSlice>(); }

}  // namespace

void register_slice_kernels(FastKernelRegistry& r) { r.add("", "Slice", make_slice); }

}  // namespace ms::rt
