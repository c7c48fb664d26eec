// The recurrent weights of an LSTM, GRU or RNN node rearranged for the fast kernels: R in panels of
// hidden-unit blocks (rnn_loops.h), the biases that can be added to the input projection folded
// into one vector, and the pieces the cells read directly (peepholes, GRU's reset-side bias).
#pragma once
#include <vector>

#include "core/tensor.h"

namespace ms::rt {

enum class RnnCellKind { Lstm, Gru, GruLinearBeforeReset, Rnn };

// Gates in W, R and B: LSTM 4 (i, o, f, c), GRU 3 (z, r, h), RNN 1.
int rnn_gate_count(RnnCellKind kind);
// The gates of R each phase of a step multiplies h by. All but GRU need one phase; GRU without
// linear_before_reset needs z and r before it can form r . h for the h gate.
std::vector<std::vector<int>> rnn_phases(RnnCellKind kind);

struct RnnWeights {
  int64_t dirs = 0, hidden = 0, blocks = 0;
  int unit = 0;
  std::vector<std::vector<int>> phases;
  // panels[d * phases + p]: [blocks][hidden][gates(p) * unit], zero past the hidden size.
  std::vector<Tensor> panels;
  Tensor bias;  // [dirs, gates * hidden]: Wb + Rb, added to X W^T (GRU-LBR's h gate: Wb only)
  Tensor peep;  // LSTM: [dirs, 3 * hidden], zeros when P is absent
  Tensor rbh;   // GRU-LBR: [dirs, hidden], Rb of the h gate

  const float* panel(int64_t d, size_t phase) const { return panels[d * phases.size() + phase].data<float>(); }
  int64_t panel_width(size_t phase) const { return static_cast<int64_t>(phases[phase].size()) * unit; }
};

// R [dirs, gates * hidden, hidden]; b [dirs, 2 * gates * hidden] and p [dirs, 3 * hidden] may be null.
// Shapes are the caller's to check. `unit` is RnnLoops::unit.
RnnWeights pack_rnn_weights(RnnCellKind kind, const Tensor& r, const Tensor* b, const Tensor* p, int unit);

}  // namespace ms::rt
