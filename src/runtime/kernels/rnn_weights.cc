#include "runtime/kernels/rnn_weights.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/onednn_util.h"

namespace ms::rt {

int rnn_gate_count(RnnCellKind kind) {
  switch (kind) {
    case RnnCellKind::Lstm: return 4;
    case RnnCellKind::Gru:
    case RnnCellKind::GruLinearBeforeReset: return 3;
    case RnnCellKind::Rnn: return 1;
  }
  return 1;
}

std::vector<std::vector<int>> rnn_phases(RnnCellKind kind) {
  switch (kind) {
    case RnnCellKind::Lstm: return {{0, 1, 2, 3}};
    case RnnCellKind::Gru: return {{0, 1}, {2}};
    case RnnCellKind::GruLinearBeforeReset: return {{0, 1, 2}};
    case RnnCellKind::Rnn: return {{0}};
  }
  return {};
}

namespace {
Tensor zeros(int64_t n) {
  Tensor t = uninit_tensor(DType::Float32, {n});
  std::memset(t.raw(), 0, static_cast<size_t>(n) * sizeof(float));
  return t;
}
}  // namespace

RnnWeights pack_rnn_weights(RnnCellKind kind, const Tensor& r, const Tensor* b, const Tensor* p, int unit) {
  RnnWeights w;
  const int G = rnn_gate_count(kind);
  w.dirs = r.dim(0);
  w.hidden = r.dim(2);
  w.unit = unit;
  w.blocks = (w.hidden + unit - 1) / unit;
  w.phases = rnn_phases(kind);
  const int64_t D = w.dirs, H = w.hidden, GH = G * H;
  const float* R = r.data<float>();

  for (int64_t d = 0; d < D; ++d)
    for (const auto& gates : w.phases) {
      const int64_t width = static_cast<int64_t>(gates.size()) * unit;
      Tensor panel = zeros(w.blocks * H * width);
      float* out = panel.data<float>();
      for (int64_t blk = 0; blk < w.blocks; ++blk)
        for (size_t gi = 0; gi < gates.size(); ++gi)
          for (int64_t u = 0; u < unit && blk * unit + u < H; ++u) {
            const float* row = R + (d * GH + gates[gi] * H + blk * unit + u) * H;  // R[d][gate j][:]
            float* col = out + blk * H * width + static_cast<int64_t>(gi) * unit + u;
            for (int64_t k = 0; k < H; ++k) col[k * width] = row[k];
          }
      w.panels.push_back(std::move(panel));
    }

  w.bias = zeros(D * GH);
  if (kind == RnnCellKind::GruLinearBeforeReset) w.rbh = zeros(D * H);
  if (b) {
    const float* B = b->data<float>();
    float* fold = w.bias.data<float>();
    for (int64_t d = 0; d < D; ++d)
      for (int64_t j = 0; j < GH; ++j) {
        const float wb = B[d * 2 * GH + j], rb = B[d * 2 * GH + GH + j];
        // r . (h R_h^T + Rb_h) scales Rb_h by r: it cannot join the input projection.
        const bool reset_side = kind == RnnCellKind::GruLinearBeforeReset && j >= 2 * H;
        fold[d * GH + j] = reset_side ? wb : wb + rb;
        if (reset_side) w.rbh.data<float>()[d * H + j - 2 * H] = rb;
      }
  }
  if (kind == RnnCellKind::Lstm) {
    w.peep = zeros(D * 3 * H);
    if (p) std::copy_n(p->data<float>(), D * 3 * H, w.peep.data<float>());
  }
  return w;
}

}  // namespace ms::rt
