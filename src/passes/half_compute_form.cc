// The half-precision compute form of a float32 model (`ms convert --precision fp16|bf16`,
// `onnx2ms --precision float16`, the float layers of `ms quant --mixedPrecision`): activations and
// weights in float16 or bfloat16 wherever the op computes in them as it does in float32 (its OpDef
// carries kTraitHalfCompute), float32 elsewhere: BatchNormalization and the other normalizations,
// reductions, Softmax, Resize, control flow and the nodes the caller keeps. The graph's inputs and
// outputs keep float32, so callers feed and read what they did before.
//   y = f(x)  ->  y = Cast_float(f_half(Cast_half(x)))   (one Cast per value and direction)
// Weights read only by half nodes are stored in the half type; one read by both keeps a float copy.
#include <map>
#include <set>

#include "core/error.h"
#include "core/graph_sort.h"
#include "ops/infer_graph.h"
#include "ops/op.h"
#include "passes/basic_passes.h"
#include "passes/cast_nodes.h"

namespace ms::passes {
namespace {

bool has_subgraph(const Node& n) {
  for (const auto& [k, a] : n.attrs)
    if (a.type == AttrType::Graph || a.type == AttrType::Graphs) return true;
  return false;
}

// Every value a subgraph (If/Loop/Scan body, at any depth) reads: the outer values it captures
// among them must keep their type.
void collect_subgraph_reads(const Graph& g, bool inside, std::set<std::string>& reads) {
  for (const auto& n : g.nodes) {
    if (inside) reads.insert(n.inputs.begin(), n.inputs.end());
    for (const auto& [k, a] : n.attrs) {
      if (a.g) collect_subgraph_reads(*a.g, true, reads);
      for (const auto& sub : a.graphs) collect_subgraph_reads(*sub, true, reads);
    }
  }
}

Tensor to_half(const Tensor& t, DType half) {
  Tensor h(half, t.shape());
  const float* src = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (half == DType::Float16) h.data<float16_t>()[i] = float16_t(src[i]);
    else h.data<bfloat16_t>()[i] = bfloat16_t(src[i]);
  }
  return h;
}

class HalfForm {
 public:
  HalfForm(Model& m, DType half, const std::set<std::string>& keep) : m_(m), g_(m.graph), half_(half), keep_(keep) {
    for (const auto& [k, t] : g_.initializers) taken_.insert(k);
    for (const auto& v : g_.inputs) taken_.insert(v.name);
    for (const auto& n : g_.nodes) taken_.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& o : g_.outputs) outputs_.insert(o.name);
    collect_subgraph_reads(g_, false, captured_);
  }

