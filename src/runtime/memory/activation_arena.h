// The main graph's activations in one 64-byte aligned buffer, placed by the liveness plan
// (liveness_plan.h) for one set of input shapes, and the scratch buffer that kernels share.
//
// Kernels that are lent the arena write their outputs straight into their planned slots. Anything
// else that ends up pointing into the arena (a reference kernel's Reshape viewing its input, a
// sequence holding an input) is settled after the node: copied into its own slot, or onto the heap,
// because the bytes it views are reused once their owner dies. A node whose output came back as
// a view of its input is remembered, and the next plan lets the two share bytes. Graph outputs are
// never planned: they leave the session as heap tensors that later runs cannot touch.
// One run uses the arena at a time (the session locks it).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/value.h"
#include "runtime/memory/liveness_plan.h"

namespace ms::rt {

class ActivationArena {
 public:
  // Places the values `bytes_of` sizes (nullopt: they stay on the heap), sharing bytes as `opts`
  // allows. Keeps the buffer when it is large enough.
  void plan(const Graph& g, const std::function<std::optional<size_t>(const std::string&)>& bytes_of,
            const MemoryPlanOptions& opts);
  const MemoryPlan& current_plan() const { return plan_; }
  size_t bytes() const { return plan_.arena_bytes; }
  size_t scratch_bytes() const { return scratch_capacity_; }

  // A tensor over the slot of output `output` of node `node`; undefined when none is planned or
  // it holds fewer than `bytes`.
  Tensor slot_tensor(size_t node, size_t output, DType dtype, const Shape& shape, size_t bytes) const;
  bool contains(const void* p) const;
  // True when `p` is where output `output` of node `node` is planned to start.
  bool is_own_slot(size_t node, size_t output, const void* p) const;
  // At least `bytes` of temporaries, shared by all kernels (grows to the largest request).
  void* scratch(size_t bytes);

  // Makes output `output` of node `node` independent of memory that other values own: an arena
  // pointer that is not its own slot is copied into its slot (or onto the heap). Returns the index
  // of the input it was a plain view of, if any.
  std::optional<size_t> settle_output(size_t node, size_t output, Value& v, const std::vector<const Value*>& inputs) const;
  // Copies a graph output that still points into the arena onto the heap.
  void detach(Value& v) const;

 private:
  struct Slot {
    size_t offset = 0, bytes = 0;
    bool planned = false;
  };
  MemoryPlan plan_;
  std::vector<std::vector<Slot>> slots_;  // per node, per output
  std::shared_ptr<void> buffer_;
  size_t capacity_ = 0;
  std::shared_ptr<void> scratch_;
  size_t scratch_capacity_ = 0;
};

// The arena of a session and what it was planned for.
struct SessionArena {
  std::mutex mu;  // held by the run that uses the arena; a concurrent run goes without
  bool planned = false;
  std::vector<std::pair<DType, Shape>> planned_for;  // the feeds' dtypes and shapes
  std::unordered_map<std::string, size_t> sizes;     // value sizes for those feeds
  std::set<std::pair<size_t, size_t>> views;         // (node, input): output 0 came back as a view of it
  bool stale = false;                                // views were learned since the last plan
  ActivationArena arena;
};

// Brings the arena's plan up to date for `feeds` (bound to m's main-graph inputs in order): value
// sizes from shape inference with the feeds' shapes, `blocked` values at their channel-blocked
// size, graph outputs left out. Re-plans only when the feeds' dtypes or shapes changed or views
// were learned.
void update_arena_plan(SessionArena& a, const Model& m, const std::vector<Value>& feeds,
                       const std::set<std::string>& blocked,
                       const std::function<bool(size_t node, size_t input)>& may_overwrite_input);

}  // namespace ms::rt
