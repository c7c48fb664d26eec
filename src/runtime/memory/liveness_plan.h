// Liveness-based placement of a graph's activations in one arena.
//
// Every activation (node output; optionally graph inputs) lives from the node that produces it to
// the last node that reads it (a value read inside an If/Loop/Scan body counts as read by that
// node; graph outputs live to the end). Tensors whose lifetimes do not overlap may share bytes.
// Offsets come from the greedy-by-size heuristic: largest tensors first, each at the lowest
// aligned offset that does not collide with an already placed tensor whose lifetime overlaps.
// A node's output may share its input's bytes: in place (the input is dead after the node) or as a
// view (the output reads the input's bytes, so the two live as one block). Shared tensors form one
// block whose lifetime is the union of theirs.
// Used by the runtime's activation arena and by `ms optimize`'s memory report.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"

namespace ms {

struct GraphInference;

struct MemoryPlanOptions {
  size_t alignment = 64;
  bool include_graph_inputs = false;  // graph inputs usually live in caller-owned buffers
  // Values that are not activations (compile-time constants such as Constant node outputs).
  std::function<bool(const std::string&)> exclude;
  // Output 0 of node `node` may be computed into the bytes of its input `input` when nothing reads
  // that input afterwards and the two have the same size (elementwise kernels).
  std::function<bool(size_t node, size_t input)> may_overwrite_input;
  // Output 0 of node `node` is a view of its input `input` (same bytes, same size): they share
  // bytes whatever their lifetimes.
  std::function<bool(size_t node, size_t input)> views_input;
};

struct TensorPlacement {
  size_t offset = 0;
  size_t bytes = 0;
  int first_step = 0;  // index of the producing node (-1 for a graph input)
  int last_step = 0;   // index of the last reader (number of nodes for graph outputs)
};

struct MemoryPlan {
  std::unordered_map<std::string, TensorPlacement> placements;  // planned tensors by name
  size_t arena_bytes = 0;      // size of the arena the offsets index (the plan's peak)
  size_t total_bytes = 0;      // sum of the planned tensors' sizes: one buffer per tensor
  size_t live_peak_bytes = 0;  // max over steps of the bytes alive at once: no plan does better
  std::vector<std::string> unsized;  // activations of unknown size, left out of the plan
  // Outputs placed on an input's bytes (in place or as a view): output -> input.
  std::unordered_map<std::string, std::string> shares_with;
};

// `bytes_of(name)` gives a value's size in bytes, or nullopt when it is not static.
MemoryPlan plan_activation_memory(const Graph& g, const std::function<std::optional<size_t>(const std::string&)>& bytes_of,
                                  const MemoryPlanOptions& opts = {});
// Sizes from graph shape inference (infer_graph) of `m`'s main graph; values inference knows as
// constants are excluded.
MemoryPlan plan_activation_memory(const Model& m, const GraphInference& inf, const MemoryPlanOptions& opts = {});

}  // namespace ms
