#include "ops/infer_graph.h"

#include <fmt/format.h>

#include "core/value.h"
#include "ops/op.h"

namespace ms {

namespace {

struct Scope {
  const Scope* parent = nullptr;
  std::unordered_map<std::string, TypeInfo>* types = nullptr;
  std::unordered_map<std::string, Tensor>* consts = nullptr;

  const TypeInfo* type(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->types->find(n);
      if (it != s->types->end()) return &it->second;
    }
    return nullptr;
  }
  const Tensor* constant(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->consts->find(n);
      if (it != s->consts->end()) return &it->second;
      if (s->types->count(n)) return nullptr;  // shadowed by a non-constant value
    }
    return nullptr;
  }
};

bool fully_static(const TypeInfo* t) {
  return t && t->kind == TypeInfo::Kind::Tensor && t->dtype != DType::Undefined && t->has_static_shape();
}

int64_t static_numel(const TypeInfo& t) {
  if (!t.has_static_shape()) return -1;
  int64_t n = 1;
  for (const Dim& d : *t.shape) n *= d.value;
  return n;
}

class Inferencer {
 public:
  Inferencer(const Model& m, const GraphInferOptions& o, GraphInference& out)
      : model_(m), opts_(o), out_(out), opset_(static_cast<int>(m.opset(""))) {}

  // `input_types`: types for the graph's inputs when the caller knows better than the declaration
  // (Loop body state); `guessed`: the graph's input types are not exact.
  void run(const Graph& g, const Scope* parent, const Graph* parent_graph,
           const std::vector<TypeInfo>& input_types, bool guessed) {
    auto& types = out_.types[&g];
    auto& consts = out_.constants[&g];
    out_.parent[&g] = parent_graph;
    Scope scope{parent, &types, &consts};

    std::unordered_map<std::string, const TypeInfo*> declared;
    for (const auto& v : g.value_info) declared[v.name] = &v.type;
    for (const auto& v : g.outputs) declared[v.name] = &v.type;

    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const ValueInfo& v = g.inputs[i];
      TypeInfo t = v.type;
      if (i < input_types.size() && input_types[i].kind != TypeInfo::Kind::Unknown &&
          (t.kind == TypeInfo::Kind::Unknown || (t.kind == TypeInfo::Kind::Tensor && !t.shape)))
        t = input_types[i];
      if (!parent_graph) {
        auto it = opts_.input_shapes.find(v.name);
        if (it != opts_.input_shapes.end() && t.kind != TypeInfo::Kind::Sequence)
          t = TypeInfo::tensor(t.dtype == DType::Undefined ? DType::Float32 : t.dtype, it->second);
      }
      types[v.name] = std::move(t);
    }
    for (const auto& [name, t] : g.initializers) {
      auto it = types.find(name);
      if (it == types.end() || it->second.kind == TypeInfo::Kind::Unknown ||
          !it->second.shape)
        types[name] = TypeInfo::tensor(t.dtype(), t.shape());
      consts[name] = t;
    }

