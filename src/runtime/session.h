// Executes a model. The session validates the graph once (every op known, every tensor reference
// resolved, node order topological), then compiles it: types inferred from the declared input
// shapes, and per node a fast kernel (runtime/kernels) when one accepts the node, else the op's
// reference kernel. Fast kernels plan per input shape (re-planned when a run brings new shapes) and
// prepack constant weights once. Statically sized intermediate values live in one activation arena
// planned by liveness for the feeds' shapes (runtime/memory/activation_arena.h); the rest are freed
// after their last use.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"
#include "ops/op.h"

namespace ms {

namespace rt {
struct SessionArena;
}

struct SessionOptions {
  bool check_input_types = true;
  // Only the reference kernels (the oracle): no fast kernels are selected.
  bool reference_kernels = false;
  // Threads of the one threading runtime (OpenMP, shared with oneDNN); 0 = its default.
  int num_threads = 0;
  // Place intermediate values in the liveness-planned arena (off: each is allocated on its own).
  bool activation_arena = true;
  // Fast kernels only: a quantized (QDQ) model runs its DequantizeLinear -> Conv/MatMul ->
  // QuantizeLinear chains on the int8 kernels, through a rewritten private copy of the graph
  // (runtime/quantized_graph.h; model() returns that copy). Off: the QDQ graph runs as written.
  bool int8_kernels = true;
  // Float16 or BFloat16: the fast Conv, MatMul and Gemm kernels (and their fused forms) read their
  // inputs and weights in that type and accumulate in float32, natively where the CPU and oneDNN
  // can (runtime/kernels/half_compute.h); every other op, and those on reference kernels, compute
  // in float32.
  DType compute_precision = DType::Float32;
};

// What one run did, node by node (main graph only; a control-flow node's time includes its
// subgraphs). Filled when the caller passes a RunProfile to run().
// NodeRun::kernel of a node on its op's reference kernel, and of an If/Loop/Scan node (whose
// bodies' nodes each choose their own kernel).
inline constexpr const char* kReferenceKernel = "reference";
inline constexpr const char* kControlFlowKernel = "control-flow";

struct NodeRun {
  size_t node_index = 0;
  std::string kernel;  // fast kernel name, kReferenceKernel or kControlFlowKernel
  double start_us = 0, duration_us = 0;  // from the start of the run
  std::vector<Shape> input_shapes, output_shapes;
  size_t live_bytes = 0;  // bytes of intermediate tensors alive right after the node ran, outside the arena
  size_t scratch_bytes = 0;  // the kernel's own temporaries
};
struct RunProfile {
  std::vector<NodeRun> nodes;
  double wall_us = 0;
  size_t arena_bytes = 0;  // the activation arena the run used (0: none)
  // Time of If/Loop/Scan body nodes that ran on reference kernels (part of their control-flow
  // node's duration above), so that a fallback inside a body is not hidden.
  double body_reference_us = 0;
};

// Hands chosen values to the caller as they are produced (calibration observes activations so):
// unlike extra graph outputs, they keep their arena slots and layouts, and each is seen while it is
// still in cache. Values of If/Loop/Scan bodies are seen too, each time the body runs.
struct ValueWatch {
  std::set<std::string> names;  // graph inputs and node outputs, of the main graph or a body
  // Called once per run and watched tensor value, in the plain row-major layout; the tensor is
  // valid only during the call.
  std::function<void(const std::string& name, const Tensor& value)> see;
  // Values of `blocked_names` that travel as float32 in the channel-blocked layout (rank 4,
  // rt::blocked_f32_desc: channels in blocks of `block`, 16 or 8, the last block zero-padded) go to
  // see_blocked as they lie, with their logical shape, instead of a plain copy to `see`: watching
  // them then costs no reorder.
  std::set<std::string> blocked_names;
  std::function<void(const std::string& name, const Tensor& value, int block)> see_blocked;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Model> model, SessionOptions opts = {});
  ~Session();

  // The graph inputs a caller must or may feed (graph inputs that have an initializer are optional).
  const std::vector<ValueInfo>& inputs() const { return model_->graph.inputs; }
  const std::vector<ValueInfo>& outputs() const { return model_->graph.outputs; }
  bool input_has_default(size_t i) const;
  // The graph the session executes (RunProfile::node_index counts its nodes): the model given, or
  // its rewritten copy (SessionOptions::int8_kernels).
  const Model& model() const { return *model_; }
  const SessionOptions& options() const { return opts_; }

  // `feeds` bind to graph inputs in order; fewer feeds than inputs is allowed only when the rest
  // have initializers. Returns the graph outputs in order.
  std::vector<Value> run(const std::vector<Value>& feeds, RunProfile* profile = nullptr,
                         const ValueWatch* watch = nullptr) const;
  // Same, by name.
  std::vector<Value> run(const std::map<std::string, Value>& feeds) const;
  // Bytes of the activation arena as planned for the latest run (0: none yet, or turned off).
  size_t arena_bytes() const;

  struct GraphPlan;

 private:
  std::shared_ptr<const Model> model_;
  SessionOptions opts_;
  std::map<const Graph*, std::unique_ptr<GraphPlan>> plans_;
  std::unique_ptr<rt::SessionArena> arena_;  // null when the options turn it off
};

// Throws Error(InvalidInput) when `v` does not fit the declared type of graph input `info`.
void check_input_value(const ValueInfo& info, const Value& v);

}  // namespace ms
