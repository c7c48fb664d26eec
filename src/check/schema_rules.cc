// Rule family 3: operator schema (MC-OP-*): unknown ops and opsets, input/output counts, required
// and unknown attributes, attribute types, attribute values out of range, weight shapes that do
// not fit the attributes. The ONNX schemas (libonnx) at the model's opset are the reference for
// default-domain ops; ops of the project's own domains use the op registry's schema.
#include <onnx/defs/schema.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "check/check.h"
#include "check/schema_util.h"
#include "ops/op.h"

namespace ms::check {

const onnx::OpSchema* onnx_schema(const Model& m, const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx.ml" && n.domain != "ai.onnx.preview.training") return nullptr;
  int64_t v = m.opset(n.domain);
  if (v <= 0 && n.domain.empty()) v = 17;  // no opset_import: reported once, checked as the canonical opset
  if (v <= 0) return nullptr;
  return onnx::OpSchemaRegistry::Schema(n.op_type, static_cast<int>(std::min<int64_t>(v, INT_MAX)), n.domain);
}

const TypeInfo* input_type(const Context& ctx, const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
  const TypeInfo* t = ctx.inference.type_of(g, n.inputs[i]);
  return t && t->kind == TypeInfo::Kind::Tensor ? t : nullptr;
}

int input_rank(const Context& ctx, const Graph& g, const Node& n, size_t i) {
  const TypeInfo* t = input_type(ctx, g, n, i);
  return t && t->shape ? static_cast<int>(t->shape->size()) : -1;
}

int64_t input_dim(const Context& ctx, const Graph& g, const Node& n, size_t i, int d) {
  const TypeInfo* t = input_type(ctx, g, n, i);
  if (!t || !t->shape || d < 0 || d >= static_cast<int>(t->shape->size())) return -1;
  const Dim& dim = (*t->shape)[d];
  return dim.is_static() ? dim.value : -1;
}

namespace {

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

AttrType attr_type_of(onnx::AttributeProto::AttributeType t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT: return AttrType::Float;
    case onnx::AttributeProto::INT: return AttrType::Int;
    case onnx::AttributeProto::STRING: return AttrType::String;
    case onnx::AttributeProto::TENSOR: return AttrType::Tensor;
    case onnx::AttributeProto::GRAPH: return AttrType::Graph;
    case onnx::AttributeProto::FLOATS: return AttrType::Floats;
    case onnx::AttributeProto::INTS: return AttrType::Ints;
    case onnx::AttributeProto::STRINGS: return AttrType::Strings;
    case onnx::AttributeProto::TENSORS: return AttrType::Tensors;
    case onnx::AttributeProto::GRAPHS: return AttrType::Graphs;
    default: return AttrType::Undefined;
  }
}

void check_counts(Context& ctx, const Graph& g, size_t i, const Node& n, const onnx::OpSchema* s, const OpDef* def) {
  int min_in = s ? s->min_input() : def->min_inputs, max_in = s ? s->max_input() : def->max_inputs;
  int min_out = s ? s->min_output() : def->min_outputs, max_out = s ? s->max_output() : def->max_outputs;
  if (max_in < 0 || max_in == INT_MAX) max_in = INT_MAX;
  if (max_out < 0 || max_out == INT_MAX) max_out = INT_MAX;
  int nin = static_cast<int>(n.inputs.size()), nout = static_cast<int>(n.outputs.size());
  auto range = [](int lo, int hi) {
    if (lo == hi) return std::to_string(lo);
    if (hi == INT_MAX) return fmt::format("at least {}", lo);
    return fmt::format("{} to {}", lo, hi);
  };
  if (nin < min_in || nin > max_in) {
    ctx.node_finding("MC-OP-003", g, i,
                     fmt::format("has {} input(s); {} takes {}", nin, op_name(n), range(min_in, max_in)));
  } else if (s) {
    const auto& formals = s->inputs();
    for (size_t k = 0; k < formals.size() && k < n.inputs.size(); ++k)
      if (formals[k].GetOption() == onnx::OpSchema::Single && n.inputs[k].empty()) {
        ctx.node_finding("MC-OP-003", g, i,
                         fmt::format("required input {} ('{}') of {} is empty", k, formals[k].GetName(), op_name(n)));
        break;
      }
  }
  if (nout < min_out || nout > max_out)
    ctx.node_finding("MC-OP-004", g, i,
                     fmt::format("has {} output(s); {} produces {}", nout, op_name(n), range(min_out, max_out)));
}

void check_attrs(Context& ctx, const Graph& g, size_t i, const Node& n, const onnx::OpSchema* s, const OpDef* def) {
  if (s) {
    for (const auto& [name, spec] : s->attributes()) {
      const Attribute* a = n.attr(name);
      if (!a) {
        if (spec.required)
          ctx.node_finding("MC-OP-005", g, i, fmt::format("required attribute '{}' is missing", name));
        continue;
      }
      AttrType want = attr_type_of(spec.type);
      if (want != AttrType::Undefined && a->type != want)
        ctx.node_finding("MC-OP-006", g, i,
                         fmt::format("attribute '{}' is {}, {} defines it as {}", name, attr_type_name(a->type),
                                     op_name(n), attr_type_name(want)));
    }
    for (const auto& [name, a] : n.attrs)
      if (!s->attributes().count(name))
        ctx.node_finding("MC-OP-007", g, i,
                         fmt::format("attribute '{}' is not defined by {} (opset {})", name, op_name(n),
                                     s->since_version()));
    return;
  }
  if (!def) return;
  for (const auto& spec : def->attrs) {
    const Attribute* a = n.attr(spec.name);
    if (!a) {
      if (spec.required) ctx.node_finding("MC-OP-005", g, i, fmt::format("required attribute '{}' is missing", spec.name));
      continue;
    }
    if (spec.type != AttrType::Undefined && a->type != spec.type)
      ctx.node_finding("MC-OP-006", g, i,
                       fmt::format("attribute '{}' is {}, {} defines it as {}", spec.name, attr_type_name(a->type),
                                   op_name(n), attr_type_name(spec.type)));
  }
  for (const auto& [name, a] : n.attrs)
    if (!def->find_attr(name))
      ctx.node_finding("MC-OP-007", g, i, fmt::format("attribute '{}' is not defined by {}", name, op_name(n)));
}

const std::vector<int64_t>* ints_attr(const Node& n, const char* name) {
  const Attribute* a = n.attr(name);
  return a && a->type == AttrType::Ints ? &a->ints : nullptr;
}
const int64_t* int_attr(const Node& n, const char* name) {
  const Attribute* a = n.attr(name);
  return a && a->type == AttrType::Int ? &a->i : nullptr;
}

// Attribute values: windows (kernel/stride/dilation/pads/group), axis/axes/perm within the rank.
void check_values(Context& ctx, const Graph& g, size_t i, const Node& n, const onnx::OpSchema* s) {
  auto has_schema_attr = [&](const char* a) { return s && s->attributes().count(a); };
  int rank = input_rank(ctx, g, n, 0);
  if (has_schema_attr("strides")) {
    int spatial = rank >= 2 ? rank - 2 : -1;
    auto positive = [&](const char* name) {
      const auto* v = ints_attr(n, name);
      if (!v) return;
      for (int64_t x : *v)
        if (x <= 0) {
          ctx.node_finding("MC-OP-008", g, i, fmt::format("{} {} has a value <= 0", name, ints_str(*v)));
          return;
        }
      if (spatial >= 0 && static_cast<int>(v->size()) != spatial)
        ctx.node_finding("MC-OP-008", g, i,
                         fmt::format("{} {} has {} values but the input has {} spatial dims", name, ints_str(*v),
                                     v->size(), spatial));
    };
    positive("kernel_shape");
    positive("strides");
    positive("dilations");
    if (const auto* p = ints_attr(n, "pads")) {
      bool neg = std::any_of(p->begin(), p->end(), [](int64_t x) { return x < 0; });
      if (neg) ctx.node_finding("MC-OP-008", g, i, fmt::format("pads {} has a negative value", ints_str(*p)));
      else if (spatial >= 0 && static_cast<int>(p->size()) != 2 * spatial)
        ctx.node_finding("MC-OP-008", g, i,
                         fmt::format("pads {} has {} values but the input has {} spatial dims (needs {})", ints_str(*p),
                                     p->size(), spatial, 2 * spatial));
    }
    if (const int64_t* grp = int_attr(n, "group")) {
      int64_t c = input_dim(ctx, g, n, 0, 1);
      if (*grp <= 0) ctx.node_finding("MC-OP-008", g, i, fmt::format("group {} must be >= 1", *grp));
      else if (c > 0 && c % *grp != 0)
        ctx.node_finding("MC-OP-008", g, i,
                         fmt::format("group {} does not divide the {} input channels", *grp, c));
    }
  }
  if (rank >= 0) {
    const Attribute* ax = n.attr("axis");
    if (ax && ax->type == AttrType::Int && axis_attr_checked(n.op_type)) {
      int64_t lo = -rank, hi = rank - 1;
      if (n.op_type == "Flatten") hi = rank;
      if (ax->i < lo || ax->i > hi)
        ctx.node_finding("MC-OP-008", g, i,
                         fmt::format("axis {} is out of range [{}, {}] for an input of rank {}", ax->i, lo, hi, rank));
    }
    const Attribute* axes = n.attr("axes");
    if (axes && axes->type == AttrType::Ints && n.op_type != "Unsqueeze") {
      std::set<int64_t> seen;
      for (int64_t a : axes->ints) {
        if (a < -rank || a >= rank) {
          ctx.node_finding("MC-OP-008", g, i,
                           fmt::format("axes {} has {} out of range [{}, {}] for an input of rank {}",
                                       ints_str(axes->ints), a, -rank, rank - 1, rank));
          break;
        }
        if (!seen.insert(a < 0 ? a + rank : a).second) {
          ctx.node_finding("MC-OP-008", g, i, fmt::format("axes {} repeats axis {}", ints_str(axes->ints), a));
          break;
        }
      }
    }
    const Attribute* perm = n.attr("perm");
    if (perm && perm->type == AttrType::Ints && n.op_type == "Transpose") {
      std::vector<int64_t> p = perm->ints, want(rank);
      std::sort(p.begin(), p.end());
      for (int k = 0; k < rank; ++k) want[k] = k;
      if (p != want)
        ctx.node_finding("MC-OP-008", g, i,
                         fmt::format("perm {} is not a permutation of the {} axes of the input", ints_str(perm->ints),
                                     rank));
    }
  }
}

std::string dims_str(const TypeInfo& t) {
  std::string s = "[";
  if (t.shape)
    for (size_t k = 0; k < t.shape->size(); ++k) {
      const Dim& d = (*t.shape)[k];
      s += (k ? "," : "") + (d.is_static() ? std::to_string(d.value) : (d.param.empty() ? "?" : d.param));
    }
  return s + "]";
}

// Weight shapes against the attributes and the data input.
void check_weights(Context& ctx, const Graph& g, size_t i, const Node& n) {
  const std::string& op = n.op_type;
  if (!n.domain.empty()) return;
  auto dim = [&](size_t in, int d) { return input_dim(ctx, g, n, in, d); };
  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "ConvTranspose") {
    size_t w_in = op == "QLinearConv" ? 3 : 1;
    const TypeInfo* x = input_type(ctx, g, n, 0);
    const TypeInfo* w = input_type(ctx, g, n, w_in);
    if (!w || !w->shape) return;
    int wr = static_cast<int>(w->shape->size());
    int xr = x && x->shape ? static_cast<int>(x->shape->size()) : -1;
    int64_t group = int_attr(n, "group") ? *int_attr(n, "group") : 1;
    if (group <= 0) return;
    if (wr < 3) {
      ctx.node_finding("MC-OP-009", g, i, fmt::format("weight '{}' has shape {}: a convolution weight needs rank >= 3",
                                                       n.inputs[w_in], dims_str(*w)));
      return;
    }
    if (xr >= 0 && xr != wr) {
      ctx.node_finding("MC-OP-009", g, i,
                       fmt::format("weight '{}' has rank {} ({}) but the input has rank {} ({})", n.inputs[w_in], wr,
                                   dims_str(*w), xr, dims_str(*x)));
      return;
    }
    int64_t c = dim(0, 1), w0 = dim(w_in, 0), w1 = dim(w_in, 1);
    bool transpose = op == "ConvTranspose";
    if (!transpose && c > 0 && w1 > 0 && w1 * group != c) {
      ctx.node_finding("MC-OP-009", g, i,
                       fmt::format("weight '{}' {} expects {} input channels (W[1]={} x group {}) but the input has {}",
                                   n.inputs[w_in], dims_str(*w), w1 * group, w1, group, c));
      return;
    }
    if (transpose && c > 0 && w0 > 0 && w0 != c) {
      ctx.node_finding("MC-OP-009", g, i,
                       fmt::format("weight '{}' {} expects {} input channels (W[0]) but the input has {}",
                                   n.inputs[w_in], dims_str(*w), w0, c));
      return;
    }
    if (!transpose && w0 > 0 && w0 % group != 0) {
      ctx.node_finding("MC-OP-009", g, i,
                       fmt::format("weight '{}' {} has {} output channels, not divisible by group {}", n.inputs[w_in],
                                   dims_str(*w), w0, group));
      return;
    }
    if (const auto* ks = ints_attr(n, "kernel_shape")) {
      bool bad = static_cast<int>(ks->size()) != wr - 2;
      for (int k = 0; !bad && k < wr - 2; ++k) {
        int64_t wd = dim(w_in, k + 2);
        if (wd >= 0 && wd != (*ks)[k]) bad = true;
      }
      if (bad) {
        ctx.node_finding("MC-OP-009", g, i,
                         fmt::format("kernel_shape {} does not match the spatial dims of weight '{}' {}", ints_str(*ks),
                                     n.inputs[w_in], dims_str(*w)));
        return;
      }
    }
    if (op == "Conv" || op == "ConvTranspose") {
      const TypeInfo* b = input_type(ctx, g, n, 2);
      int64_t m = transpose ? (w1 > 0 ? w1 * group : -1) : w0;
      if (b && b->shape && m > 0) {
        bool bad = b->shape->size() != 1 || ((*b->shape)[0].is_static() && (*b->shape)[0].value != m);
        if (bad)
          ctx.node_finding("MC-OP-009", g, i,
                           fmt::format("bias '{}' has shape {} but the convolution has {} output channels",
                                       n.inputs[2], dims_str(*b), m));
      }
    }
    return;
  }
  if (op == "BatchNormalization" || op == "InstanceNormalization") {
    int64_t c = dim(0, 1);
    size_t last = op == "BatchNormalization" ? 4 : 2;
    static const char* names[] = {"X", "scale", "B", "mean", "var"};
    for (size_t k = 1; k <= last && k < n.inputs.size(); ++k) {
      const TypeInfo* t = input_type(ctx, g, n, k);
      if (!t || !t->shape) continue;
      bool bad = t->shape->size() != 1 || (c > 0 && (*t->shape)[0].is_static() && (*t->shape)[0].value != c);
      if (bad) {
        ctx.node_finding("MC-OP-009", g, i,
                         fmt::format("{} '{}' has shape {} but the input has {} channels", names[k], n.inputs[k],
                                     dims_str(*t), c > 0 ? std::to_string(c) : "?"));
        return;
      }
    }
    return;
  }
  if (op == "Gemm" && n.inputs.size() >= 2 && ctx.inference.constant_of(g, n.inputs[1])) {
    const TypeInfo* a = input_type(ctx, g, n, 0);
    const TypeInfo* b = input_type(ctx, g, n, 1);
    if (!a || !b || !a->shape || !b->shape || a->shape->size() != 2 || b->shape->size() != 2) return;
    bool ta = int_attr(n, "transA") && *int_attr(n, "transA"), tb = int_attr(n, "transB") && *int_attr(n, "transB");
    int64_t ka = dim(0, ta ? 0 : 1), kb = dim(1, tb ? 1 : 0);
    if (ka > 0 && kb > 0 && ka != kb)
      ctx.node_finding("MC-OP-009", g, i,
                       fmt::format("weight '{}' {} (transB={}) has K={} but the input {} (transA={}) has K={}",
                                   n.inputs[1], dims_str(*b), tb ? 1 : 0, kb, dims_str(*a), ta ? 1 : 0, ka));
  }
}

}  // namespace

