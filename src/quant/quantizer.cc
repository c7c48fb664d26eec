#include "quant/quantizer.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "formats/onnx/opset_upgrade.h"
#include "ops/quant_weight.h"
#include "quant/fresh_names.h"
#include "quant/opset21.h"
#include "quant/quant_params.h"
#include "quant/sum_preserving_rounding.h"

namespace ms::quant {
namespace {

// The quantizable weight spec of a node, unless the user or the model keeps it float.
struct Candidate {
  QuantWeightSpec spec;
  const Tensor* weight = nullptr;  // the float32 initializer, when the weight input is one
};

// A grouped op whose groups each read one input channel (its weight's dim 1 is 1).
bool is_depthwise(const Graph& g, const Node& n) {
  const Attribute* group = n.attr("group");
  if (!group || group->i <= 1 || n.inputs.size() < 2) return false;
  auto it = g.initializers.find(n.inputs[1]);
  return it != g.initializers.end() && it->second.rank() >= 2 && it->second.dim(1) == 1;
}

bool depthwise_kept_float(const Graph& g, const Node& n, const QuantOptions& o) {
  return o.type == QuantType::Full && !o.quantize_depthwise && is_depthwise(g, n);
}

std::optional<Candidate> candidate(const Graph& g, const Node& n, const QuantOptions& o) {
  if (o.skip_nodes.count(n.name) || o.skip_op_types.count(n.op_type) || o.keep_float.count(n.name)) return std::nullopt;
  if (depthwise_kept_float(g, n, o)) return std::nullopt;
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

int64_t upgrade_to_quantizable_opset(Model& m) {
  return onnx_format::upgrade_opset_to_13(m).from;
}

void check_bit_num(const QuantOptions& opts) {
  if (opts.bit_num == 8) return;
  if (opts.bit_num != 4)
    fail_unsupported("--bitNum {}: weights are quantized to 8 bits, or to 4 bits with WEIGHT_QUANT", opts.bit_num);
  if (opts.type == QuantType::Full)
    fail_unsupported("--bitNum 4 needs --quantType WEIGHT_QUANT: FULL_QUANT activations are int8 only, and the int8 "
                     "kernels take int8 weights");
}

void check_skip_nodes(const Model& m, const QuantOptions& opts) {
  std::set<std::string> names;
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& n : g.nodes) names.insert(n.name);
  });
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

std::vector<WeightSite> weight_sites(const Model& m, const QuantOptions& opts) { return weight_sites(m.graph, opts); }

std::vector<WeightSite> weight_sites(const Graph& g, const QuantOptions& opts) {
  std::vector<WeightSite> r;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    auto c = candidate(g, n, opts);
    if (c && c->weight && too_small(*c->weight, c->spec, opts).empty()) r.push_back({i, c->spec, n.inputs[c->spec.input]});
  }
  return r;
}

QuantizedWeight quantize_site_weight(const Tensor& w, const QuantWeightSpec& spec, const QuantOptions& opts) {
  if (opts.rounded)
    if (auto it = opts.rounded->find(weight_content_key(w)); it != opts.rounded->end()) return it->second;
  if (opts.bit_num != 4 && opts.group_size <= 0) {
    auto qw = quantize_weight(w, opts.per_channel && w.rank() > 0 ? spec.channel_axis : -1, opts.bit_num);
    if (opts.keep_weight_sums && spec.output_channel_axis) keep_scale_group_sums(qw, w);
    return qw;
  }
  // Blocked (4 bits, or 8 with a group size): blocks run along the reduction axis, the axis each output sums over, so that one scale
  // serves products that are added together. Conv also sums over its kernel window: its weight is
  // quantized as [M, C/group * kernel] and reshaped back after the DequantizeLinear.
  Tensor view = w.rank() == 0 ? w.reshaped({1}) : w;
  int axis = std::clamp(spec.reduce_axis, 0, std::max(0, w.rank() - 1));
  if (spec.reduce_trailing && w.rank() > 2 && spec.reduce_axis == 1 && spec.channel_axis == 0) {
    view = w.reshaped({w.dim(0), w.numel() / std::max<int64_t>(1, w.dim(0))});
    axis = 1;
  }
  const int64_t dim = std::max<int64_t>(1, view.dim(axis));
  const int64_t block = opts.group_size > 0 ? std::min(opts.group_size, dim) : dim;
  auto qw = quantize_weight_blocked(view, axis, block, opts.bit_num);
  if (opts.keep_weight_sums && spec.output_channel_axis) keep_scale_group_sums(qw, view);
  return qw;
}

