#include "core/graph.h"

namespace ms {

std::string_view attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Float: return "float";
    case AttrType::Int: return "int";
    case AttrType::String: return "string";
    case AttrType::Tensor: return "tensor";
    case AttrType::Graph: return "graph";
    case AttrType::Floats: return "floats";
    case AttrType::Ints: return "ints";
    case AttrType::Strings: return "strings";
    case AttrType::Tensors: return "tensors";
    case AttrType::Graphs: return "graphs";
    default: return "undefined";
  }
}

Attribute Attribute::of_float(float v) { Attribute a; a.type = AttrType::Float; a.f = v; return a; }
Attribute Attribute::of_int(int64_t v) { Attribute a; a.type = AttrType::Int; a.i = v; return a; }
Attribute Attribute::of_string(std::string v) { Attribute a; a.type = AttrType::String; a.s = std::move(v); return a; }
Attribute Attribute::of_tensor(Tensor v) { Attribute a; a.type = AttrType::Tensor; a.t = std::move(v); return a; }
Attribute Attribute::of_graph(std::shared_ptr<Graph> v) { Attribute a; a.type = AttrType::Graph; a.g = std::move(v); return a; }
Attribute Attribute::of_floats(std::vector<float> v) { Attribute a; a.type = AttrType::Floats; a.floats = std::move(v); return a; }
Attribute Attribute::of_ints(std::vector<int64_t> v) { Attribute a; a.type = AttrType::Ints; a.ints = std::move(v); return a; }
Attribute Attribute::of_strings(std::vector<std::string> v) { Attribute a; a.type = AttrType::Strings; a.strings = std::move(v); return a; }

TypeInfo TypeInfo::tensor(DType dt, std::vector<Dim> dims) {
  TypeInfo t;
  t.kind = Kind::Tensor;
  t.dtype = dt;
  t.shape = std::move(dims);
  return t;
}

TypeInfo TypeInfo::tensor(DType dt, const Shape& dims) {
  std::vector<Dim> d;
  for (int64_t v : dims) d.push_back(Dim::fixed(v));
  return tensor(dt, std::move(d));
}

TypeInfo TypeInfo::tensor_unknown_shape(DType dt) {
  TypeInfo t;
  t.kind = Kind::Tensor;
  t.dtype = dt;
  return t;
}

bool TypeInfo::has_static_shape() const {
  if (kind != Kind::Tensor || !shape) return false;
  for (const Dim& d : *shape)
    if (!d.is_static()) return false;
  return true;
}

Shape TypeInfo::static_shape() const {
  Shape s;
  if (shape)
    for (const Dim& d : *shape) s.push_back(d.value);
  return s;
}

std::string TypeInfo::str() const {
  switch (kind) {
    case Kind::Tensor: {
      std::string r(dtype_name(dtype));
      if (!shape) return r + "[?]";
      r += "[";
      for (size_t i = 0; i < shape->size(); ++i) {
        const Dim& d = (*shape)[i];
        r += i ? "," : "";
        r += d.is_static() ? std::to_string(d.value) : (d.param.empty() ? "?" : d.param);
      }
      return r + "]";
    }
    case Kind::Sequence: return "seq(" + (elem ? elem->str() : "?") + ")";
    case Kind::Optional: return "optional(" + (elem ? elem->str() : "?") + ")";
    default: return "?";
  }
}

const Attribute* Node::attr(const std::string& key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : &it->second;
}

std::string Node::label() const {
  std::string n = name.empty() ? (outputs.empty() ? "<unnamed>" : "producing '" + outputs[0] + "'") : name;
  std::string type = domain.empty() ? op_type : domain + "." + op_type;
  return "node " + n + " (" + type + ")";
}

const ValueInfo* Graph::find_input(const std::string& n) const {
  for (const auto& v : inputs)
    if (v.name == n) return &v;
  return nullptr;
}

int64_t Model::opset(const std::string& d) const {
  auto it = opsets.find(d);
  if (it == opsets.end() && d.empty()) it = opsets.find("ai.onnx");
  return it == opsets.end() ? 0 : it->second;
}

}  // namespace ms
