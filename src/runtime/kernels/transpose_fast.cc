// Transpose for any fixed-size dtype. Dims of size 1 are dropped and input dims that stay adjacent
// (and in order) in the output are merged, so most transposes become 2-D to 4-D. Then either the
// innermost dim does not move (a memcpy per output row) or it does (a tiled copy: 16x16 element
// tiles over the input's innermost dim and the output's innermost dim, so both the strided reads
// and the strided writes of a tile stay in L1).
#include "ops/shape_ops_util.h"
#include "runtime/kernels/datamove_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

constexpr int64_t kTile = 16;

// The transpose after dropping size-1 dims and merging adjacent runs: out dim d = in dim perm[d].
struct Collapsed {
  std::vector<int64_t> in_shape, perm;
};

Collapsed collapse(const Shape& shape, const std::vector<int64_t>& perm) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  // Renumber the input dims that are kept (size > 1).
  std::vector<int64_t> newidx(rank, -1);
  std::vector<int64_t> kept_shape;
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] != 1) newidx[d] = static_cast<int64_t>(kept_shape.size()), kept_shape.push_back(shape[d]);
  std::vector<int64_t> p;
  for (int64_t d : perm)
    if (newidx[d] >= 0) p.push_back(newidx[d]);
  // Merge runs: output positions whose input dims are consecutive (perm[k+1] == perm[k] + 1).
  std::vector<std::vector<int64_t>> groups;  // per output group, its input dims in order
  for (size_t k = 0; k < p.size(); ++k) {
    if (!groups.empty() && groups.back().back() + 1 == p[k]) groups.back().push_back(p[k]);
    else groups.push_back({p[k]});
  }
  // Groups in input order give the collapsed input dims.
  std::vector<size_t> order(groups.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
  Collapsed c;
  c.perm.assign(groups.size(), 0);
  for (size_t j = 0; j < order.size(); ++j) {
    int64_t n = 1;
    for (int64_t d : groups[order[j]]) n *= kept_shape[d];
    c.in_shape.push_back(n);
    c.perm[order[j]] = static_cast<int64_t>(j);
  }
  return c;
}

