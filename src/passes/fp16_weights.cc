// --fp16 on: float32 weights are stored as float16; a Cast right after each restores float32 for
// the ops that use it, so the graph computes in float32 with fp16-rounded weights. Quantization
// parameters stay float32: a Cast in front of a DequantizeLinear's scale would change the scale and
// hide it from the runtime's int8 fusions, which read scales as initializers.
#include <set>

#include "ops/op.h"
#include "passes/basic_passes.h"

namespace ms::passes {

size_t weights_to_fp16(Model& m) {
  Graph& g = m.graph;
  std::set<std::string> inputs;
  for (const auto& v : g.inputs) inputs.insert(v.name);
  std::set<std::string> quant_params;  // read by QuantizeLinear, DequantizeLinear, QLinearConv, ...
  for (const auto& n : g.nodes)
    if (const OpDef* d = OpRegistry::global().find(n.domain, n.op_type); d && (d->traits & kTraitQuantized))
      quant_params.insert(n.inputs.begin(), n.inputs.end());
  std::vector<Node> casts;
  std::map<std::string, Tensor> added;
  std::set<std::string> taken;
  for (const auto& [k, t] : g.initializers) taken.insert(k);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) taken.insert(o);
  size_t converted = 0;
  for (auto& [name, t] : g.initializers) {
    if (t.dtype() != DType::Float32 || inputs.count(name) || quant_params.count(name) || t.numel() < 2) continue;
    Tensor h(DType::Float16, t.shape());
    const float* src = t.data<float>();
    float16_t* dst = h.data<float16_t>();
    for (int64_t i = 0; i < t.numel(); ++i) dst[i] = float16_t(src[i]);
    std::string hn = name + "_fp16";
    for (int k = 1; taken.count(hn); ++k) hn = name + "_fp16_" + std::to_string(k);
    taken.insert(hn);
    added[hn] = h;
    Node c;
    c.op_type = "Cast";
    c.name = name + "_to_fp32";
    c.inputs = {hn};
    c.outputs = {name};
    c.attrs["to"] = Attribute::of_int(static_cast<int64_t>(DType::Float32));
    casts.push_back(std::move(c));
    ++converted;
  }
  for (const auto& c : casts) g.initializers.erase(c.outputs[0]);
  for (auto& [k, t] : added) g.initializers[k] = t;
  g.nodes.insert(g.nodes.begin(), casts.begin(), casts.end());
  return converted;
}

}  // namespace ms::passes
