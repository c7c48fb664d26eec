// Constant folding with the reference kernels: a node whose inputs are all initializers is run
// once in a one-node model and its outputs become initializers.
#include <memory>
#include <set>

#include "ops/op.h"
#include "passes/basic_passes.h"
#include "runtime/session.h"

namespace ms::passes {

namespace {

Tensor constant_value(const Node& n) {
  if (const Attribute* a = n.attr("value")) return a->t;
  if (const Attribute* a = n.attr("value_float")) return Tensor::scalar<float>(a->f);
  if (const Attribute* a = n.attr("value_int")) return Tensor::scalar<int64_t>(a->i);
  if (const Attribute* a = n.attr("value_floats")) return Tensor::from_vector<float>(a->floats, {static_cast<int64_t>(a->floats.size())});
  if (const Attribute* a = n.attr("value_ints")) return Tensor::from_vector<int64_t>(a->ints, {static_cast<int64_t>(a->ints.size())});
  return {};
}

bool foldable(const Node& n, const OpDef* def) {
  if (!def || !n.domain.empty()) return false;
  if (def->traits & (kTraitRandom | kTraitControlFlow | kTraitSequence | kTraitTraining)) return false;
  // An int8 weight read through DequantizeLinear is how a quantized model stores it (4x smaller,
  // and MindIR writes it as an int8 parameter with quant_params): folding would expand it to float.
  if (def->traits & kTraitQuantized) return false;
  for (const auto& [k, a] : n.attrs)
    if (a.type == AttrType::Graph || a.type == AttrType::Graphs) return false;
  return true;
}

}  // namespace

size_t fold_constants(Model& m) {
  Graph& g = m.graph;
  std::set<std::string> graph_inputs;
  for (const auto& v : g.inputs) graph_inputs.insert(v.name);
  auto is_const = [&](const std::string& v) { return v.empty() || (g.initializers.count(v) && !graph_inputs.count(v)); };
  size_t folded = 0;
  std::vector<Node> kept;
  for (auto& n : g.nodes) {
    if (n.op_type == "Constant" && n.domain.empty() && n.outputs.size() == 1) {
      Tensor t = constant_value(n);
      if (t.defined()) {
        g.initializers[n.outputs[0]] = t;
        ++folded;
        continue;
      }
    }
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    bool all_const = !n.inputs.empty();
    for (const auto& i : n.inputs) all_const = all_const && is_const(i);
    if (!all_const || !foldable(n, def)) {
      kept.push_back(std::move(n));
      continue;
    }
    try {
      auto one = std::make_shared<Model>();
      one->opsets = m.opsets;
      one->ir_version = m.ir_version;
      for (const auto& i : n.inputs)
        if (!i.empty()) one->graph.initializers[i] = g.initializers.at(i);
      for (const auto& o : n.outputs)
        if (!o.empty()) one->graph.outputs.push_back({o, {}});
      one->graph.nodes.push_back(n);
      Session s(one);
      auto outs = s.run(std::vector<Value>{});
      bool ok = true;
      for (const auto& v : outs) ok = ok && v.is_tensor();
      if (!ok) {
        kept.push_back(std::move(n));
        continue;
      }
      size_t k = 0;
      for (const auto& o : n.outputs)
        if (!o.empty()) g.initializers[o] = outs[k++].tensor;
      ++folded;
    } catch (const std::exception&) {
      kept.push_back(std::move(n));  // leave it to run time (and to its error message)
    }
  }
  g.nodes = std::move(kept);
  return folded;
}

}  // namespace ms::passes