bool axis_attr_checked(const std::string& op) {
  static const std::set<std::string> skip = {"OneHot", "ConcatFromSequence", "QuantizeLinear", "DequantizeLinear",
                                             "Unsqueeze", "SequenceInsert", "Scan"};
  return !skip.count(op);
}

void check_schema(Context& ctx) {
  const auto& reg = OpRegistry::global();
  const Model& m = ctx.model;
  // Model-level opset.
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int max_onnx = ranges.count("") ? ranges.at("").second : 17;
  int64_t v = m.opset("");
  bool uses_default = false;
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& n : g.nodes)
      if (n.domain.empty()) uses_default = true;
  });
  if (uses_default && v <= 0)
    ctx.tensor_finding("MC-OP-002", "opset_import",
                       "the model declares no ai.onnx opset (opset_import) but uses ai.onnx operators",
                       "add opset_import { domain: \"\" version: 17 } (or re-export with an explicit opset)");
  else if (v > max_onnx)
    ctx.tensor_finding("MC-OP-002", "opset_import",
                       fmt::format("the model uses ai.onnx opset {}; this tool knows opsets up to {}", v, max_onnx),
                       fmt::format("export with opset_version <= {} (e.g. torch.onnx.export(..., opset_version=17))",
                                   max_onnx));
  else if (uses_default && v < 1)
    ctx.tensor_finding("MC-OP-002", "opset_import", fmt::format("ai.onnx opset {} is not valid", v));

  for_each_graph(m.graph, [&](const Graph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.domain == "ai.onnx.preview.training") continue;  // MC-DEPLOY-004
      const OpDef* def = reg.find(n.domain, n.op_type);
      const onnx::OpSchema* s = onnx_schema(m, n);
      if (s && s->deprecated()) {
        ctx.node_finding("MC-OP-002", g, i,
                         fmt::format("{} is deprecated in opset {}", op_name(n), m.opset(n.domain)),
                         "replace the operator with its successor (e.g. Upsample -> Resize) or convert the model");
        continue;
      }
      if (!s && (n.domain.empty() || n.domain == "ai.onnx.ml")) {
        const onnx::OpSchema* later = onnx::OpSchemaRegistry::Schema(n.op_type, n.domain);
        if (later) {
          ctx.node_finding("MC-OP-002", g, i,
                           fmt::format("{} does not exist in opset {} (it was introduced in opset {})", op_name(n),
                                       m.opset(n.domain), later->since_version()),
                           fmt::format("declare opset >= {} for domain '{}' or replace the operator",
                                       later->since_version(), n.domain.empty() ? "ai.onnx" : n.domain));
          continue;
        }
        if (!def) {
          ctx.node_finding("MC-OP-001", g, i,
                           fmt::format("'{}' is not an operator of the {} domain", n.op_type,
                                       n.domain.empty() ? "ai.onnx" : n.domain));
          continue;
        }
      }
      if (!s && !def) {
        ctx.node_finding("MC-OP-001", g, i,
                         fmt::format("operator '{}' of domain '{}' is unknown", n.op_type, n.domain));
        continue;
      }
      // A model newer than the ONNX schemas linked here (MC-OP-002 above): the schemas found are older
      // versions of its operators (ReduceMean-13 for a ReduceMean-18 with an axes input), so checking
      // counts/attributes against them would only produce false errors.
      if (n.domain.empty() && v > max_onnx) continue;
      check_counts(ctx, g, i, n, s, def);
      check_attrs(ctx, g, i, n, s, def);
      check_values(ctx, g, i, n, s);
      if (!ctx.node_has_error(g, i)) check_weights(ctx, g, i, n);
    }
  });
}

}  // namespace ms::check
