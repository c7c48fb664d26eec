// Sizes and options for the session's activation arena (activation_arena.h).
#include "ops/infer_graph.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/memory/activation_arena.h"

namespace ms::rt {

void update_arena_plan(SessionArena& a, const Model& m, const std::vector<Value>& feeds,
                       const std::set<std::string>& blocked,
                       const std::function<bool(size_t node, size_t input)>& may_overwrite_input) {
  const Graph& g = m.graph;
  std::vector<std::pair<DType, Shape>> key;
  for (const auto& v : feeds) key.emplace_back(v.is_tensor() ? v.tensor.dtype() : DType::Undefined,
                                               v.is_tensor() ? v.tensor.shape() : Shape{});
  const bool new_shapes = !a.planned || key != a.planned_for;
  if (!new_shapes && !a.stale) return;
  if (new_shapes) {
    GraphInferOptions io;
    for (size_t i = 0; i < feeds.size() && i < g.inputs.size(); ++i)
      if (feeds[i].is_tensor()) io.input_shapes[g.inputs[i].name] = feeds[i].tensor.shape();
    GraphInference inf;
    try {
      inf = infer_graph(m, io);
    } catch (const std::exception&) {
      // Nothing sized: every value stays on the heap.
    }
    a.sizes.clear();
    auto it = inf.types.find(&g);
    if (it != inf.types.end())
      for (const auto& [name, t] : it->second) {
        if (t.kind != TypeInfo::Kind::Tensor || !t.has_static_shape() || t.dtype == DType::String ||
            t.dtype == DType::Undefined)
          continue;
        const Shape s = t.static_shape();
        size_t bytes = static_cast<size_t>(shape_numel(s)) * dtype_size(t.dtype);
        if (blocked.count(name) && s.size() == 4) bytes = std::max(bytes, blocked_f32_desc(s).get_size());
        a.sizes[name] = bytes;
      }
  }
  std::set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  MemoryPlanOptions opts;
  opts.exclude = [&](const std::string& name) { return outputs.count(name) > 0; };
  opts.may_overwrite_input = may_overwrite_input;
  opts.views_input = [&](size_t node, size_t input) { return a.views.count({node, input}) > 0; };
  a.arena.plan(
      g,
      [&](const std::string& name) -> std::optional<size_t> {
        auto it = a.sizes.find(name);
        if (it == a.sizes.end()) return std::nullopt;
        return it->second;
      },
      opts);
  a.planned = true;
  a.planned_for = std::move(key);
  a.stale = false;
}

}  // namespace ms::rt
