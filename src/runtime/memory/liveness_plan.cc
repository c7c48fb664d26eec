#include "runtime/memory/liveness_plan.h"

#include <algorithm>
#include <set>

#include "core/graph_reads.h"
#include "ops/infer_graph.h"

namespace ms {
namespace {

size_t align_up(size_t v, size_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

MemoryPlan plan_activation_memory(const Graph& g, const std::function<std::optional<size_t>(const std::string&)>& bytes_of,
                                  const MemoryPlanOptions& opts) {
  MemoryPlan plan;
  const int end = static_cast<int>(g.nodes.size());
  std::vector<std::string> order;  // planned names in definition order
  auto define = [&](const std::string& name, int step) {
    if (name.empty() || g.initializers.count(name) || plan.placements.count(name) || (opts.exclude && opts.exclude(name))) return;
    std::optional<size_t> b = bytes_of(name);
    if (!b) {
      plan.unsized.push_back(name);
      return;
    }
    plan.placements[name] = TensorPlacement{0, *b, step, step};
    order.push_back(name);
  };
  if (opts.include_graph_inputs)
    for (const auto& v : g.inputs) define(v.name, -1);
  for (int s = 0; s < end; ++s)
    for (const auto& o : g.nodes[s].outputs) define(o, s);
  auto read = [&](const std::string& name, int step) {
    auto it = plan.placements.find(name);
    if (it != plan.placements.end()) it->second.last_step = std::max(it->second.last_step, step);
  };
  for (int s = 0; s < end; ++s) {
    const Node& n = g.nodes[s];
    for (const auto& i : n.inputs) read(i, s);
    for (const auto& i : subgraph_reads(n)) read(i, s);
  }
  for (const auto& o : g.outputs) read(o.name, end);

  // Lower bound: bytes alive at each step.
  std::vector<size_t> live(end + 2, 0);
  for (const auto& [name, p] : plan.placements) {
    plan.total_bytes += p.bytes;
    for (int s = p.first_step; s <= p.last_step; ++s) live[s + 1] += p.bytes;
  }
  plan.live_peak_bytes = live.empty() ? 0 : *std::max_element(live.begin(), live.end());

  // Greedy by size; ties broken by definition order so the plan is deterministic.
  std::vector<std::string> by_size = order;
  std::stable_sort(by_size.begin(), by_size.end(), [&](const std::string& a, const std::string& b) {
    return plan.placements[a].bytes > plan.placements[b].bytes;
  });
  std::vector<const TensorPlacement*> placed;
  for (const auto& name : by_size) {
    TensorPlacement& p = plan.placements[name];
    std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of overlapping placed tensors
    for (const TensorPlacement* q : placed)
      if (q->first_step <= p.last_step && p.first_step <= q->last_step) busy.emplace_back(q->offset, q->offset + q->bytes);
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [b, e] : busy) {
      if (b >= offset + p.bytes) break;  // fits in the gap before this block
      offset = std::max(offset, align_up(e, opts.alignment));
    }
    p.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + p.bytes);
    placed.push_back(&p);
  }
  return plan;
}

MemoryPlan plan_activation_memory(const Model& m, const GraphInference& inf, const MemoryPlanOptions& opts) {
  const Graph& g = m.graph;
  MemoryPlanOptions o = opts;
  if (!o.exclude) o.exclude = [&](const std::string& name) { return inf.constant_of(g, name) != nullptr; };
  return plan_activation_memory(
      g,
      [&](const std::string& name) -> std::optional<size_t> {
        const TypeInfo* t = inf.type_of(g, name);
        if (!t || t->kind != TypeInfo::Kind::Tensor || !t->has_static_shape() || t->dtype == DType::String ||
            t->dtype == DType::Undefined)
          return std::nullopt;
        return static_cast<size_t>(shape_numel(t->static_shape())) * dtype_size(t->dtype);
      },
      o);
}

}  // namespace ms
