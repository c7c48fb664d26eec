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

  // Blocks of tensors that share bytes, formed in definition order: an output joins its input's
  // block as a view, or in place when no member of that block is read after this node.
  struct Block {
    size_t bytes = 0, offset = 0;
    int first_step = 0, last_step = 0;
    std::vector<std::string> members;
  };
  std::vector<Block> blocks;
  std::unordered_map<std::string, size_t> block_of;
  for (const auto& name : order) {
    const TensorPlacement& p = plan.placements[name];
    plan.total_bytes += p.bytes;
    bool joined = false;
    if (p.first_step >= 0 && g.nodes[p.first_step].outputs.front() == name) {
      const Node& n = g.nodes[p.first_step];
      const size_t s = static_cast<size_t>(p.first_step);
      for (size_t i = 0; i < n.inputs.size() && !joined; ++i) {
        auto it = block_of.find(n.inputs[i]);
        if (it == block_of.end() || plan.placements[n.inputs[i]].bytes != p.bytes) continue;
        Block& b = blocks[it->second];
        const bool view = opts.views_input && opts.views_input(s, i);
        if (!view && !(opts.may_overwrite_input && b.last_step == p.first_step && opts.may_overwrite_input(s, i))) continue;
        b.last_step = std::max(b.last_step, p.last_step);
        b.members.push_back(name);
        block_of[name] = it->second;
        plan.shares_with[name] = n.inputs[i];
        joined = true;
      }
    }
    if (!joined) {
      block_of[name] = blocks.size();
      blocks.push_back(Block{p.bytes, 0, p.first_step, p.last_step, {name}});
    }
  }

  // Lower bound for this sharing: bytes alive at each step.
  std::vector<size_t> live(end + 2, 0);
  for (const Block& b : blocks)
    for (int s = b.first_step; s <= b.last_step; ++s) live[s + 1] += b.bytes;
  plan.live_peak_bytes = live.empty() ? 0 : *std::max_element(live.begin(), live.end());

  // Greedy placement in a given order: each block at the lowest aligned offset free of the
  // already placed blocks whose lifetimes overlap its own. Returns the arena size.
  auto place = [&](const std::vector<size_t>& order, std::vector<size_t>& offsets) {
    size_t arena = 0;
    offsets.assign(blocks.size(), 0);
    std::vector<size_t> placed;
    for (size_t idx : order) {
      const Block& p = blocks[idx];
      std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of overlapping placed blocks
      for (size_t q : placed)
        if (blocks[q].first_step <= p.last_step && p.first_step <= blocks[q].last_step)
          busy.emplace_back(offsets[q], offsets[q] + blocks[q].bytes);
      std::sort(busy.begin(), busy.end());
      size_t offset = 0;
      for (const auto& [b, e] : busy) {
        if (b >= offset + p.bytes) break;  // fits in the gap before this block
        offset = std::max(offset, align_up(e, opts.alignment));
      }
      offsets[idx] = offset;
      arena = std::max(arena, offset + p.bytes);
      placed.push_back(idx);
    }
    return arena;
  };
  // No order is best for every graph: largest first, largest lifetime x size first, and earliest
  // first are tried and the smallest arena kept (ties: the earlier order; stable sorts keep
  // definition order among equals, so the plan is deterministic).
  std::vector<size_t> ids(blocks.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  auto area = [&](size_t i) { return blocks[i].bytes * static_cast<size_t>(blocks[i].last_step - blocks[i].first_step + 1); };
  std::vector<std::vector<size_t>> orders(3, ids);
  std::stable_sort(orders[0].begin(), orders[0].end(), [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });
  std::stable_sort(orders[1].begin(), orders[1].end(), [&](size_t a, size_t b) { return area(a) > area(b); });
  std::stable_sort(orders[2].begin(), orders[2].end(), [&](size_t a, size_t b) {
    return blocks[a].first_step != blocks[b].first_step ? blocks[a].first_step < blocks[b].first_step
                                                        : blocks[a].bytes > blocks[b].bytes;
  });
  std::vector<size_t> best, offsets;
  for (const auto& order : orders) {
    const size_t arena = place(order, offsets);
    if (best.empty() || arena < plan.arena_bytes) plan.arena_bytes = arena, best = offsets;
  }
  for (size_t i = 0; i < blocks.size(); ++i)
    for (const auto& m : blocks[i].members) plan.placements[m].offset = best[i];
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
