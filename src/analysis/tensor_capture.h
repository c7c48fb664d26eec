// Runs a model and hands back chosen intermediate tensors as well as its outputs. The tensors are
// exposed by appending them to a copy of the model's graph outputs, so the session executes the
// nodes of the original graph. A runtime may still compute differently once a tensor must be kept
// (a fast kernel cannot fuse across it), so the outputs come from the unmodified model and any bit
// that the exposed copy changes in them is reported.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"
#include "runtime/session.h"

namespace ms::analysis {

// A copy of `m` whose graph outputs are its own followed by `names` (those not already outputs).
Model expose_tensors(const Model& m, const std::vector<std::string>& names);

// An output whose value differs between the unmodified model and the copy with tensors exposed.
struct MarkingChange {
  std::string output;
  double max_abs = 0;  // largest element difference (infinite when the shapes or kinds differ)
};
std::vector<MarkingChange> output_changes(const std::vector<ValueInfo>& outputs, const std::vector<Value>& plain,
                                          const std::vector<Value>& exposed);

struct Capture {
  std::vector<Value> outputs;             // of the unmodified model, in graph order
  std::map<std::string, Value> tensors;   // the exposed tensors by name
  std::vector<MarkingChange> marking_changes;
};

class TensorCapture {
 public:
  TensorCapture(const Model& m, const std::vector<std::string>& names, SessionOptions opts = {});
  Capture run(const std::vector<Value>& feeds) const;

 private:
  std::unique_ptr<Session> plain_;
  std::unique_ptr<Session> exposed_;  // null when no tensor is exposed
};

}  // namespace ms::analysis
