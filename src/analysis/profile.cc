#include "analysis/profile.h"

#include <algorithm>
#include <map>

#include "ops/op_cost.h"
#include "report/atomic_file.h"
#include "report/text_table.h"

namespace ms {
namespace {

double shape_bytes(const Graph& g, const std::vector<Shape>& shapes, const std::vector<std::string>& names) {
  double b = 0;
  for (size_t i = 0; i < shapes.size() && i < names.size(); ++i) {
    if (names[i].empty()) continue;
    // Element size: float32 unless the value is an initializer of another dtype (close enough for
    // activations, which are float in the models profiled; exact for weights).
    auto init = g.initializers.find(names[i]);
    const size_t es = init != g.initializers.end() ? dtype_size(init->second.dtype()) : 4;
    b += static_cast<double>(shape_numel(shapes[i])) * static_cast<double>(es);
  }
  return b;
}

std::string fmt_bytes(double b) {
  if (b >= 1 << 20) return fmt::format("{:.1f} MB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.1f} KB", b / (1 << 10));
  return fmt::format("{:.0f} B", b);
}

}  // namespace

ProfileSummary summarize_profile(const Model& model, const std::vector<RunProfile>& runs) {
  const Graph& g = model.graph;
  const auto& reg = OpRegistry::global();
  ProfileSummary p;
  p.runs = runs.size();
  for (const auto& [name, t] : g.initializers) p.weight_bytes += t.nbytes();
  if (runs.empty()) return p;
  p.nodes.resize(g.nodes.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    p.nodes[k].node_index = k;
    p.nodes[k].name = g.nodes[k].name;
    p.nodes[k].op_type = g.nodes[k].domain.empty() ? g.nodes[k].op_type : g.nodes[k].domain + "." + g.nodes[k].op_type;
  }
  for (const auto& run : runs) {
    p.wall_ms += run.wall_us / 1000.0;
    p.arena_bytes = std::max(p.arena_bytes, run.arena_bytes);
    for (const auto& r : run.nodes) {
      NodeProfile& np = p.nodes[r.node_index];
      const Node& node = g.nodes[r.node_index];
      np.ms += r.duration_us / 1000.0;
      np.kernel = r.kernel;
      np.scratch_bytes = std::max(np.scratch_bytes, r.scratch_bytes);
      p.arena_peak_bytes = std::max(p.arena_peak_bytes, run.arena_bytes + r.live_bytes);
      if (&run == &runs.front()) {
        const OpDef* def = reg.find(node.domain, node.op_type);
        np.flops = def ? op_flops(node, *def, r.input_shapes, r.output_shapes) : 0;
        np.bytes = shape_bytes(g, r.input_shapes, node.inputs) + shape_bytes(g, r.output_shapes, node.outputs);
      }
    }
  }
  const double n = static_cast<double>(runs.size());
  p.wall_ms /= n;
  for (const auto& run : runs) p.reference_ms += run.body_reference_us / 1000.0 / n;
  std::map<std::string, OpTypeProfile> types;
  for (auto& np : p.nodes) {
    np.ms /= n;
    p.node_sum_ms += np.ms;
    p.flops += np.flops;
    p.max_scratch_bytes = std::max(p.max_scratch_bytes, np.scratch_bytes);
    if (np.kernel == kReferenceKernel) {
      p.reference_ms += np.ms;
      ++p.reference_nodes;
    } else if (!np.kernel.empty() && np.kernel != kControlFlowKernel) {
      ++p.fast_nodes;
    }
    OpTypeProfile& t = types[np.op_type];
    t.op_type = np.op_type;
    ++t.count;
    t.ms += np.ms;
    t.flops += np.flops;
    t.bytes += np.bytes;
  }
  for (auto& np : p.nodes) np.share = p.node_sum_ms > 0 ? np.ms / p.node_sum_ms : 0;
  p.reference_share = p.node_sum_ms > 0 ? p.reference_ms / p.node_sum_ms : 0;
  for (auto& [name, t] : types) {
    t.share = p.node_sum_ms > 0 ? t.ms / p.node_sum_ms : 0;
    p.types.push_back(t);
  }
  std::sort(p.types.begin(), p.types.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  return p;
}

std::string profile_text(const ProfileSummary& p, size_t top_nodes) {
  std::string out;
  out += fmt::format("profile over {} run(s): wall {:.3f} ms, per-op sum {:.3f} ms ({:.1f}% of wall), {:.2f} GFLOP, {:.1f} GFLOP/s\n",
                     p.runs, p.wall_ms, p.node_sum_ms, p.wall_ms > 0 ? 100.0 * p.node_sum_ms / p.wall_ms : 0.0,
                     p.flops / 1e9, p.wall_ms > 0 ? p.flops / (p.wall_ms * 1e6) : 0.0);
  out += fmt::format("memory: activation peak {} (arena {}), weights {}, largest per-op temporary {}; {} of {} nodes on fast kernels\n\n",
                     fmt_bytes(static_cast<double>(p.arena_peak_bytes)), fmt_bytes(static_cast<double>(p.arena_bytes)),
                     fmt_bytes(static_cast<double>(p.weight_bytes)),
                     fmt_bytes(static_cast<double>(p.max_scratch_bytes)), p.fast_nodes, p.nodes.size());
  out.pop_back();
  out += fmt::format("reference kernels: {:.1f}% of the op time ({} nodes, {:.3f} ms; marked \"reference\" below)\n\n",
                     100 * p.reference_share, p.reference_nodes, p.reference_ms);
  report::TextTable types({"op type", "count", "time ms", "share", "GFLOP", "GFLOP/s", "bytes moved"});
  for (const auto& t : p.types)
    types.add_row({t.op_type, std::to_string(t.count), fmt::format("{:.3f}", t.ms), fmt::format("{:.1f}%", 100 * t.share),
                   fmt::format("{:.3f}", t.flops / 1e9), fmt::format("{:.1f}", t.gflops()), fmt_bytes(t.bytes)});
  out += types.render();
  std::vector<const NodeProfile*> order;
  for (const auto& np : p.nodes) order.push_back(&np);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->ms > b->ms; });
  if (top_nodes && order.size() > top_nodes) order.resize(top_nodes);
  report::TextTable nodes({"node", "op type", "kernel", "time ms", "share", "GFLOP", "GFLOP/s", "bytes moved", "temp"});
  for (const auto* np : order)
    nodes.add_row({np->name.empty() ? "#" + std::to_string(np->node_index) : np->name, np->op_type, np->kernel,
                   fmt::format("{:.3f}", np->ms), fmt::format("{:.1f}%", 100 * np->share),
                   fmt::format("{:.3f}", np->flops / 1e9), fmt::format("{:.1f}", np->gflops()), fmt_bytes(np->bytes),
                   fmt_bytes(static_cast<double>(np->scratch_bytes))});
  out += "\n" + nodes.render();
  return out;
}

