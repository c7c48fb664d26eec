// Loops over a sequence written as MindSpore writes a `while t < n` loop of a Cell (nn.RNN and
// nn.GRU on CPU, a Python loop over a tensor's first axis): tail recursion over function graphs,
//   header(t, s..., acc...) = Switch(t < n, body, exit)()
//   body() = header(t + 1, s'..., concat(acc, [y])...)   with (s', y) = step(t, s)
//   exit() = (s..., acc...)
// The reader turns that shape back into an IR Loop (mindir_reader.cc, read_loop). Scan, RNN and
// GRU are written with it (mindir_scan.cc, mindir_rnn_forms.cc).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

struct RecurrenceStep {
  std::vector<std::string> next;  // the next state, one per state
  std::vector<std::string> ys;    // this step's outputs, stacked along a new axis 0
  std::vector<Abstract> y_types;  // their element types (dtype and, for a static empty stack, dims)
};

struct Recurrence {
  std::string base;                  // name hint for the function graphs
  std::string length;                // reference to the number of steps, a 0-d int64 tensor
  std::vector<std::string> init;     // initial state
  std::vector<Abstract> init_types;  // its types (dtype needed: they type the header's inputs)
  // Initial (empty) stacks [0, element dims...], one per output; left empty, they are Constants
  // made from the static element types the step reports.
  std::vector<std::string> empty;
  // Outputs whose stack is built from the front, so that the step of the last index comes first
  // (a reverse scan direction).
  std::vector<bool> prepend;
  // Writes one step into the body function: t is the step index (0-d int64), state the current
  // state. Values of the enclosing graph may be referenced.
  std::function<RecurrenceStep(const std::string& t, const std::vector<std::string>& state)> step;
};

// Writes the recursion and its call; returns the final state followed by the stacked outputs.
std::vector<std::string> write_recurrence(WriteCtx& c, const Recurrence& r);

// Dim `axis` of the value `ref` (of type `type`) as a 0-d int64: a Constant when it is static.
std::string dim_as_scalar(WriteCtx& c, const std::string& ref, const Abstract& type, int64_t axis);

// Scan (opset 9+: scan axes and directions per input and output; opset 8: batched along axis 0).
void export_scan(WriteCtx& c);

// RNN and GRU as nn.RNN / nn.GRU write them: the cell in primitives inside the loop above, one
// loop per direction, sequence lengths by masking (MindSpore's variable_recurrent).
void export_rnn(WriteCtx& c);
void export_gru(WriteCtx& c);
// MindSpore's fused GRU primitives (CudnnGRU, GRUV2: one forward layer) read as an ONNX GRU.
RVal import_ms_gru(ReadCtx& c);

}  // namespace ms::mindir
