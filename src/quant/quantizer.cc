#include "quant/quantizer.h"

#include <algorithm>
#include <optional>

#include "ops/quant_weight.h"
#include "quant/quant_params.h"

namespace ms::quant {
namespace {

// The quantizable weight spec of a node, unless the user or the model keeps it float.
struct Candidate {
  QuantWeightSpec spec;
  const Tensor* weight = nullptr;  // the float32 initializer, when the weight input is one
};

std::optional<Candidate> candidate(const Graph& g, const Node& n, const QuantOptions& o) {
  if (o.skip_nodes.count(n.name) || o.skip_op_types.count(n.op_type) || o.keep_float.count(n.name)) return std::nullopt;
  // The weight's rank decides its channel axis (MatMul's B is [..., K, N]).
  int rank = 0;
  if (n.inputs.size() > 1) {
    auto it = g.initializers.find(n.inputs[1]);
    if (it != g.initializers.end()) rank = it->second.rank();
  }
  auto spec = quant_weight_spec(n, rank);
  if (!spec) return std::nullopt;
  Candidate c{*spec, nullptr};
  if (spec->input < int(n.inputs.size())) {
    auto it = g.initializers.find(n.inputs[spec->input]);
    if (it != g.initializers.end() && it->second.dtype() == DType::Float32)
      c.weight = &it->second;
  }
  return c;
}

// Why a weight is too small to quantize, or empty when it is not.
std::string too_small(const Tensor& w, const QuantWeightSpec& s, const QuantOptions& o) {
  if (w.numel() < o.min_quant_weight_size)
    return fmt::format("weight has {} elements < --minQuantWeightSize {}", w.numel(), o.min_quant_weight_size);
  const int64_t channels = w.rank() > s.channel_axis ? w.dim(s.channel_axis) : 1;
  if (channels < o.min_quant_weight_channel)
    return fmt::format("weight has {} output channels < --minQuantWeightChannel {}", channels, o.min_quant_weight_channel);
  return "";
}

// Inputs of the node that FULL_QUANT quantizes: its activation inputs that are not initializers.
std::vector<std::string> activation_inputs(const Graph& g, const Node& n, const QuantWeightSpec& s) {
  std::vector<std::string> r;
  for (int i : s.activation_inputs)
    if (i < int(n.inputs.size()) && !n.inputs[i].empty() && !g.initializers.count(n.inputs[i])) r.push_back(n.inputs[i]);
  return r;
}

// A tensor name not used anywhere in the graph yet.
class Names {
 public:
  explicit Names(const Graph& g) {
    for (const auto& [k, v] : g.initializers) used_.insert(k);
    for (const auto& v : g.inputs) used_.insert(v.name);
    for (const auto& n : g.nodes) {
      used_.insert(n.name);
      for (const auto& s : n.inputs) used_.insert(s);
      for (const auto& s : n.outputs) used_.insert(s);
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

Tensor zero_point_tensor(const ActivationParams& p) {
  if (p.dtype == DType::Int8) return Tensor::scalar<int8_t>(int8_t(p.zero_point));
  return Tensor::scalar<uint8_t>(uint8_t(p.zero_point));
}

}  // namespace

QuantType parse_quant_type(const std::string& s) {
  if (s == "FULL_QUANT") return QuantType::Full;
  if (s == "WEIGHT_QUANT") return QuantType::Weight;
  fail("--quantType must be FULL_QUANT or WEIGHT_QUANT, not '{}'", s);
}

void check_quantizable_opset(const Model& m) {
  // Raising the opset here could change other ops' semantics; the converter does that properly.
  if (m.opset() < 13)
    fail_unsupported("quantization needs an ai.onnx opset >= 13 model (this one is {}); convert it first: ms convert --fmk "
                     "ONNX --modelFile {} --saveType ONNX --outputFile model13.onnx",
                     m.opset(), m.source_path);
}

void check_skip_nodes(const Model& m, const QuantOptions& opts) {
  std::set<std::string> names;
  for (const auto& n : m.graph.nodes) names.insert(n.name);
  for (const auto& s : opts.skip_nodes)
    if (!names.count(s)) fail("--skipNodes: the model has no node named '{}' (see `ms info --modelFile {}`)", s, m.source_path);
}

std::vector<std::string> activations_to_calibrate(const Model& m, const QuantOptions& opts) {
  std::vector<std::string> r;
  if (opts.type != QuantType::Full) return r;
  std::set<std::string> seen;
  for (const auto& n : m.graph.nodes)
    if (auto c = candidate(m.graph, n, opts))
      for (const auto& a : activation_inputs(m.graph, n, c->spec))
        if (seen.insert(a).second) r.push_back(a);
  return r;
}

std::vector<WeightSite> weight_sites(const Model& m, const QuantOptions& opts) {
  std::vector<WeightSite> r;
  for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
    const Node& n = m.graph.nodes[i];
    auto c = candidate(m.graph, n, opts);
    if (c && c->weight && too_small(*c->weight, c->spec, opts).empty()) r.push_back({i, c->spec, n.inputs[c->spec.input]});
  }
  return r;
}

QuantizedWeight quantize_site_weight(const Tensor& w, const QuantWeightSpec& spec, const QuantOptions& opts) {
  return quantize_weight(w, opts.per_channel && w.rank() > 0 ? spec.channel_axis : -1, opts.bit_num);
}

std::vector<std::string> quantizable_nodes(const Model& m, const QuantOptions& opts) {
  std::vector<std::string> r;
  for (const auto& n : m.graph.nodes) {
    auto c = candidate(m.graph, n, opts);
    if (!c) continue;
    const bool weight = c->weight && too_small(*c->weight, c->spec, opts).empty();
    if (weight || (opts.type == QuantType::Full && !activation_inputs(m.graph, n, c->spec).empty())) r.push_back(n.name);
  }
  return r;
}

QuantSummary quantize_model(Model& m, const QuantOptions& opts, const std::map<std::string, Range>& ranges) {
  Graph& g = m.graph;
  check_quantizable_opset(m);
  Names names(g);
  QuantSummary sum;
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  std::set<std::string> weights_done;
  std::map<std::string, std::string> act_done;  // float activation -> its dequantized name
  std::map<std::string, Tensor> new_inits;
  std::set<std::string> removed_inits;

  for (const Node& orig : g.nodes) {
    Node n = orig;
    auto c = candidate(g, n, opts);
    if (!c) {
      if (quant_weight_spec(n, 0) && (opts.skip_nodes.count(n.name) || opts.skip_op_types.count(n.op_type)))
        sum.why_float[n.name] = "--skipNodes/--skipOpTypes";
      else if (auto k = opts.keep_float.find(n.name); k != opts.keep_float.end() && quant_weight_spec(n, 0))
        sum.why_float[n.name] = k->second;
      if (auto w = sum.why_float.find(n.name); w != sum.why_float.end()) sum.kept_float.push_back(n.label() + ": " + w->second);
      out.push_back(std::move(n));
      continue;
    }
    bool touched = false;
    // Weight: int8 initializer + DequantizeLinear that outputs the original name.
    if (c->weight) {
      const std::string wname = n.inputs[c->spec.input];
      const Tensor& w = *c->weight;
      if (const std::string why = too_small(w, c->spec, opts); !why.empty()) {
        sum.kept_float.push_back(n.label() + ": " + why);
        sum.why_float[n.name] = why;
      } else if (!weights_done.count(wname)) {
        QuantizedWeight qw = quantize_site_weight(w, c->spec, opts);
        const int axis = qw.axis;
        const std::string qn = names.fresh(wname + "_quantized"), sn = names.fresh(wname + "_scale"),
                          zn = names.fresh(wname + "_zero_point");
        sum.weight_bytes_before += w.nbytes();
        sum.weight_bytes_after += qw.q.nbytes() + qw.scale.nbytes() + qw.zero_point.nbytes();
        new_inits[qn] = qw.q;
        new_inits[sn] = qw.scale;
        new_inits[zn] = qw.zero_point;
        removed_inits.insert(wname);
        // Old ONNX files list weights as optional graph inputs too; the quantized weight is no
        // longer something a caller can override, so it stops being an input.
        std::erase_if(g.inputs, [&](const ValueInfo& v) { return v.name == wname; });
        Node dq;
        dq.name = names.fresh(wname + "_DequantizeLinear");
        dq.op_type = "DequantizeLinear";
        dq.inputs = {qn, sn, zn};
        dq.outputs = {wname};
        if (axis >= 0) dq.attrs["axis"] = Attribute::of_int(axis);
        out.push_back(std::move(dq));
        weights_done.insert(wname);
        ++sum.weights_quantized;
        touched = true;
      } else {
        touched = true;  // shared weight, already quantized for an earlier consumer
      }
    }
    // Activations: QuantizeLinear -> DequantizeLinear in front of this consumer.
    if (opts.type == QuantType::Full) {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const std::string a = n.inputs[i];
        const auto acts = activation_inputs(g, orig, c->spec);
        if (std::find(acts.begin(), acts.end(), a) == acts.end()) continue;
        auto done = act_done.find(a);
        if (done == act_done.end()) {
          auto r = ranges.find(a);
          if (r == ranges.end()) continue;  // not observed (not float32): stays float
          const ActivationParams p = activation_params(r->second, opts.symmetric);
          const std::string sn = names.fresh(a + "_scale"), zn = names.fresh(a + "_zero_point"),
                            qn = names.fresh(a + "_quantized"), dn = names.fresh(a + "_dequantized");
          new_inits[sn] = Tensor::scalar<float>(p.scale);
          new_inits[zn] = zero_point_tensor(p);
          Node q;
          q.name = names.fresh(a + "_QuantizeLinear");
          q.op_type = "QuantizeLinear";
          q.inputs = {a, sn, zn};
          q.outputs = {qn};
          Node dq;
          dq.name = names.fresh(a + "_DequantizeLinear");
          dq.op_type = "DequantizeLinear";
          dq.inputs = {qn, sn, zn};
          dq.outputs = {dn};
          out.push_back(std::move(q));
          out.push_back(std::move(dq));
          done = act_done.emplace(a, dn).first;
          ++sum.activations_quantized;
        }
        n.inputs[i] = done->second;
        touched = true;
      }
    }
    if (touched) ++sum.nodes_quantized;
    out.push_back(std::move(n));
  }
  g.nodes = std::move(out);
  for (const auto& r : removed_inits) g.initializers.erase(r);
  for (auto& [k, v] : new_inits) g.initializers[k] = std::move(v);
  return sum;
}

}  // namespace ms::quant
