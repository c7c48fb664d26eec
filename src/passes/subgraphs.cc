#include "passes/subgraphs.h"

#include <algorithm>
#include <set>

#include "core/graph_reads.h"
#include "ops/infer_graph.h"

namespace ms::passes {
namespace {

// Names defined by the body itself.
std::set<std::string> defined_in(const Graph& g) {
  std::set<std::string> d;
  for (const auto& v : g.inputs) d.insert(v.name);
  for (const auto& [k, t] : g.initializers) d.insert(k);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) d.insert(o);
  return d;
}

// `root` is the model being optimized: domains the passes import for a body (com.mstools) are
// imported by it.
size_t optimize_body(Model& root, const GraphInference& inf, Graph& body, const std::set<std::string>& overridable,
                     const std::function<size_t(Model&)>& run_pipeline) {
  Model sub;
  sub.ir_version = root.ir_version;
  sub.opsets = root.opsets;
  sub.graph = body;
  const std::set<std::string> own = defined_in(body);
  std::set<std::string> reads;
  collect_graph_reads(body, reads);
  std::vector<std::string> added_inputs, added_inits;
  for (const auto& name : reads) {
    if (name.empty() || own.count(name)) continue;
    const Tensor* c = overridable.count(name) ? nullptr : inf.constant_of(body, name);
    if (c) {
      sub.graph.initializers[name] = *c;
      added_inits.push_back(name);
    } else {
      const TypeInfo* t = inf.type_of(body, name);
      sub.graph.inputs.push_back({name, t ? *t : TypeInfo{}});
      added_inputs.push_back(name);
    }
  }
  size_t rewrites = run_pipeline(sub);
  for (const auto& [domain, version] : sub.opsets) root.opsets[domain] = std::max(root.opsets[domain], version);
  // Nested bodies see this body's values as their outer scope.
  std::set<std::string> nested_overridable = overridable;
  for (const auto& v : sub.graph.inputs) nested_overridable.insert(v.name);
  const GraphInference sub_inf = infer_graph(sub);
  for (auto& n : sub.graph.nodes)
    for (auto& [k, a] : n.attrs) {
      if (a.g) rewrites += optimize_body(root, sub_inf, *a.g, nested_overridable, run_pipeline);
      for (auto& g : a.graphs) rewrites += optimize_body(root, sub_inf, *g, nested_overridable, run_pipeline);
    }
  sub.graph.inputs.resize(sub.graph.inputs.size() - added_inputs.size());
  for (const auto& name : added_inits) sub.graph.initializers.erase(name);
  body = std::move(sub.graph);
  return rewrites;
}

}  // namespace

size_t optimize_subgraphs(Model& m, const std::function<size_t(Model&)>& run_pipeline) {
  const GraphInference inf = infer_graph(m);
  std::set<std::string> overridable;
  for (const auto& v : m.graph.inputs) overridable.insert(v.name);
  size_t rewrites = 0;
  for (auto& n : m.graph.nodes)
    for (auto& [k, a] : n.attrs) {
      if (a.g) rewrites += optimize_body(m, inf, *a.g, overridable, run_pipeline);
      for (auto& g : a.graphs) rewrites += optimize_body(m, inf, *g, overridable, run_pipeline);
    }
  return rewrites;
}

}  // namespace ms::passes
