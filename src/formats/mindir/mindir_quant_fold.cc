#include "formats/mindir/mindir_quant_fold.h"

#include <algorithm>

namespace ms::mindir {

namespace {

bool is_op(const Node& n, const char* op) { return n.domain.empty() && n.op_type == op; }

// Names read anywhere inside subgraphs (outer-scope references of If/Loop/Scan bodies).
void collect_subgraph_reads(const Graph& g, std::set<std::string>& out) {
  for (const Node& n : g.nodes)
    for (const auto& [k, a] : n.attrs) {
      std::vector<const Graph*> subs;
      if (a.g) subs.push_back(a.g.get());
      for (const auto& s : a.graphs) subs.push_back(s.get());
      for (const Graph* s : subs) {
        for (const Node& m : s->nodes)
          for (const auto& i : m.inputs) out.insert(i);
        for (const auto& o : s->outputs) out.insert(o.name);
        collect_subgraph_reads(*s, out);
      }
    }
}

const Tensor* init(const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
  auto it = g.initializers.find(n.inputs[i]);
  return it == g.initializers.end() ? nullptr : &it->second;
}

bool has_input(const Node& n, size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); }

// Only the attributes every opset gives these ops (axis); saturate/block_size/output_dtype say
// things MindSpore's parameters cannot.
bool plain_attrs(const Node& n) {
  return std::all_of(n.attrs.begin(), n.attrs.end(), [](const auto& kv) { return kv.first == "axis"; });
}

// The weight form: DequantizeLinear(int8/uint8 initializer, float32 scale initializer (scalar or
// per channel), optional zero-point initializer of the same type).
bool fold_weight(const Graph& g, const Node& n, QuantFoldPlan::Weight& w) {
  const Tensor* q = init(g, n, 0);
  const Tensor* s = init(g, n, 1);
  const Tensor* z = init(g, n, 2);
  if (!q || !s || (has_input(n, 2) && !z) || !plain_attrs(n) || n.outputs.size() != 1) return false;
  if ((q->dtype() != DType::Int8 && q->dtype() != DType::UInt8) || s->dtype() != DType::Float32 || s->rank() > 1) return false;
  if (z && (z->dtype() != q->dtype() || z->shape() != s->shape())) return false;
  if (s->numel() == 1) {
    w.axis = -1;
  } else {
    const Attribute* a = n.attr("axis");
    int64_t axis = a ? a->i : 1;  // ONNX's default
    if (axis < 0) axis += q->rank();
    if (axis < 0 || axis >= q->rank() || q->dim(static_cast<int>(axis)) != s->numel()) return false;
    w.axis = static_cast<int>(axis);
  }
  // Narrow range is a fact of the integers: symmetric int8 weights that never use -128.
  bool narrow = false;
  if (q->dtype() == DType::Int8 && (!z || std::all_of(z->data<int8_t>(), z->data<int8_t>() + z->numel(), [](int8_t v) { return v == 0; }))) {
    const int8_t* d = q->data<int8_t>();
    narrow = std::none_of(d, d + q->numel(), [](int8_t v) { return v == -128; });
  }
  w.q = q;
  w.params = linear_quant_from_ir(*s, z, q->dtype(), narrow);
  return true;
}

bool same_values(const Tensor* a, const Tensor* b) {
  if (!a || !b) return a == b;
  return a->dtype() == b->dtype() && a->numel() == b->numel() && a->to_double_vector() == b->to_double_vector();
}

}  // namespace