    for (size_t ni = 0; ni < g.nodes.size(); ++ni) infer_node(g, ni, scope, declared, guessed);
  }

 private:
  void infer_node(const Graph& g, size_t ni, const Scope& scope,
                  const std::unordered_map<std::string, const TypeInfo*>& declared, bool guessed) {
    const Node& n = g.nodes[ni];
    auto& types = *scope.types;
    auto& consts = *scope.consts;
    auto set_unknown_or_declared = [&] {
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        auto d = declared.find(o);
        types[o] = d != declared.end() ? *d->second : TypeInfo{};
      }
    };

    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    std::vector<const TypeInfo*> in_types;
    std::vector<const Tensor*> in_consts;
    bool all_known = true, all_const = true, all_static = true;
    int64_t in_elems = 0;
    for (const auto& name : n.inputs) {
      if (name.empty()) {
        in_types.push_back(nullptr);
        in_consts.push_back(nullptr);
        continue;
      }
      const TypeInfo* t = scope.type(name);
      const Tensor* c = scope.constant(name);
      if (!t || t->kind == TypeInfo::Kind::Unknown) all_known = false;
      if (!c) all_const = false;
      else in_elems += c->numel();
      if (!fully_static(t)) all_static = false;
      in_types.push_back(t);
      in_consts.push_back(c);
    }
    if (!def || !all_known) {
      set_unknown_or_declared();
      return;
    }

    // Subgraphs first, so that their values are typed even when the node's own inference is poor.
    for (const auto& [an, a] : n.attrs) {
      if (a.type == AttrType::Graph && a.g) run_subgraph(n, *a.g, scope, &g, in_types);
      for (const auto& sg : a.graphs)
        if (sg) run_subgraph(n, *sg, scope, &g, in_types);
    }

    std::vector<TypeInfo> result(n.outputs.size());
    bool inferred = false;
    if (def->infer) {
      try {
        InferContext ctx(n, *def, opset_, in_types, in_consts);
        def->infer(ctx);
        result = std::move(ctx.output_types());
        result.resize(n.outputs.size());
        inferred = true;
      } catch (const std::exception& e) {
        InferFailure f;
        f.graph = &g;
        f.node_index = ni;
        f.node_name = n.name;
        f.op_type = n.op_type;
        f.domain = n.domain;
        f.reason = e.what();
        f.inputs_static = all_static && !guessed;
        std::string s;
        for (size_t i = 0; i < in_types.size(); ++i) {
          if (i) s += ", ";
          s += in_types[i] ? in_types[i]->str() : "(none)";
        }
        f.input_types = s;
        out_.failures.push_back(std::move(f));
        for (const auto& o : n.outputs)
          if (!o.empty()) types[o] = TypeInfo{};
        return;
      }
    }

    // Constant folding with the reference kernel.
    bool shape_only = (def->traits & kTraitShapeOnly) && !in_types.empty() && fully_static(in_types[0]);
    bool small_out = true;
    for (const auto& t : result) {
      int64_t ne = static_numel(t);
      if (inferred && t.kind == TypeInfo::Kind::Tensor && (ne < 0 || ne > opts_.fold_limit)) small_out = false;
    }
    bool has_graph = false;
    for (const auto& [an, a] : n.attrs)
      if (a.type == AttrType::Graph || a.type == AttrType::Graphs) has_graph = true;
    bool foldable = !(def->traits & (kTraitRandom | kTraitControlFlow)) && !has_graph && def->kernel &&
                    (n.inputs.empty() || (small_out && in_elems <= opts_.fold_limit));
    if (foldable && (all_const || shape_only)) {
      try {
        std::vector<Value> vals;
        vals.reserve(n.inputs.size());
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          if (in_consts[i]) vals.emplace_back(*in_consts[i]);
          else if (in_types[i] && shape_only)
            vals.emplace_back(Tensor::view(in_types[i]->dtype == DType::String ? DType::UInt8 : in_types[i]->dtype,
                                           in_types[i]->static_shape(), &dummy_, nullptr));
          else vals.emplace_back();
        }
        std::vector<const Value*> ptrs;
        for (size_t i = 0; i < n.inputs.size(); ++i) ptrs.push_back(n.inputs[i].empty() ? nullptr : &vals[i]);
        KernelContext kctx(n, *def, opset_, ptrs, nullptr);
        def->kernel(kctx);
        auto& outs = kctx.outputs();
        for (size_t i = 0; i < n.outputs.size() && i < outs.size(); ++i) {
          if (n.outputs[i].empty() || !outs[i].is_tensor()) continue;
          const Tensor& t = outs[i].tensor;
          consts[n.outputs[i]] = t;
          result[i] = TypeInfo::tensor(t.dtype(), t.shape());
        }
      } catch (const std::exception&) {
        // Folding is an optimisation of inference; a kernel that refuses leaves the types as inferred.
      }
    }

    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const std::string& o = n.outputs[i];
      if (o.empty()) continue;
      if (result[i].kind == TypeInfo::Kind::Unknown) {
        auto d = declared.find(o);
        if (d != declared.end()) result[i] = *d->second;
      }
      types[o] = std::move(result[i]);
    }
  }

  void run_subgraph(const Node& n, const Graph& body, const Scope& scope, const Graph* g,
                    const std::vector<const TypeInfo*>& in_types) {
    std::vector<TypeInfo> inputs(body.inputs.size());
    bool guessed = false;
    if (n.op_type == "Loop" && n.domain.empty() && body.inputs.size() >= 2) {
      // (iteration_num, condition, carried...) <- (M, cond, v_initial...).
      inputs[0] = TypeInfo::tensor(DType::Int64, std::vector<Dim>{});
      inputs[1] = TypeInfo::tensor(DType::Bool, std::vector<Dim>{});
      for (size_t i = 2; i < body.inputs.size() && i < in_types.size(); ++i)
        if (in_types[i]) inputs[i] = *in_types[i];
    } else if (n.op_type == "Scan" && n.domain.empty()) {
      // (state..., scan slices...) <- (initial state..., scan inputs with the scan axis).
      const Attribute* ms = n.attr("num_scan_inputs");
      const Attribute* axes = n.attr("scan_input_axes");
      size_t m = ms ? static_cast<size_t>(ms->i) : 0;
      if (m <= in_types.size() && body.inputs.size() == in_types.size()) {
        size_t ns = in_types.size() - m;
        for (size_t i = 0; i < in_types.size(); ++i) {
          if (!in_types[i]) continue;
          inputs[i] = *in_types[i];
          if (i >= ns && inputs[i].shape && !inputs[i].shape->empty()) {
            int64_t ax = axes && i - ns < axes->ints.size() ? axes->ints[i - ns] : 0;
            int64_t r = static_cast<int64_t>(inputs[i].shape->size());
            if (ax < 0) ax += r;
            if (ax >= 0 && ax < r) inputs[i].shape->erase(inputs[i].shape->begin() + ax);
          }
        }
      }
    }
    for (size_t i = 0; i < body.inputs.size(); ++i) {
      const TypeInfo& d = body.inputs[i].type;
      if (d.kind == TypeInfo::Kind::Unknown || (d.kind == TypeInfo::Kind::Tensor && !d.has_static_shape()))
        guessed = true;
    }
    run(body, &scope, g, inputs, guessed);
  }

  const Model& model_;
  const GraphInferOptions& opts_;
  GraphInference& out_;
  int opset_;
  alignas(64) static inline unsigned char dummy_[64] = {};
};

}  // namespace

