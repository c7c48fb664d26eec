#include "report/graph_dot.h"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "core/error.h"

namespace ms::report {

namespace {

std::string dot_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r;
}

void dot_graph(const Graph& g, const std::string& prefix, std::ostream& os, int& cluster) {
  std::map<std::string, std::string> producer;  // tensor -> dot node id
  if (prefix.empty()) {
    for (size_t k = 0; k < g.inputs.size(); ++k) {
      if (g.initializers.count(g.inputs[k].name)) continue;
      std::string id = fmt::format("in{}", k);
      os << fmt::format("  {} [shape=ellipse, label=\"{}\\n{}\"];\n", id, dot_escape(g.inputs[k].name), dot_escape(g.inputs[k].type.str()));
      producer[g.inputs[k].name] = id;
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string id = fmt::format("{}n{}", prefix, i);
    std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    os << fmt::format("  {} [shape=box, label=\"{}{}\"];\n", id, dot_escape(op), n.name.empty() ? "" : "\\n" + dot_escape(n.name));
    for (const auto& in : n.inputs) {
      auto p = producer.find(in);
      if (!in.empty() && p != producer.end()) os << fmt::format("  {} -> {} [label=\"{}\"];\n", p->second, id, dot_escape(in));
    }
    for (const auto& out : n.outputs)
      if (!out.empty()) producer[out] = id;
    for (const auto& [key, a] : n.attrs) {
      std::vector<const Graph*> subs;
      if (a.g) subs.push_back(a.g.get());
      for (const auto& sg : a.graphs) subs.push_back(sg.get());
      for (const Graph* sg : subs) {
        int c = cluster++;
        os << fmt::format("  subgraph cluster_{} {{\n  label=\"{}.{}\";\n", c, dot_escape(n.name.empty() ? op : n.name), dot_escape(key));
        dot_graph(*sg, fmt::format("{}c{}_", prefix, c), os, cluster);
        os << "  }\n";
      }
    }
  }
  if (prefix.empty())
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      std::string id = fmt::format("out{}", k);
      os << fmt::format("  {} [shape=ellipse, label=\"{}\"];\n", id, dot_escape(g.outputs[k].name));
      if (auto p = producer.find(g.outputs[k].name); p != producer.end())
        os << fmt::format("  {} -> {} [label=\"{}\"];\n", p->second, id, dot_escape(g.outputs[k].name));
    }
}

}  // namespace

void write_graph_dot(const Model& m, const std::string& path) {
  std::ofstream os(path);
  if (!os) fail("cannot write the Graphviz file {}", path);
  os << "digraph \"" << dot_escape(m.graph.name.empty() ? "graph" : m.graph.name) << "\" {\n  rankdir=TB;\n";
  int cluster = 0;
  dot_graph(m.graph, "", os, cluster);
  os << "}\n";
  if (!os) fail("cannot write the Graphviz file {}", path);
}

}  // namespace ms::report
