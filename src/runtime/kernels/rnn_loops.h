// Vectorized inner loops of the recurrent fast kernels (LSTM, GRU, RNN), compiled three times
// (rnn_loops_avx512.cc, rnn_loops_avx2.cc, rnn_loops_generic.cc, each with its own target flags)
// from rnn_loops.inc; rnn_loops() picks the widest one the CPU supports, once.
//
// The recurrent weights are packed in blocks of `unit` hidden units (the vector width): a panel
// holds, for the gates a step needs, the weights of those units side by side, row k being hidden
// input k ([K][gates * unit], zero past the hidden size). One panel product gives every gate of a
// block of units, so the cell update follows at once, and threads can split a step by blocks.
#pragma once
#include <cstdint>

namespace ms::rt {

// One batch row and one block of n <= unit hidden units of a cell update. Per gate g, unit u:
// rec[g * unit + u] is h_prev . R^T from the panel product, x[g * hidden + u] the input projection
// with the biases that fold into it.
struct RnnCellArgs {
  const float* rec = nullptr;
  const float* x = nullptr;
  int64_t hidden = 0;
  int64_t n = 0;
  const float* h_prev = nullptr;  // previous hidden state of these units
  float* h = nullptr;             // new hidden state of these units
  float* c = nullptr;             // LSTM: cell state, updated in place
  const float* peep = nullptr;    // LSTM: peepholes i, o, f at peep[g * hidden + u] (zeros when absent)
  bool input_forget = false;      // LSTM: f = 1 - i
  float* z = nullptr;             // GRU: update gate (written by gru_zr, read by gru_h)
  float* rh = nullptr;            // GRU: r . h_prev (written by gru_zr, the input of the h-gate product)
  const float* rbh = nullptr;     // GRU with linear_before_reset: the h gate's recurrent bias
  float clip = 0;                 // gate inputs are clamped to [-clip, clip]; +inf = no clip
};

struct RnnLoops {
  const char* isa;
  int unit;  // hidden units per panel block
  // acc[r * gates * unit + j] = sum_k h[r * ldh + k] * panel[k * gates * unit + j], rows 1..4, gates 1..4.
  void (*panel_product)(const float* h, int64_t ldh, int rows, const float* panel, int64_t k, int gates, float* acc);
  // LSTM, gates i, o, f, c (ONNX's order): c = f.c + i.tanh(c~), h = o.tanh(c).
  void (*lstm_cell)(const RnnCellArgs& a);
  // GRU without linear_before_reset, first half (gates z, r): z, and r . h_prev for the h-gate product.
  void (*gru_zr)(const RnnCellArgs& a);
  // Second half (gate h): h = (1 - z) . tanh(x_h + (r . h_prev) R_h^T) + z . h_prev.
  void (*gru_h)(const RnnCellArgs& a);
  // GRU with linear_before_reset (gates z, r, h): h~ = tanh(x_h + r . (h_prev R_h^T + Rb_h)).
  void (*gru_lbr_cell)(const RnnCellArgs& a);
  // RNN: h = tanh(x + h_prev R^T).
  void (*rnn_cell)(const RnnCellArgs& a);
};

const RnnLoops& rnn_loops();

// The individual instruction-set builds (for tests and micro-benchmarks that compare them).
const RnnLoops& rnn_loops_generic();
const RnnLoops* rnn_loops_avx2();    // nullptr when the CPU lacks AVX2/FMA
const RnnLoops* rnn_loops_avx512();  // nullptr when the CPU lacks AVX-512F

}  // namespace ms::rt
