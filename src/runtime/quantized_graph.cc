#include "runtime/quantized_graph.h"

#include <algorithm>
#include <set>

#include "ops/op_call.h"
#include "passes/pass_list.h"

namespace ms::rt {
namespace {

bool is_dequantize(const Node& n) { return n.op_type == "DequantizeLinear" && n.domain.empty(); }

// DequantizeLinear nodes whose output nobody reads any more (the fused ops read the int8 tensor).
size_t remove_unread_dequantize(passes::Rewriter& rw) {
  std::vector<size_t> unread;
  for (size_t k = 0; k < rw.size(); ++k) {
    const Node& n = rw.node(k);
    if (is_dequantize(n) && n.outputs.size() == 1 && rw.consumers(n.outputs[0]).empty() && !rw.is_graph_output(n.outputs[0]))
      unread.push_back(k);
  }
  if (!unread.empty()) rw.replace(unread, {});
  return unread.size();
}

// DequantizeLinear of constant inputs becomes the float initializer it computes (with its
// reference kernel, the values the graph as written would compute on every run).
size_t fold_constant_dequantize(passes::Rewriter& rw) {
  std::vector<size_t> folded;
  std::vector<std::pair<std::string, Tensor>> values;
  for (size_t k = 0; k < rw.size(); ++k) {
    const Node& n = rw.node(k);
    if (!is_dequantize(n) || n.outputs.size() != 1 || rw.is_graph_output(n.outputs[0])) continue;
    std::vector<Tensor> in;
    for (const auto& name : n.inputs) {
      const Tensor* t = name.empty() ? nullptr : rw.constant(name);
      if (!t && !name.empty()) break;
      in.push_back(t ? *t : Tensor());
    }
    if (in.size() != n.inputs.size()) continue;
    values.emplace_back(n.outputs[0], call_reference(n.op_type, in, n.attrs, rw.opset(), n.name).at(0));
    folded.push_back(k);
  }
  for (auto& [name, t] : values) rw.set_initializer(name, std::move(t));
  if (!folded.empty()) rw.replace(folded, {});
  return folded.size();
}

// Initializers among `candidates` that nothing reads any more (the int8 inputs of folded
// DequantizeLinear nodes, the float biases QLinearConv replaced by int32 ones).
void drop_unread_initializers(passes::Rewriter& rw, const std::set<std::string>& candidates) {
  bool dropped = false;
  for (const auto& name : candidates)
    if (rw.constant(name) && rw.consumers(name).empty() && !rw.is_graph_output(name)) {
      rw.model().graph.initializers.erase(name);
      dropped = true;
    }
  if (dropped) rw.reindex();
}

}  // namespace

std::shared_ptr<const Model> prepare_quantized_graph(std::shared_ptr<const Model> m) {
  const auto& nodes = m->graph.nodes;
  if (std::none_of(nodes.begin(), nodes.end(), is_dequantize)) return m;
  auto copy = std::make_shared<Model>(*m);  // tensors share their storage: no weight is copied
  std::set<std::string> inits_before;
  for (const auto& [name, t] : copy->graph.initializers) inits_before.insert(name);
  size_t changes = 0;
  {
    passes::Rewriter rw(*copy, {});
    passes::PassStats stats;
    passes::make_fuse_quantized_conv()->run(rw, passes::PassContext{}, stats);
    changes += stats.rewrites;
    changes += remove_unread_dequantize(rw);
    changes += fold_constant_dequantize(rw);
    if (changes) drop_unread_initializers(rw, inits_before);
  }
  if (!changes) return m;
  return copy;
}

}  // namespace ms::rt
