// Rule family 2: graph structure (MC-GRAPH-*): references, outputs, duplicate names, cycles and
// order, dead nodes and isolated subgraphs, unused initializers/inputs, empty graphs; subgraphs of
// If/Loop/Scan recursively, with the values of the enclosing graphs in scope.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "check/check.h"

namespace ms::check {

namespace {

using NameSet = std::unordered_set<std::string>;

// Names a (sub)graph reads from its enclosing scopes.
void outer_refs(const Graph& g, NameSet& out) {
  NameSet defined;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& [k, t] : g.initializers) defined.insert(k);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) defined.insert(o);
  auto use = [&](const std::string& s) {
    if (!s.empty() && !defined.count(s)) out.insert(s);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& [k, a] : n.attrs) {
      NameSet inner;
      if (a.g) outer_refs(*a.g, inner);
      for (const auto& sg : a.graphs)
        if (sg) outer_refs(*sg, inner);
      for (const auto& s : inner) use(s);
    }
  }
  for (const auto& o : g.outputs) use(o.name);
}

// Every value node `n` reads: its inputs and what its subgraphs read from outside.
std::vector<std::string> node_reads(const Node& n) {
  std::vector<std::string> r;
  for (const auto& i : n.inputs)
    if (!i.empty()) r.push_back(i);
  for (const auto& [k, a] : n.attrs) {
    NameSet inner;
    if (a.g) outer_refs(*a.g, inner);
    for (const auto& sg : a.graphs)
      if (sg) outer_refs(*sg, inner);
    r.insert(r.end(), inner.begin(), inner.end());
  }
  return r;
}