std::string type_str(const TypeInfo* t) { return t ? t->str() : "?"; }

std::string InferFailure::message() const {
  std::string who = node_name.empty() ? "#" + std::to_string(node_index) : node_name;
  std::string op = domain.empty() ? op_type : domain + "." + op_type;
  std::string r = reason;
  // The op's message usually starts with the node label already; keep the essential part.
  std::string label = "node " + who + " (" + op + "): ";
  if (r.rfind(label, 0) == 0) r = r.substr(label.size());
  return fmt::format("cannot infer output shape of node {} ({}): {} (inputs: {})", who, op, r, input_types);
}

const TypeInfo* GraphInference::type_of(const Graph& g, const std::string& name) const {
  for (const Graph* cur = &g; cur;) {
    auto it = types.find(cur);
    if (it != types.end()) {
      auto v = it->second.find(name);
      if (v != it->second.end()) return &v->second;
    }
    auto p = parent.find(cur);
    cur = p == parent.end() ? nullptr : p->second;
  }
  return nullptr;
}

const Tensor* GraphInference::constant_of(const Graph& g, const std::string& name) const {
  for (const Graph* cur = &g; cur;) {
    auto it = constants.find(cur);
    if (it != constants.end()) {
      auto v = it->second.find(name);
      if (v != it->second.end()) return &v->second;
    }
    auto t = types.find(cur);
    if (t != types.end() && t->second.count(name)) return nullptr;
    auto p = parent.find(cur);
    cur = p == parent.end() ? nullptr : p->second;
  }
  return nullptr;
}

GraphInference infer_graph(const Model& model, const GraphInferOptions& opts) {
  GraphInference out;
  Inferencer inf(model, opts, out);
  inf.run(model.graph, nullptr, nullptr, {}, false);
  return out;
}

}  // namespace ms
