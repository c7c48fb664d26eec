// What the opset-13 upgrade's per-operator rewrites (opset_adapters_*.cc) share: the node's graph,
// the original model's inferred types and constants, fresh names, and the nodes to insert around
// the rewritten one.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "ops/infer_graph.h"

namespace ms::onnx_format {

class UpgradeCtx {
 public:
  UpgradeCtx(Graph& g, const GraphInference& inf, std::set<std::string>& used, std::string file)
      : graph(g), inf_(inf), used_(used), file_(std::move(file)) {}

  Graph& graph;
  std::vector<Node> before;  // inserted in front of the rewritten node, in order
  std::vector<Node> after;   // inserted after it

  // Inferred on the model as it was loaded (the rewrites keep every original value's meaning).
  int rank_of(const std::string& value) const;   // -1 when unknown
  DType dtype_of(const std::string& value) const;  // Undefined when unknown
  const Tensor* constant_of(const std::string& value) const;

  std::string fresh(const std::string& hint);
  // Adds `t` as an initializer of the node's graph under a fresh name; returns the name.
  std::string add_initializer(const std::string& hint, Tensor t);
  // A node of the default domain, named from the rewritten node, appended to `before` or `after`.
  Node& add_node(bool in_front, const Node& from, const std::string& op, std::vector<std::string> inputs,
                 std::vector<std::string> outputs);

  [[noreturn]] void unsupported(const Node& n, int version, const std::string& why) const;

 private:
  const GraphInference& inf_;
  std::set<std::string>& used_;
  std::string file_;
};

// Takes a node from the version before `since` to the form of version `since`.
using Adapter = void (*)(Node& n, UpgradeCtx& c);

struct UpgradeStep {
  bool known = false;        // the change at `since` is classified
  Adapter adapt = nullptr;   // nullptr: every model of the older version means the same at `since`
  bool final_form = false;   // the adapter writes the opset-13 form (possibly another op): stop here
};
UpgradeStep find_upgrade_step(const std::string& op, int since);

// A scalar of `dt` holding `v` (attributes that become inputs carry the input's dtype).
Tensor scalar_of(DType dt, double v);
Tensor int64_vector(const std::vector<int64_t>& v);
// Removes attribute `key`; returns whether it was there.
bool drop_attr(Node& n, const std::string& key);

}  // namespace ms::onnx_format
