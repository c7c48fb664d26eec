#include "formats/onnx/opset_upgrade.h"

#include <onnx/defs/schema.h>

#include "formats/onnx/opset_upgrade_ctx.h"

namespace ms::onnx_format {

int UpgradeCtx::rank_of(const std::string& v) const {
  if (auto it = graph.initializers.find(v); it != graph.initializers.end()) return it->second.rank();
  const TypeInfo* t = inf_.type_of(graph, v);
  return t && t->shape ? int(t->shape->size()) : -1;
}

DType UpgradeCtx::dtype_of(const std::string& v) const {
  if (auto it = graph.initializers.find(v); it != graph.initializers.end()) return it->second.dtype();
  const TypeInfo* t = inf_.type_of(graph, v);
  return t && t->kind == TypeInfo::Kind::Tensor ? t->dtype : DType::Undefined;
}

const Tensor* UpgradeCtx::constant_of(const std::string& v) const {
  if (auto it = graph.initializers.find(v); it != graph.initializers.end()) return &it->second;
  return inf_.constant_of(graph, v);
}

std::string UpgradeCtx::fresh(const std::string& hint) {
  std::string s = hint;
  for (int k = 1; used_.count(s); ++k) s = hint + "_" + std::to_string(k);
  used_.insert(s);
  return s;
}

std::string UpgradeCtx::add_initializer(const std::string& hint, Tensor t) {
  std::string name = fresh(hint);
  graph.initializers[name] = std::move(t);
  return name;
}

Node& UpgradeCtx::add_node(bool in_front, const Node& from, const std::string& op, std::vector<std::string> inputs,
                           std::vector<std::string> outputs) {
  Node n;
  n.name = fresh((from.name.empty() ? op : from.name) + "_" + op);
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  auto& list = in_front ? before : after;
  list.push_back(std::move(n));
  return list.back();
}

void UpgradeCtx::unsupported(const Node& n, int version, const std::string& why) const {
  fail_unsupported("{}: cannot upgrade {} to opset 13: {}-{} {}", file_, n.label(), n.op_type, version, why);
}

Tensor scalar_of(DType dt, double v) {
  switch (dt) {
    case DType::Float32: return Tensor::scalar<float>(float(v));
    case DType::Float64: return Tensor::scalar<double>(v);
    case DType::Float16: return Tensor::scalar<float16_t>(float16_t(float(v)));
    case DType::BFloat16: return Tensor::scalar<bfloat16_t>(bfloat16_t(float(v)));
    case DType::Int8: return Tensor::scalar<int8_t>(int8_t(v));
    case DType::Int16: return Tensor::scalar<int16_t>(int16_t(v));
    case DType::Int32: return Tensor::scalar<int32_t>(int32_t(v));
    case DType::Int64: return Tensor::scalar<int64_t>(int64_t(v));
    case DType::UInt8: return Tensor::scalar<uint8_t>(uint8_t(v));
    case DType::UInt16: return Tensor::scalar<uint16_t>(uint16_t(v));
    case DType::UInt32: return Tensor::scalar<uint32_t>(uint32_t(v));
    case DType::UInt64: return Tensor::scalar<uint64_t>(uint64_t(v));
    default: fail_unsupported("opset upgrade: no scalar of dtype {}", dtype_name(dt));
  }
}

Tensor int64_vector(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {int64_t(v.size())}); }

bool drop_attr(Node& n, const std::string& key) { return n.attrs.erase(key) > 0; }

namespace {

// The versions of `op` after the one in effect at `from`, up to the one in effect at 13, ascending.
// Empty for an op ONNX does not define at `from` (another domain's op, or an unknown one: the
// runtime reports those itself).
std::vector<int> version_steps(const std::string& op, int64_t from) {
  auto* reg = onnx::OpSchemaRegistry::Instance();
  (void)reg;
  const onnx::OpSchema* at_from = onnx::OpSchemaRegistry::Schema(op, int(from), "");
  if (!at_from) return {};
  std::vector<int> steps;
  for (const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op, int(kInHouseUpgradeOpset), "");
       s && s->SinceVersion() > at_from->SinceVersion(); s = onnx::OpSchemaRegistry::Schema(op, s->SinceVersion() - 1, ""))
    steps.insert(steps.begin(), s->SinceVersion());
  return steps;
}

