// The op registry: one OpDef per operator holding its schema (inputs/outputs count, typed
// attributes with defaults), traits, type/shape inference and the reference kernel.
//
// An op file `src/ops/<name>.cc` defines `void register_op_<name>(OpRegistry&)`; the build
// generates the list that calls every such function (no static initializers).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"

namespace ms {

class KernelContext;
class InferContext;

using KernelFn = std::function<void(KernelContext&)>;
using InferFn = std::function<void(InferContext&)>;

enum OpTrait : uint32_t {
  kTraitNone = 0,
  kTraitElementwise = 1u << 0,     // output[i] depends only on input[i] (after broadcasting)
  kTraitUnary = 1u << 1,
  kTraitBroadcast = 1u << 2,       // numpy-style multidirectional broadcasting of inputs
  kTraitControlFlow = 1u << 3,     // runs subgraphs
  kTraitRandom = 1u << 4,          // nondeterministic output
  kTraitQuantized = 1u << 5,
  kTraitShapeOnly = 1u << 6,       // output depends only on input shapes (Shape, Size)
  kTraitSequence = 1u << 7,        // consumes or produces sequences
  kTraitPerChannelWeight = 1u << 8,  // input 1 is a weight with output channels on axis 0
  kTraitTraining = 1u << 9,        // training-only semantics
  // An op of the project's own domain with no standard ONNX form (no ONNX op or composition
  // computes it): ONNX Runtime cannot load it, so the ONNX writer refuses a model holding one.
  kTraitNoOnnxForm = 1u << 10,
  // Computes in float16 and bfloat16 as it does in float32: its float inputs and outputs share one
  // element type, and nothing in it needs float32 accumulation (a half-precision compute form may
  // run it in the half type; ops without it keep float32 there, between Casts).
  kTraitHalfCompute = 1u << 11,
};

struct AttrSpec {
  std::string name;
  AttrType type = AttrType::Undefined;
  bool required = false;
  std::optional<Attribute> default_value;
};

struct OpDef {
  std::string domain;  // "" = ai.onnx
  std::string op_type;
  int min_inputs = 0, max_inputs = 0;  // max -1 = variadic
  int min_outputs = 1, max_outputs = 1;
  std::vector<AttrSpec> attrs;
  uint32_t traits = 0;
  InferFn infer;    // may be empty: shapes then come from running the kernel
  KernelFn kernel;  // reference kernel; must exist

  explicit OpDef(std::string type, std::string dom = "") : domain(std::move(dom)), op_type(std::move(type)) {}
  OpDef& inputs(int min, int max) { min_inputs = min; max_inputs = max; return *this; }
  OpDef& inputs(int n) { return inputs(n, n); }
  OpDef& outputs(int min, int max) { min_outputs = min; max_outputs = max; return *this; }
  OpDef& outputs(int n) { return outputs(n, n); }
  OpDef& trait(uint32_t t) { traits |= t; return *this; }
  OpDef& attr_int(std::string n, int64_t def) { return add({std::move(n), AttrType::Int, false, Attribute::of_int(def)}); }
  OpDef& attr_float(std::string n, float def) { return add({std::move(n), AttrType::Float, false, Attribute::of_float(def)}); }
  OpDef& attr_string(std::string n, std::string def) { return add({std::move(n), AttrType::String, false, Attribute::of_string(std::move(def))}); }
  OpDef& attr_ints(std::string n, std::vector<int64_t> def = {}) { return add({std::move(n), AttrType::Ints, false, Attribute::of_ints(std::move(def))}); }
  OpDef& attr_floats(std::string n, std::vector<float> def = {}) { return add({std::move(n), AttrType::Floats, false, Attribute::of_floats(std::move(def))}); }
  OpDef& attr_strings(std::string n, std::vector<std::string> def = {}) { return add({std::move(n), AttrType::Strings, false, Attribute::of_strings(std::move(def))}); }
  // An attribute without a default: required=true means the op is invalid without it.
  OpDef& attr(std::string n, AttrType t, bool required) { return add({std::move(n), t, required, std::nullopt}); }
  OpDef& infer_fn(InferFn f) { infer = std::move(f); return *this; }
  OpDef& kernel_fn(KernelFn f) { kernel = std::move(f); return *this; }

