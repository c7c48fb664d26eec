#include "runtime/memory/liveness_plan.h"

#include <algorithm>
#include <set>
#include <cstdio>  // DEBUG-TEMP
#include <cstdlib>  // DEBUG-TEMP

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
        if (std::getenv("MS_ARENA_DEBUG")) fprintf(stderr, "cand node %d in %zu %s blast %d first %d ow %d\n", p.first_step, i, n.op_type.c_str(), b.last_step, p.first_step, opts.may_overwrite_input ? (int)opts.may_overwrite_input(s, i) : -1);  // DEBUG-TEMP
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

  // Greedy by size; ties broken by definition order so the plan is deterministic.
  std::vector<size_t> by_size(blocks.size());
  for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });
  std::vector<const Block*> placed;
  for (size_t idx : by_size) {
    Block& p = blocks[idx];
    std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of overlapping placed blocks
    for (const Block* q : placed)
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
    for (const auto& m : p.members) plan.placements[m].offset = offset;
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
