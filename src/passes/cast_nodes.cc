#include "passes/cast_nodes.h"

namespace ms::passes {

Node cast_node(const std::string& name, const std::string& in, const std::string& out, DType to) {
  Node c;
  c.op_type = "Cast";
  c.name = name;
  c.inputs = {in};
  c.outputs = {out};
  c.attrs["to"] = Attribute::of_int(static_cast<int64_t>(to));
  return c;
}

std::string fresh_name(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  for (int k = 1; taken.count(name); ++k) name = base + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

}  // namespace ms::passes