std::vector<std::string> quantizable_nodes(const Model& m, const QuantOptions& opts) {
  std::vector<std::string> r;
  for_each_graph(m.graph, [&](const Graph& g) {
    const bool is_main = &g == &m.graph;  // activations are calibrated in the main graph only
    for (const auto& n : g.nodes) {
      auto c = candidate(g, n, opts);
      if (!c) continue;
      const bool weight = c->weight && too_small(*c->weight, c->spec, opts).empty();
      if (weight || (is_main && opts.type == QuantType::Full && !activation_inputs(g, n, c->spec).empty())) r.push_back(n.name);
    }
  });
  return r;
}

namespace {

// Rewrites one graph and, recursively, the If/Loop/Scan bodies of its nodes (deep copies: a copied
// Model shares its bodies with the original, which must stay float).
class GraphQuantizer {
 public:
  GraphQuantizer(const QuantOptions& o, const std::map<std::string, Range>& ranges, Names& names, QuantSummary& sum)
      : opts_(o), ranges_(ranges), names_(names), sum_(sum) {}
  bool used_blocks = false;  // a blocked (4-bit) DequantizeLinear was written: the model needs opset 21

  void run(Graph& g, bool is_main) {
    std::vector<Node> out;
    out.reserve(g.nodes.size());
    std::set<std::string> weights_done;
    std::map<std::string, std::string> act_done;  // float activation -> its dequantized name
    std::map<std::string, Tensor> new_inits;
    std::set<std::string> removed_inits;

    for (const Node& orig : g.nodes) {
      Node n = orig;
      quantize_bodies(n);
      auto c = candidate(g, n, opts_);
      if (!c) {
        if (is_main) note_why_float(g, n);
        out.push_back(std::move(n));
        continue;
      }
      bool touched = false;
      if (c->weight) {
        const Tensor& w = *c->weight;
        if (const std::string why = too_small(w, c->spec, opts_); !why.empty()) {
          if (is_main) sum_.kept_float.push_back(n.label() + ": " + why), sum_.why_float[n.name] = why;
        } else {
          std::vector<int> inputs{c->spec.input};
          inputs.insert(inputs.end(), c->spec.more_weights.begin(), c->spec.more_weights.end());
          for (int i : inputs) {
            if (i >= int(n.inputs.size()) || n.inputs[i].empty()) continue;
            const std::string wname = n.inputs[i];
            auto it = g.initializers.find(wname);
            if (it == g.initializers.end() || it->second.dtype() != DType::Float32) continue;
            touched = true;
            if (!weights_done.insert(wname).second) continue;  // shared weight, already quantized for an earlier consumer
            quantize_weight_input(g, it->second, wname, c->spec, out, new_inits);
            removed_inits.insert(wname);
          }
        }
      }
      // Activations: QuantizeLinear -> DequantizeLinear in front of this consumer.
      if (opts_.type == QuantType::Full) {
        const auto acts = activation_inputs(g, orig, c->spec);
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          const std::string a = n.inputs[i];
          if (std::find(acts.begin(), acts.end(), a) == acts.end()) continue;
          auto done = act_done.find(a);
          if (done == act_done.end()) {
            auto r = ranges_.find(a);
            if (r == ranges_.end()) continue;  // not observed (not float32, or in a body): stays float
            const ActivationParams p = activation_params(r->second, opts_.symmetric);
            const std::string sn = names_.fresh(a + "_scale"), zn = names_.fresh(a + "_zero_point"),
                              qn = names_.fresh(a + "_quantized"), dn = names_.fresh(a + "_dequantized");
            new_inits[sn] = Tensor::scalar<float>(p.scale);
            new_inits[zn] = zero_point_tensor(p);
            Node q;
            q.name = names_.fresh(a + "_QuantizeLinear");
            q.op_type = "QuantizeLinear";
            q.inputs = {a, sn, zn};
            q.outputs = {qn};
            Node dq;
            dq.name = names_.fresh(a + "_DequantizeLinear");
            dq.op_type = "DequantizeLinear";
            dq.inputs = {qn, sn, zn};
            dq.outputs = {dn};
            out.push_back(std::move(q));
            out.push_back(std::move(dq));
            done = act_done.emplace(a, dn).first;
            ++sum_.activations_quantized;
          }
          n.inputs[i] = done->second;
          touched = true;
        }
      }
      if (touched) ++sum_.nodes_quantized;
      out.push_back(std::move(n));
    }
    g.nodes = std::move(out);
    for (const auto& r : removed_inits) g.initializers.erase(r);
    for (auto& [k, v] : new_inits) g.initializers[k] = std::move(v);
  }