nlohmann::json profile_json(const ProfileSummary& p) {
  nlohmann::json j;
  j["runs"] = p.runs;
  j["wall_ms"] = p.wall_ms;
  j["op_sum_ms"] = p.node_sum_ms;
  j["gflop"] = p.flops / 1e9;
  j["arena_peak_bytes"] = p.arena_peak_bytes;
  j["arena_bytes"] = p.arena_bytes;
  j["weight_bytes"] = p.weight_bytes;
  j["max_temporary_bytes"] = p.max_scratch_bytes;
  j["fast_nodes"] = p.fast_nodes;
  j["reference_nodes"] = p.reference_nodes;
  j["reference_kernel_share"] = p.reference_share;
  for (const auto& t : p.types)
    j["op_types"].push_back({{"op_type", t.op_type}, {"count", t.count}, {"ms", t.ms}, {"share", t.share},
                             {"flops", t.flops}, {"gflops", t.gflops()}, {"bytes", t.bytes}});
  for (const auto& np : p.nodes)
    j["nodes"].push_back({{"name", np.name}, {"op_type", np.op_type}, {"kernel", np.kernel}, {"ms", np.ms},
                          {"share", np.share}, {"flops", np.flops}, {"gflops", np.gflops()}, {"bytes", np.bytes},
                          {"temporary_bytes", np.scratch_bytes}});
  return j;
}

void write_chrome_trace(const Model& model, const RunProfile& run, const std::string& path) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "ms " + model.source_path}}}});
  events.push_back({{"name", "run"}, {"cat", "session"}, {"ph", "X"}, {"ts", 0.0}, {"dur", run.wall_us}, {"pid", 1}, {"tid", 1}});
  for (const auto& r : run.nodes) {
    const Node& n = model.graph.nodes[r.node_index];
    nlohmann::json args = {{"op_type", n.op_type}, {"kernel", r.kernel}};
    for (size_t i = 0; i < r.input_shapes.size(); ++i) args["input_" + std::to_string(i)] = shape_str(r.input_shapes[i]);
    for (size_t i = 0; i < r.output_shapes.size(); ++i) args["output_" + std::to_string(i)] = shape_str(r.output_shapes[i]);
    events.push_back({{"name", n.name.empty() ? n.op_type : n.name}, {"cat", n.op_type}, {"ph", "X"}, {"ts", r.start_us},
                      {"dur", r.duration_us}, {"pid", 1}, {"tid", 1}, {"args", args}});
  }
  nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  report::write_file_atomically(path, doc.dump(1));
}

}  // namespace ms
