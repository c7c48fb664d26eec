// Rule family 4: types and shapes (MC-SHAPE-*, MC-TYPE-*): where graph inference fails, input
// dtypes against the ONNX type constraints, declared vs produced types, shape operands that are
// not known at compile time.
#include <onnx/defs/data_type_utils.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <unordered_map>

#include "check/check.h"
#include "check/schema_util.h"

namespace ms::check {

namespace {

std::string onnx_type_str(DType dt) {
  try {
    return "tensor(" + onnx::Utils::DataTypeUtils::ToDataTypeString(static_cast<int32_t>(dt)) + ")";
  } catch (const std::exception&) {
    return "";
  }
}

void check_type_constraints(Context& ctx, const Graph& g, size_t i, const Node& n) {
  const onnx::OpSchema* s = onnx_schema(ctx.model, n);
  if (!s) return;
  const auto& formals = s->inputs();
  if (formals.empty()) return;
  std::map<std::string, std::set<std::string>> allowed;
  for (const auto& tc : s->typeConstraintParams())
    allowed[tc.type_param_str].insert(tc.allowed_type_strs.begin(), tc.allowed_type_strs.end());
  std::map<std::string, std::pair<size_t, DType>> bound;  // type param -> first input and its dtype
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    size_t f = k;
    if (f >= formals.size()) {
      if (formals.back().GetOption() != onnx::OpSchema::Variadic) break;
      f = formals.size() - 1;
    }
    const TypeInfo* t = input_type(ctx, g, n, k);
    if (!t || t->dtype == DType::Undefined) continue;
    const std::string& ts = formals[f].GetTypeStr();
    std::string actual = onnx_type_str(t->dtype);
    if (actual.empty()) continue;
    auto al = allowed.find(ts);
    const std::set<std::string> literal = {ts};
    const std::set<std::string>& ok = al != allowed.end() ? al->second : literal;
    if (!ok.count(actual)) {
      std::string list;
      for (const auto& a : ok) list += (list.empty() ? "" : ", ") + a;
      ctx.node_finding("MC-TYPE-001", g, i,
                       fmt::format("input {} ('{}') is {} but {} accepts {} for it ({})", k, n.inputs[k],
                                   dtype_name(t->dtype), op_name(n), ts, list));
      return;
    }
    bool homogeneous = formals[f].GetOption() != onnx::OpSchema::Variadic || formals[f].GetIsHomogeneous();
    if (al == allowed.end() || !homogeneous) continue;
    auto [it, fresh] = bound.emplace(ts, std::make_pair(k, t->dtype));
    if (!fresh && it->second.second != t->dtype) {
      size_t j = it->second.first;
      ctx.node_finding("MC-TYPE-001", g, i,
                       fmt::format("input {} ('{}') is {} but input {} ('{}') is {}; {} requires both to have the same "
                                   "type {}",
                                   j, n.inputs[j], dtype_name(it->second.second), k, n.inputs[k], dtype_name(t->dtype),
                                   op_name(n), ts));
      return;
    }
  }
}

std::string dims(const TypeInfo& t) { return t.str(); }

}  // namespace

void check_types_shapes(Context& ctx) {
  // 1. input dtypes against the type constraints (a dtype clash also fails inference: say why).
  for_each_graph(ctx.model.graph, [&](const Graph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (!ctx.node_has_error(g, i)) check_type_constraints(ctx, g, i, g.nodes[i]);
  });
  // 2. inference failures, named at the first failing node of each chain.
  for (const auto& f : ctx.inference.failures) {
    if (ctx.node_has_error(*f.graph, f.node_index)) continue;  // schema/type rules said why already
    ctx.node_finding(f.inputs_static ? "MC-SHAPE-001" : "MC-SHAPE-003", *f.graph, f.node_index, f.message());
  }

  for_each_graph(ctx.model.graph, [&](const Graph& g) {
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const auto& o : n.outputs)
        if (!o.empty()) producer.emplace(o, i);
      // Reshape targets that are not known before run time.
      if (n.domain.empty() && n.op_type == "Reshape" && n.inputs.size() >= 2 && !n.inputs[1].empty() &&
          !ctx.inference.constant_of(g, n.inputs[1])) {
        const TypeInfo* out = n.outputs.empty() ? nullptr : ctx.inference.type_of(g, n.outputs[0]);
        if (!out || !out->has_static_shape())
          ctx.node_finding("MC-SHAPE-002", g, i,
                           fmt::format("the target shape '{}' is computed at run time (output {})", n.inputs[1],
                                       type_str(out)));
      }
    }
    // 3. declared types against produced ones.
    auto compare = [&](const ValueInfo& d, bool is_output) {
      auto p = producer.find(d.name);
      if (p == producer.end() || d.type.kind != TypeInfo::Kind::Tensor) return;
      const TypeInfo* t = ctx.inference.type_of(g, d.name);
      if (!t || t->kind != TypeInfo::Kind::Tensor) return;
      if (ctx.node_has_error(g, p->second)) return;
      if (d.type.dtype != DType::Undefined && t->dtype != DType::Undefined && d.type.dtype != t->dtype) {
        ctx.node_finding("MC-TYPE-002", g, p->second,
                         fmt::format("{} '{}' is declared {} but the node produces {}",
                                     is_output ? "graph output" : "value", d.name, dtype_name(d.type.dtype),
                                     dtype_name(t->dtype)));
        return;
      }
      if (!d.type.shape || !t->shape) return;
      bool bad = d.type.shape->size() != t->shape->size();
      for (size_t k = 0; !bad && k < t->shape->size(); ++k) {
        const Dim& a = (*d.type.shape)[k];
        const Dim& b = (*t->shape)[k];
        if (a.is_static() && b.is_static() && a.value != b.value) bad = true;
      }
      if (bad)
        ctx.node_finding("MC-SHAPE-004", g, p->second,
                         fmt::format("{} '{}' is declared {} but inference gives {}",
                                     is_output ? "graph output" : "value", d.name, dims(d.type), dims(*t)));
    };
    for (const auto& o : g.outputs) compare(o, true);
    for (const auto& v : g.value_info) compare(v, false);
  });
}

}  // namespace ms::check