 private:
  void quantize_bodies(Node& n) {
    for (auto& [k, a] : n.attrs) {
      if (a.g) {
        a.g = std::make_shared<Graph>(*a.g);
        run(*a.g, false);
      }
      for (auto& sg : a.graphs) {
        sg = std::make_shared<Graph>(*sg);
        run(*sg, false);
      }
    }
  }

  void note_why_float(const Graph& g, const Node& n) {
    if (quant_weight_spec(n, 0) && (opts_.skip_nodes.count(n.name) || opts_.skip_op_types.count(n.op_type)))
      sum_.why_float[n.name] = "--skipNodes/--skipOpTypes";
    else if (depthwise_kept_float(g, n, opts_))
      sum_.why_float[n.name] = "depthwise convolution (per-tensor activation scales lose accuracy there)";
    else if (auto k = opts_.keep_float.find(n.name); k != opts_.keep_float.end() && quant_weight_spec(n, 0))
      sum_.why_float[n.name] = k->second;
    if (auto w = sum_.why_float.find(n.name); w != sum_.why_float.end()) sum_.kept_float.push_back(n.label() + ": " + w->second);
  }

  // The weight's integer initializer read through a DequantizeLinear that outputs the weight's
  // original name (and a Reshape back to its shape when it was quantized as a 2-D view).
  void quantize_weight_input(Graph& g, const Tensor& w, const std::string& wname, const QuantWeightSpec& spec,
                             std::vector<Node>& out, std::map<std::string, Tensor>& new_inits) {
    QuantizedWeight qw = quantize_site_weight(w, spec, opts_);
    const std::string qn = names_.fresh(wname + "_quantized"), sn = names_.fresh(wname + "_scale");
    // Bodies that fold their own copy of one outer weight quantize it once each, and the copies
    // are stored once (BodyInitializerSharing): its bytes count once (Silero VAD's LSTM weights
    // were counted twice, 3.07 MiB of float weights in a 2.22 MiB file).
    // A digest, not the bytes: IS-Net's keys would otherwise hold a second copy of its 44 MB.
    auto digest = [](const Tensor& t) {
      return std::hash<std::string_view>{}(std::string_view(static_cast<const char*>(t.raw()), t.nbytes()));
    };
    const std::string key = fmt::format("{}{}{}:{:x}:{:x}", int(qw.q.dtype()), shape_str(qw.q.shape()),
                                        shape_str(qw.scale.shape()), digest(qw.q), digest(qw.scale));
    const bool first_copy = counted_.insert(key).second;
    if (first_copy) {
      sum_.weight_bytes_before += w.nbytes();
      sum_.weight_bytes_after += stored_bytes(qw.q) + stored_bytes(qw.scale);
    }
    new_inits[qn] = qw.q;
    new_inits[sn] = qw.scale;
    // Old ONNX files list weights as optional graph inputs too; the quantized weight is no
    // longer something a caller can override, so it stops being an input.
    std::erase_if(g.inputs, [&](const ValueInfo& v) { return v.name == wname; });
    Node dq;
    dq.name = names_.fresh(wname + "_DequantizeLinear");
    dq.op_type = "DequantizeLinear";
    dq.inputs = {qn, sn};
    if (qw.zero_point.defined()) {
      const std::string zn = names_.fresh(wname + "_zero_point");
      if (first_copy) sum_.weight_bytes_after += stored_bytes(qw.zero_point);
      new_inits[zn] = qw.zero_point;
      dq.inputs.push_back(zn);
    }
    dq.outputs = {qw.q.shape() == w.shape() ? wname : names_.fresh(wname + "_dequantized")};
    if (qw.axis >= 0) dq.attrs["axis"] = Attribute::of_int(qw.axis);
    if (qw.block_size > 0) dq.attrs["block_size"] = Attribute::of_int(qw.block_size), used_blocks = true;
    if (qw.q.shape() != w.shape()) {
      const std::string shape_name = names_.fresh(wname + "_shape");
      new_inits[shape_name] = Tensor::from_vector<int64_t>(w.shape(), {int64_t(w.rank())});
      Node r;
      r.name = names_.fresh(wname + "_Reshape");
      r.op_type = "Reshape";
      r.inputs = {dq.outputs[0], shape_name};
      r.outputs = {wname};
      out.push_back(std::move(dq));
      out.push_back(std::move(r));
    } else {
      out.push_back(std::move(dq));
    }
    ++sum_.weights_quantized;
  }

