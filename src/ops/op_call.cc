#include "ops/op_call.h"

namespace ms {

std::vector<Tensor> call_reference(const std::string& op_type, const std::vector<Tensor>& inputs,
                                   const std::map<std::string, Attribute>& attrs, int opset,
                                   const std::string& node_name, size_t num_outputs, const std::string& domain) {
  const OpDef* def = OpRegistry::global().find(domain, op_type);
  if (!def) fail("node {}: no reference kernel for {}", node_name, op_type);
  Node n;
  n.name = node_name;
  n.op_type = op_type;
  n.domain = domain;
  n.attrs = attrs;
  std::vector<Value> values(inputs.size());
  std::vector<const Value*> ptrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    n.inputs.push_back(inputs[i].defined() ? "in" + std::to_string(i) : "");
    if (inputs[i].defined()) values[i] = Value(inputs[i]);
    ptrs.push_back(inputs[i].defined() ? &values[i] : nullptr);
  }
  for (size_t i = 0; i < num_outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  KernelContext ctx(n, *def, opset, ptrs, nullptr);
  def->kernel(ctx);
  std::vector<Tensor> out;
  for (size_t i = 0; i < num_outputs; ++i) {
    if (!ctx.outputs()[i].is_tensor()) fail("{}: produced no tensor output {}", n.label(), i);
    out.push_back(ctx.outputs()[i].tensor);
  }
  return out;
}

}  // namespace ms
