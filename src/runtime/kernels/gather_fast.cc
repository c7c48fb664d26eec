// Gather for any fixed-size dtype: for each outer index (dims before the axis) and each index,
// one contiguous block of the inner dims is copied. Indices are checked before anything is
// written; a run with an out-of-range index is declined, so the reference reports it with its
// own message.
#include "ops/shape_ops_util.h"
#include "runtime/kernels/datamove_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

class FastGather : public FastKernel {
 public:
  explicit FastGather(int64_t axis) : axis_(axis) {}
  const char* name() const override { return "gather_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const int64_t rank = x.rank();
    if (rank == 0 || !movable_dtype(x.dtype()) || axis_ < -rank || axis_ >= rank) return false;
    if (indices.dtype() != DType::Int64 && indices.dtype() != DType::Int32) return false;
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    const int64_t dim = x.shape()[axis];
    std::vector<int64_t> idx(static_cast<size_t>(indices.numel()));
    if (indices.dtype() == DType::Int64) std::copy_n(indices.data<int64_t>(), idx.size(), idx.begin());
    else std::copy_n(indices.data<int32_t>(), idx.size(), idx.begin());
    for (int64_t& i : idx) {
      if (i < -dim || i >= dim) return false;
      if (i < 0) i += dim;
    }
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    out.insert(out.end(), indices.shape().begin(), indices.shape().end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    Tensor y = output_tensor(memory, 0, x.dtype(), out);
    const size_t es = dtype_size(x.dtype());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape()[d];
    const int64_t n = static_cast<int64_t>(idx.size());
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y.raw());
    const size_t block = static_cast<size_t>(inner) * es;
    if (y.numel() > 0) {
      auto rows = [&](auto tag, int64_t b, int64_t e) {
        using T = decltype(tag);
        // Locals, not captured references: byte stores may alias them and force a reload per element.
        unsigned char* const d = dst;
        const unsigned char* const s = src;
        const int64_t* const ix = idx.data();
        const int64_t nn = n, dd = dim;
        const size_t bl = block;
        // One-element blocks (a gather on the last axis) as typed loads and stores.
        for (int64_t j = b, o = b / nn, k = b % nn; j < e; ++j, k = k + 1 == nn ? (++o, 0) : k + 1) {
          const size_t from = static_cast<size_t>(o * dd + ix[k]) * bl;
          if constexpr (std::is_same_v<T, void*>) {
            std::memcpy(d + static_cast<size_t>(j) * bl, s + from, bl);
          } else {
            T v;
            std::memcpy(&v, s + from, sizeof(T));
            reinterpret_cast<T*>(d)[j] = v;
          }
        }
      };
      parallel_chunks(outer * n, [&](int64_t b, int64_t e) {
        if (inner != 1 || !dispatch_elem_size(es, [&](auto tag) { rows(tag, b, e); })) rows(static_cast<void*>(nullptr), b, e);
      }, inner);
    }
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  int64_t axis_;
};

std::unique_ptr<FastKernel> make_gather(const KernelBuildInfo& info) {
  const int64_t axis = info.node.attr("axis") ? info.attrs().attr_int("axis") : 0;
  return std::make_unique<FastGather>(axis);
}

}  // namespace

void register_gather_kernels(FastKernelRegistry& r) { r.add("", "Gather", make_gather); }

}  // namespace ms::rt
