// Rule family 5: deployability (MC-DEPLOY-*): what users forget before export. Training residue,
// random and training ops, dynamic input dims, data-dependent shapes, NaN/Inf weights, negative
// BatchNormalization variance, 64-bit tensors, names that deployment runtimes reject.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "check/check.h"
#include "ops/op.h"

namespace ms::check {

namespace {

// "input:0": TensorFlow's tensor-name form. The ':' collides with the name:shape syntax of
// --inputShape in MindSpore Lite's converter and this tool, so such inputs cannot be addressed.
bool tf_style_name(const std::string& s) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size() || s[colon - 1] == ':') return false;
  return s.find_first_not_of("0123456789", colon + 1) == std::string::npos;
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

std::string sanitized(const std::string& s) {
  std::string r;
  for (char c : s) r += ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ? c : '_';
  if (r.empty() || (r[0] >= '0' && r[0] <= '9')) r = "_" + r;
  return r;
}

struct NonFinite {
  int64_t nan = 0, inf = 0, first = -1;
};

NonFinite scan_floats(const Tensor& t) {
  NonFinite r;
  const int64_t n = t.numel();
  if (t.dtype() == DType::Float32) {
    const uint32_t* p = static_cast<const uint32_t*>(t.raw());
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += (p[i] & 0x7f800000u) == 0x7f800000u;
    if (!bad) return r;
    for (int64_t i = 0; i < n; ++i)
      if ((p[i] & 0x7f800000u) == 0x7f800000u) {
        if (r.first < 0) r.first = i;
        ((p[i] & 0x007fffffu) ? r.nan : r.inf)++;
      }
  } else if (t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16) {
    const uint16_t* p = static_cast<const uint16_t*>(t.raw());
    const uint16_t exp = t.dtype() == DType::Float16 ? 0x7c00 : 0x7f80;
    for (int64_t i = 0; i < n; ++i)
      if ((p[i] & exp) == exp) {
        if (r.first < 0) r.first = i;
        ((p[i] & static_cast<uint16_t>(~exp & 0x7fff)) ? r.nan : r.inf)++;
      }
  } else if (t.dtype() == DType::Float64) {
    const double* p = static_cast<const double*>(t.raw());
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i])) {
        if (r.first < 0) r.first = i;
        (std::isnan(p[i]) ? r.nan : r.inf)++;
      }
  }
  return r;
}

bool is_float_dtype(DType d) {
  return d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 || d == DType::Float64;
}

bool is_random(const Node& n) {
  const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
  if (def) return def->traits & kTraitRandom;
  static const std::set<std::string> names = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                              "RandomUniformLike", "Bernoulli", "Multinomial"};
  return n.domain.empty() && names.count(n.op_type);
}

}  // namespace

