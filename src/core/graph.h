// The IR: attributes, nodes, graphs (with subgraphs held by attributes), models.
// Operator semantics are ONNX's (default domain); the importer upgrades older opsets.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace ms {

struct Graph;

enum class AttrType { Undefined, Float, Int, String, Tensor, Graph, Floats, Ints, Strings, Tensors, Graphs };
std::string_view attr_type_name(AttrType t);

struct Attribute {
  AttrType type = AttrType::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;

  static Attribute of_float(float v);
  static Attribute of_int(int64_t v);
  static Attribute of_string(std::string v);
  static Attribute of_tensor(Tensor v);
  static Attribute of_graph(std::shared_ptr<Graph> v);
  static Attribute of_floats(std::vector<float> v);
  static Attribute of_ints(std::vector<int64_t> v);
  static Attribute of_strings(std::vector<std::string> v);
};

// A dimension is static (value >= 0), symbolic (param set) or unknown (value -1, no param).
struct Dim {
  int64_t value = -1;
  std::string param;
  bool is_static() const { return value >= 0; }
  static Dim fixed(int64_t v) { return Dim{v, {}}; }
  static Dim symbol(std::string p) { return Dim{-1, std::move(p)}; }
};

// Type of a graph value: a tensor (dtype + optional shape), a sequence of tensors, or an optional.
struct TypeInfo {
  enum class Kind { Unknown, Tensor, Sequence, Optional };
  Kind kind = Kind::Unknown;
  DType dtype = DType::Undefined;       // element dtype for Tensor
  std::optional<std::vector<Dim>> shape;  // nullopt = rank unknown
  std::shared_ptr<TypeInfo> elem;         // for Sequence / Optional

  static TypeInfo tensor(DType dt, std::vector<Dim> dims);
  static TypeInfo tensor(DType dt, const Shape& dims);
  static TypeInfo tensor_unknown_shape(DType dt);
  bool has_static_shape() const;
  Shape static_shape() const;  // requires has_static_shape()
  std::string str() const;     // "float32[1,3,N,224]"
};

struct ValueInfo {
  std::string name;
  TypeInfo type;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" = default ONNX domain
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::map<std::string, Attribute> attrs;
  std::string doc;

  const Attribute* attr(const std::string& key) const;
  // "name (OpType)" or "#index (OpType)" for messages.
  std::string label() const;
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;  // topological order (the verifier checks it)
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::map<std::string, Tensor> initializers;
  std::string doc;

  const ValueInfo* find_input(const std::string& n) const;
};

struct Model {
  int64_t ir_version = 8;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc;
  std::map<std::string, std::string> metadata;
  std::string source_path;  // file it was read from, for messages
  Graph graph;

  int64_t opset(const std::string& domain = "") const;
};

// Calls fn(graph) for the main graph and every subgraph (depth first); `g` may be const or not.
template <class G, class F>
void for_each_graph(G& g, F&& fn) {
  fn(g);
  for (auto& n : g.nodes)
    for (auto& [k, a] : n.attrs) {
      if (a.g) for_each_graph(static_cast<G&>(*a.g), fn);
      for (auto& sg : a.graphs)
        if (sg) for_each_graph(static_cast<G&>(*sg), fn);
    }
}

}  // namespace ms