void check_graph(Context& ctx, const Graph& g, const NameSet& outer, bool is_main) {
  const size_t N = g.nodes.size();
  // --- definitions and duplicates
  std::unordered_map<std::string, size_t> producer;  // value -> node index
  NameSet graph_values;                              // inputs + initializers
  {
    NameSet seen_inputs;
    for (const auto& v : g.inputs) {
      if (!seen_inputs.insert(v.name).second)
        ctx.tensor_finding("MC-GRAPH-003", v.name, fmt::format("graph input '{}' is declared twice", v.name));
      graph_values.insert(v.name);
    }
    for (const auto& [k, t] : g.initializers) graph_values.insert(k);
  }
  std::unordered_map<std::string, size_t> node_names;
  for (size_t i = 0; i < N; ++i) {
    const Node& n = g.nodes[i];
    if (!n.name.empty()) {
      auto [it, fresh] = node_names.emplace(n.name, i);
      if (!fresh)
        ctx.node_finding("MC-GRAPH-004", g, i,
                         fmt::format("node name '{}' is also used by node #{} ({})", n.name, it->second,
                                     g.nodes[it->second].op_type));
    }
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      auto p = producer.find(o);
      if (p != producer.end()) {
        ctx.node_finding("MC-GRAPH-003", g, i,
                         fmt::format("output '{}' is already produced by node {} ({})", o, node_id(g, p->second),
                                     op_name(g.nodes[p->second])));
      } else if (graph_values.count(o)) {
        ctx.node_finding("MC-GRAPH-003", g, i,
                         fmt::format("output '{}' has the name of a graph input or initializer", o));
      } else {
        producer.emplace(o, i);
      }
    }
  }

  // --- references, order, cycles
  std::vector<std::vector<std::string>> reads(N);
  std::vector<std::vector<size_t>> deps(N);
  bool out_of_order = false;
  std::vector<size_t> late_consumers;
  for (size_t i = 0; i < N; ++i) {
    reads[i] = node_reads(g.nodes[i]);
    for (const auto& r : reads[i]) {
      auto p = producer.find(r);
      if (p != producer.end()) {
        deps[i].push_back(p->second);
        if (p->second >= i) {
          out_of_order = true;
          late_consumers.push_back(i);
        }
      } else if (!graph_values.count(r) && !outer.count(r)) {
        // Values a subgraph reads from outside are reported inside the subgraph, at the reading node.
        bool is_input = std::find(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end(), r) != g.nodes[i].inputs.end();
        if (is_input)
          ctx.node_finding("MC-GRAPH-001", g, i,
                           fmt::format("input '{}' is not produced by any node and is not a graph input or "
                                       "initializer",
                                       r));
      }
    }
  }
  bool has_cycle = false;
  if (out_of_order) {
    // Tarjan's strongly connected components; an SCC of size > 1 (or a self-loop) is a cycle.
    std::vector<int> index(N, -1), low(N, 0);
    std::vector<bool> on(N, false);
    std::vector<size_t> stack;
    int counter = 0;
    std::function<void(size_t)> strong = [&](size_t v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on[v] = true;
      for (size_t w : deps[v]) {
        if (index[w] < 0) {
          strong(w);
          low[v] = std::min(low[v], low[w]);
        } else if (on[w]) {
          low[v] = std::min(low[v], index[w]);
        }
      }
      if (low[v] == index[v]) {
        std::vector<size_t> comp;
        size_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on[w] = false;
          comp.push_back(w);
        } while (w != v);
        bool self = std::find(deps[v].begin(), deps[v].end(), v) != deps[v].end();
        if (comp.size() > 1 || self) {
          has_cycle = true;
          std::sort(comp.begin(), comp.end());
          std::string path;
          for (size_t k = 0; k < comp.size() && k < 8; ++k) path += (k ? " -> " : "") + node_id(g, comp[k]);
          if (comp.size() > 8) path += " -> ...";
          ctx.node_finding("MC-GRAPH-005", g, comp.front(),
                           fmt::format("node is part of a cycle of {} node(s): {} -> {}", comp.size(), path,
                                       node_id(g, comp.front())));
        }
      }
    };
    for (size_t v = 0; v < N; ++v)
      if (index[v] < 0) strong(v);
    if (!has_cycle) {
      std::sort(late_consumers.begin(), late_consumers.end());
      late_consumers.erase(std::unique(late_consumers.begin(), late_consumers.end()), late_consumers.end());
      for (size_t i : late_consumers) {
        std::string late;
        for (const auto& r : reads[i]) {
          auto p = producer.find(r);
          if (p != producer.end() && p->second >= i) {
            late = fmt::format("reads '{}' before node {} produces it", r, node_id(g, p->second));
            break;
          }
        }
        ctx.node_finding("MC-GRAPH-006", g, i, late);
      }
    }
  }

  // --- outputs and emptiness
  if (is_main && N == 0)
    ctx.tensor_finding("MC-GRAPH-011", g.name.empty() ? "graph" : g.name, "the graph has no nodes");
  if (g.outputs.empty())
    ctx.tensor_finding("MC-GRAPH-011", g.name.empty() ? "graph" : g.name,
                       is_main ? "the graph has no outputs" : "a subgraph has no outputs");
  for (const auto& o : g.outputs) {
    if (o.name.empty() || producer.count(o.name) || graph_values.count(o.name) || outer.count(o.name)) continue;
    auto w = ctx.where.find(&g);
    ctx.tensor_finding("MC-GRAPH-002", o.name,
                       fmt::format("graph output '{}' is not produced by any node{}", o.name,
                                   w != ctx.where.end() ? w->second : ""));
  }

  // --- liveness: dead nodes and isolated subgraphs
  std::vector<bool> live(N, false);
  {
    std::vector<size_t> work;
    for (const auto& o : g.outputs) {
      auto p = producer.find(o.name);
      if (p != producer.end() && !live[p->second]) {
        live[p->second] = true;
        work.push_back(p->second);
      }
    }
    while (!work.empty()) {
      size_t i = work.back();
      work.pop_back();
      for (size_t d : deps[i])
        if (!live[d]) {
          live[d] = true;
          work.push_back(d);
        }
    }
  }
  if (!has_cycle && !g.outputs.empty()) {
    // Components of dead nodes (connected through values produced and read among them).
    std::vector<int> comp(N, -1);
    int ncomp = 0;
    std::vector<std::vector<size_t>> users(N);
    for (size_t i = 0; i < N; ++i)
      for (size_t d : deps[i]) users[d].push_back(i);
    for (size_t s = 0; s < N; ++s) {
      if (live[s] || comp[s] >= 0) continue;
      std::vector<size_t> work{s};
      comp[s] = ncomp;
      while (!work.empty()) {
        size_t i = work.back();
        work.pop_back();
        auto visit = [&](size_t j) {
          if (!live[j] && comp[j] < 0) {
            comp[j] = ncomp;
            work.push_back(j);
          }
        };
        for (size_t d : deps[i]) visit(d);
        for (size_t u : users[i]) visit(u);
      }
      ++ncomp;
    }
    NameSet real_inputs;
    for (const auto& v : g.inputs)
      if (!g.initializers.count(v.name)) real_inputs.insert(v.name);
    for (int c = 0; c < ncomp; ++c) {
      std::vector<size_t> members;
      bool connected = false;
      for (size_t i = 0; i < N; ++i) {
        if (comp[i] != c) continue;
        members.push_back(i);
        for (const auto& r : reads[i]) {
          auto p = producer.find(r);
          if ((p != producer.end() && live[p->second]) || real_inputs.count(r) || outer.count(r)) connected = true;
        }
      }
      if (!connected && members.size() > 1) {
        std::string names;
        for (size_t k = 0; k < members.size() && k < 6; ++k) names += (k ? ", " : "") + node_id(g, members[k]);
        if (members.size() > 6) names += ", ...";
        ctx.node_finding("MC-GRAPH-008", g, members.front(),
                         fmt::format("{} nodes form a subgraph connected to neither the graph inputs nor its "
                                     "outputs: {}",
                                     members.size(), names));
      } else {
        for (size_t i : members)
          ctx.node_finding("MC-GRAPH-007", g, i,
                           connected ? "the node's outputs are not used by any graph output"
                                     : "the node reads no graph input and its outputs reach no graph output");
      }
    }
  }

  // --- unused initializers and inputs
  NameSet used;
  for (size_t i = 0; i < N; ++i)
    for (const auto& r : reads[i]) used.insert(r);
  for (const auto& o : g.outputs) used.insert(o.name);
  for (const auto& [k, t] : g.initializers)
    if (!used.count(k))
      ctx.tensor_finding("MC-GRAPH-009", k,
                         fmt::format("initializer '{}' ({} {}) is not used by any node{}", k, dtype_name(t.dtype()),
                                     shape_str(t.shape()), ctx.where.count(&g) ? ctx.where.at(&g) : ""));
  if (is_main)
    for (const auto& v : g.inputs)
      if (!used.count(v.name) && !g.initializers.count(v.name))
        ctx.tensor_finding("MC-GRAPH-010", v.name, fmt::format("graph input '{}' is not used by any node", v.name));

  // --- subgraphs, with everything visible here in scope
  NameSet inner_outer = outer;
  for (const auto& s : graph_values) inner_outer.insert(s);
  for (const auto& [s, i] : producer) inner_outer.insert(s);
  for (const auto& n : g.nodes)
    for (const auto& [k, a] : n.attrs) {
      if (a.g) check_graph(ctx, *a.g, inner_outer, false);
      for (const auto& sg : a.graphs)
        if (sg) check_graph(ctx, *sg, inner_outer, false);
    }
}

}  // namespace

void check_graph_structure(Context& ctx) { check_graph(ctx, ctx.model.graph, {}, true); }

}  // namespace ms::check