void check_deployability(Context& ctx) {
  const Model& m = ctx.model;
  const int64_t opset = m.opset("");

  // Values used anywhere (node inputs and graph outputs), per graph, for "output used" checks.
  std::unordered_map<std::string, int> used;
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& n : g.nodes)
      for (const auto& i : n.inputs)
        if (!i.empty()) used[i]++;
    for (const auto& o : g.outputs) used[o.name]++;
  });

  std::unordered_map<std::string, std::pair<const Graph*, size_t>> first_consumer;
  // Values read only by ops for which +-Inf is a meaningful operand (bounds, masks, fill values):
  // Clip(max=+inf), Where(-inf mask), Add(-inf attention mask), comparisons. Inf there is by design.
  static const std::set<std::string> kInfOk = {"Clip", "Max", "Min", "Where", "Add", "Sub", "Less", "LessOrEqual",
                                               "Greater", "GreaterOrEqual", "Equal", "IsInf", "Expand",
                                               "ConstantOfShape", "Pad", "Concat", "Unsqueeze", "Reshape", "Cast"};
  std::unordered_map<std::string, bool> inf_ok_value;  // value -> every consumer tolerates Inf
  for_each_graph(m.graph, [&](const Graph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const auto& in : n.inputs)
        if (!in.empty()) {
          first_consumer.emplace(in, std::make_pair(&g, i));
          bool ok = n.domain.empty() && kInfOk.count(n.op_type) > 0;
          auto [it, fresh] = inf_ok_value.emplace(in, ok);
          if (!fresh) it->second = it->second && ok;
        }
      const bool onnx = n.domain.empty();
      // --- training residue
      if (onnx && n.op_type == "Dropout") {
        if (n.inputs.size() >= 3 && !n.inputs[2].empty()) {
          const Tensor* tm = ctx.inference.constant_of(g, n.inputs[2]);
          if (!tm)
            ctx.node_finding("MC-DEPLOY-001", g, i,
                             fmt::format("training_mode is the run-time value '{}': the node may drop activations",
                                         n.inputs[2]));
          else if (tm->numel() > 0 && tm->as_double(0) != 0)
            ctx.node_finding("MC-DEPLOY-001", g, i, "training_mode is true: the node drops activations at inference");
        }
        const Attribute* is_test = n.attr("is_test");
        if (is_test && is_test->type == AttrType::Int && is_test->i == 0)
          ctx.node_finding("MC-DEPLOY-001", g, i, "is_test=0: the node runs in training mode");
        if (n.outputs.size() >= 2 && !n.outputs[1].empty() && used.count(n.outputs[1]))
          ctx.node_finding("MC-DEPLOY-001", g, i,
                           fmt::format("the dropout mask '{}' is used: it only has a meaning in training",
                                       n.outputs[1]),
                           "", Severity::Warning);
      }
      if (onnx && n.op_type == "BatchNormalization") {
        const Attribute* tm = n.attr("training_mode");
        const Attribute* is_test = n.attr("is_test");
        if (tm && tm->type == AttrType::Int && tm->i != 0)
          ctx.node_finding("MC-DEPLOY-002", g, i, "training_mode=1: the node normalizes with batch statistics");
        else if (is_test && is_test->type == AttrType::Int && is_test->i == 0 && opset < 7)
          ctx.node_finding("MC-DEPLOY-002", g, i, "is_test=0: the node runs in training mode");
        else {
          for (size_t k = 1; k < n.outputs.size(); ++k)
            if (!n.outputs[k].empty() && used.count(n.outputs[k])) {
              ctx.node_finding("MC-DEPLOY-002", g, i,
                               fmt::format("running-statistics output {} ('{}') is used: it exists only in training",
                                           k, n.outputs[k]));
              break;
            }
        }
        // --- negative variance
        if (n.inputs.size() >= 5 && !n.inputs[4].empty()) {
          const Tensor* var = ctx.inference.constant_of(g, n.inputs[4]);
          if (var && is_float_dtype(var->dtype())) {
            int64_t neg = 0, first = -1;
            double v0 = 0;
            for (int64_t k = 0; k < var->numel(); ++k) {
              double v = var->as_double(k);
              if (v < 0) {
                if (first < 0) first = k, v0 = v;
                ++neg;
              }
            }
            if (neg)
              ctx.node_finding("MC-DEPLOY-008", g, i,
                               fmt::format("variance '{}' has {} negative value(s) (first: [{}] = {})", n.inputs[4],
                                           neg, first, v0));
          }
        }
      }
      // --- random and training ops
      if (is_random(n))
        ctx.node_finding("MC-DEPLOY-003", g, i,
                         fmt::format("{} produces different values on every run", op_name(n)));
      if (n.domain == "ai.onnx.preview.training" || (onnx && (n.op_type == "Gradient" || n.op_type == "Momentum" ||
                                                              n.op_type == "Adagrad" || n.op_type == "Adam")))
        ctx.node_finding("MC-DEPLOY-004", g, i, fmt::format("{} is a training operator", op_name(n)));
      // --- data-dependent shapes
      if (onnx) {
        static const std::set<std::string> dd = {"NonZero", "Unique", "NonMaxSuppression", "Compress",
                                                 "StringSplit", "RegexFullMatch"};
        if (dd.count(n.op_type)) {
          bool constant_inputs = true;
          for (const auto& in : n.inputs)
            if (!in.empty() && !ctx.inference.constant_of(g, in)) constant_inputs = false;
          if (!constant_inputs)
            ctx.node_finding("MC-DEPLOY-006", g, i,
                             fmt::format("the output shape of {} depends on the input values", n.op_type));
        }
        if (n.op_type == "Loop") {
          bool has_m = n.inputs.size() >= 1 && !n.inputs[0].empty() && ctx.inference.constant_of(g, n.inputs[0]);
          bool cond_const = n.inputs.size() >= 2 && !n.inputs[1].empty() && ctx.inference.constant_of(g, n.inputs[1]);
          const Attribute* body = n.attr("body");
          bool body_cond_const = false;
          if (body && body->g && body->g->outputs.size() >= 1 && body->g->inputs.size() >= 2)
            body_cond_const = body->g->outputs[0].name == body->g->inputs[1].name;  // condition passed through
          if (!has_m && !(cond_const && body_cond_const))
            ctx.node_finding("MC-DEPLOY-006", g, i,
                             "the trip count depends on run-time values (no constant M), so the number of "
                             "iterations and the scan outputs' shapes are data-dependent");
        }
      }
    }
  });

  // --- weights: NaN/Inf (initializers and Constant nodes of every graph)
  auto report_nonfinite = [&](const Graph& g, const std::string& name, const Tensor& t, const std::string& what) {
    if (!is_float_dtype(t.dtype())) return;
    NonFinite nf = scan_floats(t);
    if (nf.nan + nf.inf == 0) return;
    if (nf.nan == 0) {
      auto ok = inf_ok_value.find(name);
      if (ok != inf_ok_value.end() && ok->second) return;  // Inf as a bound/mask, by design
    }
    std::string msg = fmt::format("{} '{}' {} holds {} NaN and {} Inf value(s) (first at flat index {})", what, name,
                                  shape_str(t.shape()), nf.nan, nf.inf, nf.first);
    auto c = first_consumer.find(name);
    if (c != first_consumer.end()) {
      ctx.node_finding("MC-DEPLOY-007", *c->second.first, c->second.second, msg);
      ctx.findings.back().tensor = name;
    } else {
      ctx.tensor_finding("MC-DEPLOY-007", name, msg);
    }
  };
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& [name, t] : g.initializers) report_nonfinite(g, name, t, "initializer");
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.domain.empty() && n.op_type == "Constant" && !n.outputs.empty()) {
        const Attribute* v = n.attr("value");
        if (v && v->type == AttrType::Tensor && is_float_dtype(v->t.dtype())) {
          NonFinite nf = scan_floats(v->t);
          auto ok = inf_ok_value.find(n.outputs[0]);
          bool by_design = nf.nan == 0 && ok != inf_ok_value.end() && ok->second;
          if (nf.nan + nf.inf && !by_design)
            ctx.node_finding("MC-DEPLOY-007", g, i,
                             fmt::format("constant '{}' {} holds {} NaN and {} Inf value(s) (first at flat index {})",
                                         n.outputs[0], shape_str(v->t.shape()), nf.nan, nf.inf, nf.first));
        }
      }
    }
  });

  // --- graph inputs and outputs: dynamic dims, names, 64-bit types
  const Graph& g = m.graph;
  const bool wants32 = ctx.opts.target != Target::Cpu;
  auto io_checks = [&](const ValueInfo& v, bool is_input) {
    const char* kind = is_input ? "input" : "output";
    // A warning, not an error: healthy exports use such names and run everywhere that matters to them
    // (openWakeWord: 'onnx::Flatten_0', '13'; PaddleOCR: 'sigmoid_0.tmp_0'). See docs/diagnostics.md.
    if (tf_style_name(v.name))
      ctx.tensor_finding("MC-DEPLOY-011", v.name,
                         fmt::format("graph {} name '{}' has TensorFlow's ':<index>' suffix", kind, v.name),
                         fmt::format("rename it: ms convert --renameIO \"{}={}\" (or ms optimize --renameIO); the ':' "
                                     "collides with the name:shape syntax of --inputShape",
                                     v.name, sanitized(v.name)));
    else if (!valid_name(v.name))
      ctx.tensor_finding("MC-DEPLOY-010", v.name,
                         fmt::format("graph {} name '{}' does not match [A-Za-z_][A-Za-z0-9_]*", kind, v.name),
                         fmt::format("rename it so that deployment runtimes accept it: ms convert --renameIO \"{}={}\" "
                                     "(or ms optimize --renameIO, or in the exporter)",
                                     v.name, sanitized(v.name)));
    if (v.type.kind != TypeInfo::Kind::Tensor) return;
    // float64 is an error on every target; int64 is an error where the target wants int32 and a
    // warning on cpu (this runtime handles int64, but most deployment targets convert or refuse it).
    if (v.type.dtype == DType::Float64 || v.type.dtype == DType::Int64) {
      bool f64 = v.type.dtype == DType::Float64;
      ctx.tensor_finding("MC-DEPLOY-009", v.name,
                         fmt::format("graph {} '{}' is {}; target {} {} {}", kind, v.name, dtype_name(v.type.dtype),
                                     target_name(ctx.opts.target),
                                     (f64 || wants32) ? "wants" : "handles it, but deployment targets want",
                                     f64 ? "float32" : "int32"),
                         "", (f64 || wants32) ? std::optional<Severity>() : std::optional<Severity>(Severity::Warning));
    }
    if (!is_input || ctx.opts.input_shapes.count(v.name)) return;
    if (!v.type.shape) {
      ctx.tensor_finding("MC-DEPLOY-005", v.name, fmt::format("graph input '{}' has no shape (rank unknown)", v.name),
                         fmt::format("give its shape at conversion: --inputShape \"{}:1,3,224,224\"", v.name));
      return;
    }
    std::string dyn, example;
    for (size_t k = 0; k < v.type.shape->size(); ++k) {
      const Dim& d = (*v.type.shape)[k];
      if (!d.is_static()) dyn += fmt::format("{}dim {} ({})", dyn.empty() ? "" : ", ", k, d.param.empty() ? "?" : d.param);
      example += (k ? "," : "") + (d.is_static() ? std::to_string(d.value) : std::string("1"));
    }
    if (!dyn.empty())
      ctx.tensor_finding("MC-DEPLOY-005", v.name,
                         fmt::format("graph input '{}' {} has dynamic dims: {}", v.name, v.type.str(), dyn),
                         fmt::format("fix the shape with --inputShape \"{}:{}\" (use your real sizes)", v.name, example));
  };
  for (const auto& v : g.inputs)
    if (!g.initializers.count(v.name)) io_checks(v, true);
  for (const auto& v : g.outputs) io_checks(v, false);
  for_each_graph(m.graph, [&](const Graph& sg) {
    for (const auto& [name, t] : sg.initializers)
      if (t.dtype() == DType::Float64)
        ctx.tensor_finding("MC-DEPLOY-009", name,
                           fmt::format("initializer '{}' {} is float64; target {} wants float32", name,
                                       shape_str(t.shape()), target_name(ctx.opts.target)));
  });
}

}  // namespace ms::check
