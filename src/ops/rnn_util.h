// Shared pieces of the recurrent ops (RNN, GRU, LSTM): activation functions, input unpacking with
// layout handling, and the time-step driver that applies direction and sequence_lens.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

using RnnActivation = std::function<double(double)>;

// Activation named as in ONNX ("Tanh", "Sigmoid", "Relu", "Affine", "LeakyRelu", ...); alpha/beta
// are taken from the iterators when the function uses them, else ONNX's defaults.
RnnActivation rnn_activation(const std::string& name, const float* alpha, const float* beta,
                             const std::string& who);

// Inputs of an RNN-family node, converted to double with layout 0 ([seq, batch, ...]).
struct RnnProblem {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, num_dir = 1;
  int gates = 1;
  std::vector<std::string> dirs;  // per direction: "forward" or "reverse"
  std::vector<double> X;          // [seq, batch, input]
  std::vector<double> W;          // [num_dir, gates*hidden, input]
  std::vector<double> R;          // [num_dir, gates*hidden, hidden]
  std::vector<double> B;          // [num_dir, 2*gates*hidden] (zeros when absent)
  std::vector<int64_t> seq_lens;  // [batch]
  std::vector<double> H0, C0;     // [num_dir, batch, hidden]
  std::vector<RnnActivation> acts;  // num_dir * acts_per_dir
  bool has_clip = false;
  double clip = 0;
  double clipped(double v) const { return has_clip ? std::min(std::max(v, -clip), clip) : v; }
  const RnnActivation& act(int64_t d, int k, int per_dir) const { return acts[d * per_dir + k]; }
};

// Reads X, W, R, B (input 3), sequence_lens (4), initial_h (5) and, when c_input >= 0, initial_c.
RnnProblem read_rnn_problem(const KernelContext& ctx, int gates, const std::vector<std::string>& default_acts,
                            int c_input);

// One time step of one direction for one batch row: x is [input], h and c are updated in place.
using RnnCell = std::function<void(int64_t dir, const double* x, std::vector<double>& h, std::vector<double>& c)>;

// Runs every direction and batch row over its sequence length and writes Y, Y_h and (when
// with_c) Y_c in the node's layout and X's dtype.
void run_rnn(KernelContext& ctx, const RnnProblem& p, const RnnCell& cell, bool with_c);

inline double rnn_dot(const double* a, const double* b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// Output types for Y, Y_h (and Y_c): dtype of X, dims from X, direction and hidden_size.
void infer_rnn(InferContext& ctx);

void register_rnn_schema(OpDef& def);  // common attributes and input/output counts

}  // namespace ms