QuantFoldPlan plan_quant_folding(const Model& m, const std::set<std::string>& unfolded) {
  const Graph& g = m.graph;
  QuantFoldPlan plan;
  std::map<std::string, std::vector<const Node*>> readers;
  std::map<std::string, const Node*> producer;
  for (const Node& n : g.nodes) {
    for (const auto& i : n.inputs)
      if (!i.empty()) readers[i].push_back(&n);
    for (const auto& o : n.outputs)
      if (!o.empty()) producer[o] = &n;
  }
  std::set<std::string> outputs, graph_inputs, sub_reads;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  for (const auto& i : g.inputs)
    if (!g.initializers.count(i.name)) graph_inputs.insert(i.name);
  collect_subgraph_reads(g, sub_reads);

  for (const Node& n : g.nodes) {
    if (is_op(n, "DequantizeLinear")) {
      QuantFoldPlan::Weight w;
      if (!unfolded.count(n.outputs.at(0)) && fold_weight(g, n, w)) {
        plan.weight_nodes[&n] = n.outputs[0];
        plan.weights[n.outputs[0]] = w;
      }
      continue;
    }
    if (!is_op(n, "QuantizeLinear") || !plain_attrs(n) || n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1) continue;
    const Tensor* s = init(g, n, 1);
    const Tensor* z = init(g, n, 2);
    if (!s || s->dtype() != DType::Float32 || s->numel() != 1 || (has_input(n, 2) && !z)) continue;
    if (z && ((z->dtype() != DType::Int8 && z->dtype() != DType::UInt8) || z->numel() != 1)) continue;
    const std::string& qv = n.outputs[0];
    if (outputs.count(qv) || sub_reads.count(qv) || !readers.count(qv)) continue;
    // Every reader of the integers is a DequantizeLinear with the same parameters.
    bool pair = true;
    std::vector<const Node*> dqs;
    for (const Node* r : readers[qv]) {
      const bool same = is_op(*r, "DequantizeLinear") && plain_attrs(*r) && r->inputs.size() >= 2 && r->inputs[0] == qv &&
                        r->outputs.size() == 1 && same_values(init(g, *r, 1), s) && same_values(init(g, *r, 2), z) &&
                        has_input(*r, 2) == has_input(n, 2) && !outputs.count(r->outputs[0]);
      if (!same) pair = false;
      dqs.push_back(r);
    }
    if (!pair) continue;
    QuantFoldPlan::Activation a;
    a.value = n.inputs[0];
    a.params = linear_quant_from_ir(*s, z, z ? z->dtype() : DType::UInt8, false);
    for (const Node* d : dqs) a.dequantized.push_back(d->outputs[0]);
    const auto& uses = readers[a.value];
    const bool only_this_pair = std::all_of(uses.begin(), uses.end(), [&](const Node* r) { return r == &n; }) &&
                                !outputs.count(a.value) && !sub_reads.count(a.value);
    auto p = producer.find(a.value);
    const bool plain_producer = p != producer.end() && !is_op(*p->second, "Constant") && !is_op(*p->second, "QuantizeLinear") &&
                                !is_op(*p->second, "DequantizeLinear") && !(p->second->domain.empty() && p->second->op_type == "SequenceMap");
    if (only_this_pair && plain_producer) a.carrier = QuantFoldPlan::Carrier::Producer;
    else if (only_this_pair && graph_inputs.count(a.value)) a.carrier = QuantFoldPlan::Carrier::GraphInput;
    const size_t idx = plan.activations.size();
    plan.activation_nodes[&n] = idx;
    for (const Node* d : dqs) plan.activation_nodes[d] = idx;
    plan.activations.push_back(std::move(a));
  }
  // One graph_input_quant_param per primitive, and it applies to every graph input the primitive
  // reads: a consumer of two quantized graph inputs, or of a quantized and a float one, needs the
  // Identity form.
  std::map<std::string, size_t> dq_to_graph_input;
  for (size_t k = 0; k < plan.activations.size(); ++k)
    if (plan.activations[k].carrier == QuantFoldPlan::Carrier::GraphInput)
      for (const auto& d : plan.activations[k].dequantized) dq_to_graph_input[d] = k;
  for (const Node& n : g.nodes) {
    std::set<size_t> seen;
    bool reads_float_input = false;  // the attribute would quantize it too
    for (const auto& i : n.inputs) {
      if (auto it = dq_to_graph_input.find(i); it != dq_to_graph_input.end()) seen.insert(it->second);
      reads_float_input = reads_float_input || graph_inputs.count(i);
    }
    if (seen.size() > 1 || (!seen.empty() && reads_float_input))
      for (size_t k : seen) plan.activations[k].carrier = QuantFoldPlan::Carrier::Identity;
  }
  for (size_t k = 0; k < plan.activations.size(); ++k) {
    const auto& a = plan.activations[k];
    if (a.carrier == QuantFoldPlan::Carrier::Producer) plan.producer_outputs[a.value] = k;
    if (a.carrier == QuantFoldPlan::Carrier::GraphInput) plan.graph_inputs[a.value] = k;
  }
  return plan;
}

}  // namespace ms::mindir