  const AttrSpec* find_attr(const std::string& n) const;

 private:
  OpDef& add(AttrSpec s) { attrs.push_back(std::move(s)); return *this; }
};

class OpRegistry {
 public:
  // The registry with every op of src/ops registered (built once, then read-only).
  static const OpRegistry& global();

  void add(OpDef def);
  const OpDef* find(const std::string& domain, const std::string& op_type) const;
  std::vector<const OpDef*> all() const;

 private:
  std::map<std::pair<std::string, std::string>, std::unique_ptr<OpDef>> ops_;
};

// Attribute access shared by kernels and inference: the node's value, else the schema default,
// else an error naming the node.
class AttrReader {
 public:
  AttrReader(const Node& node, const OpDef& def) : node_(node), def_(def) {}
  const Node& node() const { return node_; }
  const OpDef& def() const { return def_; }
  bool has_attr(const std::string& n) const { return node_.attr(n) != nullptr; }
  int64_t attr_int(const std::string& n) const;
  float attr_float(const std::string& n) const;
  const std::string& attr_string(const std::string& n) const;
  const std::vector<int64_t>& attr_ints(const std::string& n) const;
  const std::vector<float>& attr_floats(const std::string& n) const;
  const std::vector<std::string>& attr_strings(const std::string& n) const;
  const Tensor& attr_tensor(const std::string& n) const;
  const Graph& attr_graph(const std::string& n) const;

 private:
  const Attribute& get(const std::string& n, AttrType t) const;
  const Node& node_;
  const OpDef& def_;
};

// Runs a subgraph (If/Loop/Scan body) with the caller's scope visible to it.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Value> run(const Graph& body, const std::vector<Value>& inputs) const = 0;
};

class KernelContext : public AttrReader {
 public:
  KernelContext(const Node& node, const OpDef& def, int opset, std::vector<const Value*> inputs,
                const SubgraphRunner* subgraphs)
      : AttrReader(node, def), opset_(opset), inputs_(std::move(inputs)), outputs_(node.outputs.size()),
        subgraphs_(subgraphs) {}

  int opset() const { return opset_; }  // the model's ai.onnx opset
  size_t num_inputs() const { return inputs_.size(); }
  // Omitted optional inputs ("" in the node, or past the end) are absent.
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr && !inputs_[i]->is_none(); }
  const Tensor& input(size_t i) const;  // error if absent or not a tensor
  const Value& input_value(size_t i) const;
  size_t num_outputs() const { return outputs_.size(); }
  // True when the node asks for output i (it may be omitted with "").
  bool wants_output(size_t i) const { return i < node().outputs.size() && !node().outputs[i].empty(); }
  void set_output(size_t i, Tensor t);
  void set_output_value(size_t i, Value v);
  std::vector<Value>& outputs() { return outputs_; }
  const SubgraphRunner& subgraphs() const;

 private:
  int opset_;
  std::vector<const Value*> inputs_;
  std::vector<Value> outputs_;
  const SubgraphRunner* subgraphs_;
};

// Type/shape inference for one node. Input types may have unknown dims; input_constant(i) is set
// when the input is an initializer or a folded constant (Reshape's shape, Slice's starts, ...).
class InferContext : public AttrReader {
 public:
  InferContext(const Node& node, const OpDef& def, int opset, std::vector<const TypeInfo*> input_types,
               std::vector<const Tensor*> input_constants)
      : AttrReader(node, def), opset_(opset), types_(std::move(input_types)),
        constants_(std::move(input_constants)), outputs_(node.outputs.size()) {}
  int opset() const { return opset_; }
  size_t num_inputs() const { return types_.size(); }
  bool has_input(size_t i) const { return i < types_.size() && types_[i] != nullptr; }
  const TypeInfo& input_type(size_t i) const;
  const Tensor* input_constant(size_t i) const { return i < constants_.size() ? constants_[i] : nullptr; }
  void set_output_type(size_t i, TypeInfo t);
  std::vector<TypeInfo>& output_types() { return outputs_; }

 private:
  int opset_;
  std::vector<const TypeInfo*> types_;
  std::vector<const Tensor*> constants_;
  std::vector<TypeInfo> outputs_;
};

}  // namespace ms
