#include "core/printer.h"

#include <fmt/format.h>

namespace ms {
namespace {

std::string join_names(const std::vector<std::string>& v) {
  std::string r;
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + (v[i].empty() ? std::string("_") : v[i]);
  return r;
}

std::string attr_text(const Attribute& a) {
  switch (a.type) {
    case AttrType::Float: return fmt::format("{:g}", a.f);
    case AttrType::Int: return std::to_string(a.i);
    case AttrType::String: return "\"" + a.s + "\"";
    case AttrType::Floats: return fmt::format("[{:g}]", fmt::join(a.floats, ","));
    case AttrType::Ints: return fmt::format("[{}]", fmt::join(a.ints, ","));
    case AttrType::Strings: return fmt::format("[\"{}\"]", fmt::join(a.strings, "\",\""));
    case AttrType::Tensor: return "<" + std::string(dtype_name(a.t.dtype())) + shape_str(a.t.shape()) + ">";
    case AttrType::Graph: return "<graph " + (a.g ? a.g->name : std::string()) + ">";
    default: return "<" + std::string(attr_type_name(a.type)) + ">";
  }
}

}  // namespace

std::string graph_to_text(const Graph& g) {
  std::string s = "graph " + g.name + " (";
  for (size_t i = 0; i < g.inputs.size(); ++i) s += (i ? ", " : "") + g.inputs[i].name + ": " + g.inputs[i].type.str();
  s += ") -> (";
  for (size_t i = 0; i < g.outputs.size(); ++i) s += (i ? ", " : "") + g.outputs[i].name;
  s += ")\n";
  for (const auto& [name, t] : g.initializers) s += "  init " + name + ": " + std::string(dtype_name(t.dtype())) + shape_str(t.shape()) + "\n";
  for (const auto& n : g.nodes) {
    s += "  " + join_names(n.outputs) + " = " + (n.domain.empty() ? "" : n.domain + ".") + n.op_type + "(" + join_names(n.inputs) + ")";
    if (!n.attrs.empty()) {
      std::string a;
      for (const auto& [k, v] : n.attrs) a += (a.empty() ? "" : ", ") + k + "=" + attr_text(v);
      s += " {" + a + "}";
    }
    s += "\n";
  }
  return s;
}

}  // namespace ms