  const QuantOptions& opts_;
  const std::map<std::string, Range>& ranges_;
  Names& names_;
  QuantSummary& sum_;
  std::set<std::string> counted_;  // the quantized weights counted, by a digest of their stored values
};

// Names read by the nodes of `g` and of every body nested in them.
void collect_reads(const Graph& g, std::set<std::string>& reads) {
  for (const auto& v : g.outputs) reads.insert(v.name);
  for (const auto& n : g.nodes) {
    reads.insert(n.inputs.begin(), n.inputs.end());
    for (const auto& [k, a] : n.attrs) {
      if (a.g) collect_reads(*a.g, reads);
      for (const auto& sg : a.graphs) collect_reads(*sg, reads);
    }
  }
}

// Drops the initializers nothing reads any more: the float weights that folding a body left behind
// in its enclosing body, and the biases that bias correction replaced; kept, they would be most
// of the file. Initializers that are graph inputs stay (a caller may feed them).
void drop_unread_initializers(Graph& g) {
  std::set<std::string> reads;
  collect_reads(g, reads);
  for (const auto& v : g.inputs) reads.insert(v.name);
  std::erase_if(g.initializers, [&](const auto& kv) { return !reads.count(kv.first); });
  for (auto& n : g.nodes)
    for (auto& [k, a] : n.attrs) {
      if (a.g) drop_unread_initializers(*a.g);
      for (auto& sg : a.graphs) drop_unread_initializers(*sg);
    }
}

// Renames reads of `from` to `to` in `g` and the bodies nested in it.
void rename_reads(Graph& g, const std::map<std::string, std::string>& to) {
  for (auto& n : g.nodes) {
    for (auto& in : n.inputs)
      if (auto it = to.find(in); it != to.end()) in = it->second;
    for (auto& [k, a] : n.attrs) {
      if (a.g) rename_reads(*a.g, to);
      for (auto& sg : a.graphs) rename_reads(*sg, to);
    }
  }
}

// If branches often fold their own copy of one outer weight (Silero VAD's two LSTM branches
// each read the same weight through an Unsqueeze): the initializers of bodies move to the main
// graph, where every body can read them, and identical ones are stored once.
class BodyInitializerSharing {
 public:
  explicit BodyInitializerSharing(Graph& main) : main_(main) {
    for (const auto& v : main.inputs) main_values_.insert(v.name);
    for (const auto& n : main.nodes) main_values_.insert(n.outputs.begin(), n.outputs.end());
  }
  void run(Graph& g) {
    for (auto& n : g.nodes)
      for (auto& [k, a] : n.attrs) {
        if (a.g) hoist(*a.g);
        for (auto& sg : a.graphs) hoist(*sg);
      }
  }

 private:
  void hoist(Graph& body) {
    run(body);
    std::set<std::string> pinned;  // the body's interface: inputs and outputs keep their names
    for (const auto& v : body.inputs) pinned.insert(v.name);
    for (const auto& v : body.outputs) pinned.insert(v.name);
    std::map<std::string, std::string> renamed;
    for (auto it = body.initializers.begin(); it != body.initializers.end();) {
      const Tensor& t = it->second;
      if (pinned.count(it->first) || t.dtype() == DType::String || main_.initializers.count(it->first) ||
          main_values_.count(it->first)) {
        ++it;
        continue;
      }
      std::string key = fmt::format("{}{}", int(t.dtype()), shape_str(t.shape()));
      key.append(static_cast<const char*>(t.raw()), t.nbytes());
      if (auto same = stored_.find(key); same != stored_.end()) {
        renamed[it->first] = same->second;
      } else {
        stored_.emplace(std::move(key), it->first);
        main_.initializers[it->first] = t;
      }
      it = body.initializers.erase(it);
    }
    if (!renamed.empty()) rename_reads(body, renamed);
  }

  Graph& main_;
  std::set<std::string> main_values_;  // names the main graph defines otherwise (inputs, node outputs)
  std::map<std::string, std::string> stored_;  // dtype, shape and bytes -> the main graph's name
};

}  // namespace

QuantSummary quantize_model(Model& m, const QuantOptions& opts, const std::map<std::string, Range>& ranges) {
  check_quantizable_opset(m);
  check_bit_num(opts);
  Names names(m.graph);
  QuantSummary sum;
  GraphQuantizer q(opts, ranges, names, sum);
  q.run(m.graph, true);
  drop_unread_initializers(m.graph);
  BodyInitializerSharing(m.graph).run(m.graph);
  if (q.used_blocks) raise_opset_to_21(m);
  return sum;
}

}  // namespace ms::quant