  size_t run() {
    const GraphInference inferred = infer_graph(m_);
    auto dtype_of = [&](const std::string& v) -> std::optional<DType> {
      if (auto it = g_.initializers.find(v); it != g_.initializers.end()) return it->second.dtype();
      const TypeInfo* t = inferred.type_of(g_, v);
      if (!t || t->kind != TypeInfo::Kind::Tensor || t->dtype == DType::Undefined) return std::nullopt;
      return t->dtype;
    };
    std::vector<bool> half_node(g_.nodes.size());
    for (size_t k = 0; k < g_.nodes.size(); ++k) half_node[k] = computes_in_half(g_.nodes[k], dtype_of);
    std::map<std::string, size_t> producer;
    for (size_t k = 0; k < g_.nodes.size(); ++k)
      for (const auto& o : g_.nodes[k].outputs) producer[o] = k;
    auto produced_half = [&](const std::string& v) {
      auto it = producer.find(v);
      return it != producer.end() && half_node[it->second] && dtype_of(v) == DType::Float32;
    };

    std::set<std::string> read_as_float;  // weights some float32 node still reads
    for (size_t k = 0; k < g_.nodes.size(); ++k)
      if (!half_node[k])
        for (const auto& in : g_.nodes[k].inputs) read_as_float.insert(in);
    for (const auto& o : g_.outputs) read_as_float.insert(o.name);
    for (const auto& i : g_.inputs) read_as_float.insert(i.name);  // an input's default must keep its type
    read_as_float.insert(captured_.begin(), captured_.end());

    size_t half_nodes = 0;
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      Node& n = g_.nodes[k];
      if (half_node[k]) {
        ++half_nodes;
        for (auto& in : n.inputs) {
          if (in.empty() || dtype_of(in) != DType::Float32 || produced_half(in)) continue;
          in = half_copy(in, read_as_float.count(in) > 0);
        }
        for (auto& out : n.outputs)
          if (dtype_of(out) == DType::Float32 && outputs_.count(out)) out = renamed_output(out);
      } else {
        for (auto& in : n.inputs)
          if (!in.empty() && produced_half(in) && !outputs_.count(in)) in = cast_of(in, DType::Float32);
      }
    }
    // Outputs of half nodes are now half: their recorded types say so.
    for (auto& vi : g_.value_info)
      if (produced_half(vi.name) && !outputs_.count(vi.name)) vi.type.dtype = half_;
    // Half consumers of a renamed graph output read the half value.
    for (size_t k = 0; k < g_.nodes.size(); ++k)
      if (half_node[k])
        for (auto& in : g_.nodes[k].inputs)
          if (auto it = renamed_.find(in); it != renamed_.end()) in = it->second;
    for (auto& c : added_nodes_) g_.nodes.push_back(std::move(c));
    for (auto& [k, t] : added_weights_) g_.initializers[k] = std::move(t);
    if (!sort_nodes_topologically(g_)) fail("internal: the half-precision form made a cycle");
    return half_nodes;
  }

 private:
  template <class DTypeOf>
  bool computes_in_half(const Node& n, const DTypeOf& dtype_of) const {
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    if (!def || !(def->traits & kTraitHalfCompute) || keep_.count(n.name) || has_subgraph(n)) return false;
    for (const auto& out : n.outputs)
      if (captured_.count(out)) return false;
    bool any_float = false;
    auto fits = [&](const std::string& v) {
      if (v.empty()) return true;
      const auto t = dtype_of(v);
      if (!t) return false;  // unknown: leave the node as it is
      if (*t == DType::Float32) any_float = true;
      return *t == DType::Float32 || !is_float(*t);
    };
    for (const auto& in : n.inputs)
      if (!fits(in)) return false;
    for (const auto& out : n.outputs)
      if (!fits(out)) return false;
    return any_float;
  }

  static bool is_float(DType t) {
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
  }

  std::string fresh(const std::string& base) { return fresh_name(base, taken_); }

  // A float32 value as a half node reads it: a half copy of a weight, else a Cast.
  std::string half_copy(const std::string& v, bool float_readers) {
    if (auto it = g_.initializers.find(v); it != g_.initializers.end()) {
      auto [done, fresh_copy] = weight_copies_.try_emplace(v);
      if (fresh_copy) {
        // Read by half nodes only: converted in place; else a half copy beside the float one.
        done->second = float_readers ? fresh(v + suffix()) : v;
        added_weights_[done->second] = to_half(it->second, half_);
      }
      return done->second;
    }
    return cast_of(v, half_);
  }

  std::string cast_of(const std::string& v, DType to) {
    auto [it, fresh_cast] = casts_.try_emplace({v, to});
    if (fresh_cast) {
      it->second = fresh(v + (to == DType::Float32 ? "_float" : suffix()));
      added_nodes_.push_back(cast_node(it->second, v, it->second, to));
    }
    return it->second;
  }

  // A graph output computed in half: the node writes `name_half`, a Cast restores `name`.
  std::string renamed_output(const std::string& out) {
    const std::string h = fresh(out + suffix());
    renamed_[out] = h;
    added_nodes_.push_back(cast_node(out + "_to_float", h, out, DType::Float32));
    return h;
  }

  std::string suffix() const { return half_ == DType::Float16 ? "_fp16" : "_bf16"; }

  Model& m_;
  Graph& g_;
  DType half_;
  const std::set<std::string>& keep_;
  std::set<std::string> taken_, outputs_, captured_;
  std::map<std::string, std::string> weight_copies_, renamed_;
  std::map<std::pair<std::string, DType>, std::string> casts_;
  std::vector<Node> added_nodes_;
  std::map<std::string, Tensor> added_weights_;
};

}  // namespace

size_t to_half_compute_form(Model& m, DType half, const std::set<std::string>& keep_float32) {
  if (half != DType::Float16 && half != DType::BFloat16) fail("internal: {} is not a half-precision type", dtype_name(half));
  if (half == DType::BFloat16 && m.opset("") < 13)
    fail_unsupported("a bfloat16 compute form needs ONNX opset 13 or later (Cast to bfloat16); the model has opset {}",
                     m.opset(""));
  return HalfForm(m, half, keep_float32).run();
}

}  // namespace ms::passes
