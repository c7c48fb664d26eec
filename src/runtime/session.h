// Executes a model with the reference kernels of the op registry. The session validates the graph
// once (every op known, every tensor reference resolved, node order topological) and frees each
// intermediate value after its last use.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"
#include "ops/op.h"

namespace ms {

struct SessionOptions {
  bool check_input_types = true;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Model> model, SessionOptions opts = {});
  ~Session();

  // The graph inputs a caller must or may feed (graph inputs that have an initializer are optional).
  const std::vector<ValueInfo>& inputs() const { return model_->graph.inputs; }
  const std::vector<ValueInfo>& outputs() const { return model_->graph.outputs; }
  bool input_has_default(size_t i) const;

  // `feeds` bind to graph inputs in order; fewer feeds than inputs is allowed only when the rest
  // have initializers. Returns the graph outputs in order.
  std::vector<Value> run(const std::vector<Value>& feeds) const;
  // Same, by name.
  std::vector<Value> run(const std::map<std::string, Value>& feeds) const;

  struct GraphPlan;

 private:
  std::shared_ptr<const Model> model_;
  SessionOptions opts_;
  std::map<const Graph*, std::unique_ptr<GraphPlan>> plans_;
};

// Throws Error(InvalidInput) when `v` does not fit the declared type of graph input `info`.
void check_input_value(const ValueInfo& info, const Value& v);

}  // namespace ms
