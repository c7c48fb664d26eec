#include "runtime/kernels/binary_blocked.h"

#include <vector>

#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

enum class Form { Full, Scalar, PerChannel, Other };

Form form_of(const Tensor& t, const Shape& out) {
  const Shape& s = t.shape();
  if (s == out) return Form::Full;
  if (t.numel() == 1) return Form::Scalar;
  const bool channel_only = (s.size() == 4 && (s[0] == 1 || s[0] == out[0]) && s[1] == out[1] && s[2] == 1 && s[3] == 1) ||
                            (s.size() == 3 && s[0] == out[1] && s[1] == 1 && s[2] == 1);
  return channel_only ? Form::PerChannel : Form::Other;
}

// A per-channel operand as rows of padded_c values (one row per batch it holds), zero-padded. In
// the blocked layout a [n, C, 1, 1] tensor already has that form; the plain one has C per row.
std::vector<float> padded_channels(const Tensor& t, bool blocked, int64_t C, int64_t padded_c) {
  const int64_t rows = t.rank() == 4 ? t.dim(0) : 1;
  const int64_t stride = blocked ? padded_c : C;
  std::vector<float> v(static_cast<size_t>(rows * padded_c), 0.f);
  const float* p = t.data<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c) v[r * padded_c + c] = p[r * stride + c];
  return v;
}

}  // namespace

bool binary_blocked(BinaryOp op, const Tensor& a, bool a_blocked, const Tensor& b, bool b_blocked, const Shape& out,
                    float* y) {
  if (out.size() != 4 || shape_numel(out) == 0) return false;
  const Form fa = form_of(a, out), fb = form_of(b, out);
  if (fa == Form::Other || fb == Form::Other || (fa != Form::Full && fb != Form::Full)) return false;
  const dnnl::memory::desc md = blocked_f32_desc(out);
  const int64_t blk = md.data.format_desc.blocking.inner_blks[0];
  const int64_t N = out[0], C = out[1], HW = out[2] * out[3];
  const int64_t CB = (C + blk - 1) / blk;
  // A plain full-shape operand is brought into the blocked layout first.
  Tensor a_tmp, b_tmp;
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  if (fa == Form::Full && !a_blocked) {
    a_tmp = byte_buffer(md);
    reorder(plain_f32_desc(out), a.raw(), md, a_tmp.raw());
    pa = static_cast<const float*>(a_tmp.raw());
  }
  if (fb == Form::Full && !b_blocked) {
    b_tmp = byte_buffer(md);
    reorder(plain_f32_desc(out), b.raw(), md, b_tmp.raw());
    pb = static_cast<const float*>(b_tmp.raw());
  }
  const VecLoops& loops = vec_loops();
  const int o = static_cast<int>(op);
  const int64_t total = N * CB * HW * blk;
  if (fa != Form::PerChannel && fb != Form::PerChannel) {
    // Full with full or with a scalar: one contiguous run over the whole buffer, padding included.
    const Operands kind = fa == Form::Scalar ? Operands::ScalarA : fb == Form::Scalar ? Operands::ScalarB : Operands::BothVectors;
    const BinaryLoop loop = loops.binary[o][static_cast<int>(kind)];
    parallel_chunks(total, [&](int64_t begin, int64_t end) {
      loop(pa + (fa == Form::Full ? begin : 0), pb + (fb == Form::Full ? begin : 0), y + begin, end - begin);
    });
  } else {
    // Full with per channel: within a block the channel varies fastest, so each pixel's blk lanes
    // meet the blk channel values of their block.
    const bool a_channels = fa == Form::PerChannel;
    const Tensor& s = a_channels ? a : b;
    const std::vector<float> sv = padded_channels(s, a_channels ? a_blocked : b_blocked, C, CB * blk);
    const bool per_batch = s.rank() == 4 && s.dim(0) == N && N > 1;
    const float* full = a_channels ? pb : pa;
    const BinaryLoop loop = loops.binary[o][static_cast<int>(Operands::BothVectors)];
    parallel_chunks(N * CB, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / CB, cb = row % CB;
        const float* ch = sv.data() + (per_batch ? n * CB * blk : 0) + cb * blk;
        const float* x = full + row * HW * blk;
        float* yr = y + row * HW * blk;
        for (int64_t p = 0; p < HW; ++p)
          a_channels ? loop(ch, x + p * blk, yr + p * blk, blk) : loop(x + p * blk, ch, yr + p * blk, blk);
      }
    }, HW * blk);
  }
  // The layout's padding channels hold zeros (the invariant oneDNN's primitives keep).
  if (const int64_t tail = C % blk; tail) {
    for (int64_t n = 0; n < N; ++n) {
      float* last = y + ((n * CB) + CB - 1) * HW * blk;
      for (int64_t p = 0; p < HW; ++p)
        for (int64_t l = tail; l < blk; ++l) last[p * blk + l] = 0.f;
    }
  }
  return true;
}

}  // namespace ms::rt