class FastTranspose : public FastKernel {
 public:
  explicit FastTranspose(std::optional<std::vector<int64_t>> perm) : perm_(std::move(perm)) {}
  const char* name() const override { return "transpose_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (!movable_dtype(x.dtype())) return false;
    const int64_t rank = x.rank();
    std::vector<int64_t> perm;
    if (perm_) {
      // Anything malformed goes to the reference, which reports it.
      if (static_cast<int64_t>(perm_->size()) != rank || rank == 0) return false;
      std::vector<bool> seen(rank, false);
      for (int64_t p : *perm_) {
        if (p < -rank || p >= rank) return false;
        if (p < 0) p += rank;
        if (seen[p]) return false;
        seen[p] = true;
        perm.push_back(p);
      }
    } else {
      for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    }
    Shape out_shape;
    for (int64_t p : perm) out_shape.push_back(x.shape()[p]);
    Tensor y = output_tensor(memory, 0, x.dtype(), out_shape);
    const size_t es = dtype_size(x.dtype());
    if (x.numel() > 0) transpose(x, y, perm, es);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  static void transpose(const Tensor& x, Tensor& y, const std::vector<int64_t>& perm, size_t es) {
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y.raw());
    const Collapsed c = collapse(x.shape(), perm);
    const int64_t r = static_cast<int64_t>(c.in_shape.size());
    if (r <= 1) {
      std::memcpy(dst, src, x.nbytes());
      return;
    }
    std::vector<int64_t> in_stride(r, 1), out_shape(r), out_stride(r, 1);
    for (int64_t d = r - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * c.in_shape[d + 1];
    for (int64_t d = 0; d < r; ++d) out_shape[d] = c.in_shape[c.perm[d]];
    for (int64_t d = r - 2; d >= 0; --d) out_stride[d] = out_stride[d + 1] * out_shape[d + 1];
    // Input stride of each output dim.
    std::vector<int64_t> src_stride(r);
    for (int64_t d = 0; d < r; ++d) src_stride[d] = in_stride[c.perm[d]];
    if (c.perm[r - 1] == r - 1) {
      rows_copy(src, dst, out_shape, src_stride, es);
      return;
    }
    tiled_copy(src, dst, out_shape, out_stride, src_stride, c.perm, es);
  }

  // Innermost dim unchanged: each output row is one contiguous input row.
  static void rows_copy(const unsigned char* src, unsigned char* dst, const std::vector<int64_t>& out_shape,
                        const std::vector<int64_t>& src_stride, size_t es) {
    const int64_t r = static_cast<int64_t>(out_shape.size());
    const int64_t row = out_shape[r - 1];
    int64_t rows = 1;
    for (int64_t d = 0; d < r - 1; ++d) rows *= out_shape[d];
    const size_t row_bytes = static_cast<size_t>(row) * es;
    parallel_chunks(rows, [&](int64_t b, int64_t e) {
      // An odometer over the row dims: divisions only once per chunk.
      std::vector<int64_t> idx(static_cast<size_t>(r - 1), 0);
      for (int64_t d = r - 2, rem = b; d >= 0; --d) idx[d] = rem % out_shape[d], rem /= out_shape[d];
      for (int64_t i = b; i < e; ++i) {
        int64_t off = 0;
        for (int64_t d = 0; d < r - 1; ++d) off += idx[d] * src_stride[d];
        std::memcpy(dst + static_cast<size_t>(i) * row_bytes, src + static_cast<size_t>(off) * es, row_bytes);
        for (int64_t d = r - 2; d >= 0 && ++idx[d] == out_shape[d]; --d) idx[d] = 0;
      }
    }, row);
  }

  // The output's innermost dim (last) reads the input with a stride; the input's innermost dim
  // lands at output dim q with a stride. Tiles of kTile x kTile over (q, last), parallel over
  // (other output dims) x (tiles of q).
  static void tiled_copy(const unsigned char* src, unsigned char* dst, const std::vector<int64_t>& out_shape,
                         const std::vector<int64_t>& out_stride, const std::vector<int64_t>& src_stride,
                         const std::vector<int64_t>& perm, size_t es) {
    const int64_t r = static_cast<int64_t>(out_shape.size());
    int64_t q = 0;
    while (perm[q] != r - 1) ++q;
    const int64_t nq = out_shape[q], nl = out_shape[r - 1];
    const int64_t sq_out = out_stride[q], sl_src = src_stride[r - 1];  // src stride of q is 1
    std::vector<int64_t> outer_dims;
    for (int64_t d = 0; d < r - 1; ++d)
      if (d != q) outer_dims.push_back(d);
    int64_t outer = 1;
    for (int64_t d : outer_dims) outer *= out_shape[d];
    const int64_t qtiles = (nq + kTile - 1) / kTile;
    auto body = [&](auto tag, int64_t b, int64_t e) {
      using T = decltype(tag);
      for (int64_t job = b; job < e; ++job) {
        const int64_t o = job / qtiles, q0 = (job % qtiles) * kTile;
        const int64_t q1 = std::min(nq, q0 + kTile);
        int64_t rem = o, soff = 0, doff = 0;
        for (auto it = outer_dims.rbegin(); it != outer_dims.rend(); ++it) {
          const int64_t i = rem % out_shape[*it];
          rem /= out_shape[*it];
          soff += i * src_stride[*it];
          doff += i * out_stride[*it];
        }
        const T* s = reinterpret_cast<const T*>(src) + soff;
        T* dd = reinterpret_cast<T*>(dst) + doff;
        // Locals, not captured references: stores through T* (uint8_t) could alias them.
        const int64_t nl_ = nl, sq = sq_out, sl = sl_src;
        for (int64_t l0 = 0; l0 < nl_; l0 += kTile) {
          const int64_t l1 = std::min(nl_, l0 + kTile);
          for (int64_t iq = q0; iq < q1; ++iq) {
            T* drow = dd + iq * sq;
            const T* scol = s + iq;
            for (int64_t il = l0; il < l1; ++il) drow[il] = scol[il * sl];
          }
        }
      }
    };
    const int64_t jobs = outer * qtiles;
    const int64_t cost = std::min(nq, kTile) * nl;
    const bool typed = dispatch_elem_size(es, [&](auto tag) {
      parallel_chunks(jobs, [&](int64_t b, int64_t e) { body(tag, b, e); }, cost);
    });
    if (typed) return;
    // Odd element sizes: the same walk, one memcpy per element.
    parallel_chunks(jobs, [&](int64_t b, int64_t e) {
      for (int64_t job = b; job < e; ++job) {
        const int64_t o = job / qtiles, q0 = (job % qtiles) * kTile, q1 = std::min(nq, q0 + kTile);
        int64_t rem = o, soff = 0, doff = 0;
        for (auto it = outer_dims.rbegin(); it != outer_dims.rend(); ++it) {
          const int64_t i = rem % out_shape[*it];
          rem /= out_shape[*it];
          soff += i * src_stride[*it];
          doff += i * out_stride[*it];
        }
        for (int64_t iq = q0; iq < q1; ++iq)
          for (int64_t il = 0; il < nl; ++il)
            std::memcpy(dst + static_cast<size_t>(doff + iq * sq_out + il) * es,
                        src + static_cast<size_t>(soff + iq + il * sl_src) * es, es);
      }
    }, cost);
  }

  std::optional<std::vector<int64_t>> perm_;
};

std::unique_ptr<FastKernel> make_transpose(const KernelBuildInfo& info) {
  std::optional<std::vector<int64_t>> perm;
  if (info.node.attr("perm")) perm = info.attrs().attr_ints("perm");
  return std::make_unique<FastTranspose>(std::move(perm));
}

}  // namespace

void register_transpose_kernels(FastKernelRegistry& r) { r.add("", "Transpose", make_transpose); }

}  // namespace ms::rt
