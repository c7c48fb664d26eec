#pragma once
#include <set>
#include <string>

#include "core/graph.h"

namespace ms::quant {

// A tensor name not used anywhere in the graph yet.
class Names {
 public:
  // Names of subgraphs count too: a body may read any outer name.
  explicit Names(const Graph& g) { add(g); }
  void add(const Graph& g) {
    for (const auto& [k, v] : g.initializers) used_.insert(k);
    for (const auto& v : g.inputs) used_.insert(v.name);
    for (const auto& n : g.nodes) {
      used_.insert(n.name);
      for (const auto& s : n.inputs) used_.insert(s);
      for (const auto& s : n.outputs) used_.insert(s);
      for (const auto& [k, a] : n.attrs) {
        if (a.g) add(*a.g);
        for (const auto& sg : a.graphs) add(*sg);
      }
    }
  }
  std::string fresh(const std::string& base) {
    std::string s = base;
    for (int k = 1; used_.count(s); ++k) s = base + "_" + std::to_string(k);
    used_.insert(s);
    return s;
  }

 private:
  std::set<std::string> used_;
};

}  // namespace ms::quant