void collect_names(Graph& root, std::set<std::string>& used) {
  for_each_graph(root, [&](Graph& g) {
    for (const auto& [k, v] : g.initializers) used.insert(k);
    for (const auto& v : g.inputs) used.insert(v.name);
    for (const auto& n : g.nodes) {
      used.insert(n.name);
      used.insert(n.inputs.begin(), n.inputs.end());
      used.insert(n.outputs.begin(), n.outputs.end());
    }
  });
}

// Every node whose change is not classified, listed before anything is rewritten.
void check_all_handled(Graph& root, int64_t from, const std::string& file) {
  std::vector<std::string> bad;
  for_each_graph(root, [&](Graph& g) {
    for (const auto& n : g.nodes) {
      if (!n.domain.empty()) continue;
      for (int v : version_steps(n.op_type, from)) {
        const UpgradeStep st = find_upgrade_step(n.op_type, v);
        if (!st.known) {
          bad.push_back(fmt::format("{} ({}-{})", n.label(), n.op_type, v));
          break;
        }
        if (st.final_form) break;
      }
    }
  });
  if (bad.empty()) return;
  std::string list;
  for (size_t i = 0; i < bad.size() && i < 20; ++i) list += (i ? ", " : "") + bad[i];
  if (bad.size() > 20) list += fmt::format(", ... ({} in all)", bad.size());
  fail_unsupported("{}: cannot upgrade from opset {} to 13: the definition of these nodes' operators changed in a "
                   "way the upgrade does not rewrite: {}",
                   file, from, list);
}

bool same_form(const Node& a, const Node& b) {
  if (a.op_type != b.op_type || a.inputs != b.inputs || a.outputs != b.outputs || a.attrs.size() != b.attrs.size()) return false;
  for (auto ia = a.attrs.begin(), ib = b.attrs.begin(); ia != a.attrs.end(); ++ia, ++ib)
    if (ia->first != ib->first || ia->second.type != ib->second.type || ia->second.i != ib->second.i ||
        ia->second.s != ib->second.s || ia->second.ints != ib->second.ints || ia->second.floats != ib->second.floats)
      return false;
  return true;
}

void upgrade_graph(Graph& g, int64_t from, const GraphInference& inf, std::set<std::string>& used, const std::string& file,
                   size_t& rewritten) {
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    for (auto& [k, a] : n.attrs) {
      if (a.g) upgrade_graph(*a.g, from, inf, used, file, rewritten);
      for (auto& sg : a.graphs)
        if (sg) upgrade_graph(*sg, from, inf, used, file, rewritten);
    }
    if (!n.domain.empty()) {
      out.push_back(std::move(n));
      continue;
    }
    UpgradeCtx c(g, inf, used, file);
    const Node original = n;
    for (int v : version_steps(original.op_type, from)) {
      const UpgradeStep st = find_upgrade_step(original.op_type, v);
      if (!st.known) c.unsupported(original, v, "changed in a way this upgrade does not rewrite");
      if (st.adapt) st.adapt(n, c);
      if (st.final_form) break;
    }
    if (!c.before.empty() || !c.after.empty() || !same_form(original, n)) ++rewritten;
    for (auto& b : c.before) out.push_back(std::move(b));
    out.push_back(std::move(n));
    for (auto& a : c.after) out.push_back(std::move(a));
  }
  g.nodes = std::move(out);
}

}  // namespace

OpsetUpgrade upgrade_opset_to_13(Model& m) {
  OpsetUpgrade r;
  r.from = r.to = m.opset("");
  if (r.from <= 0 || r.from >= kInHouseUpgradeOpset) return r;
  check_all_handled(m.graph, r.from, m.source_path);
  // Types and constants of the model as loaded: rewrites read ranks and dtypes of original values,
  // which keep their meaning through the upgrade.
  const GraphInference inf = infer_graph(m);
  std::set<std::string> used;
  collect_names(m.graph, used);
  upgrade_graph(m.graph, r.from, inf, used, m.source_path, r.nodes_rewritten);
  m.opsets[""] = kInHouseUpgradeOpset;
  r.to = kInHouseUpgradeOpset;
  return r;
}

}  // namespace ms::onnx_format
