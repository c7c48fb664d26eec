// What a TFLite op converter sees: its input tensors as IR values (dequantized to float when the
// tensor is quantized), constant inputs and weights, static tensor shapes, and set_output(), which
// applies the fused activation and the output tensor's quantization. One converter per builtin op
// (tflite_ops_*.cc), keyed by BuiltinOperator; custom ops are keyed by their custom_code.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "formats/import_builder.h"
#include "tflite_schema_generated.h"

namespace ms::tflite_format {

class TfliteContext;
using Op = mstflite::Operator;
using Converter = std::function<void(TfliteContext&, const Op&)>;
struct ConverterTables {
  std::map<int, Converter> builtin;
  std::map<std::string, Converter> custom;
};

void add_nn_converters(ConverterTables& t);     // tflite_ops_nn.cc: conv, pool, resize, activations
void add_array_converters(ConverterTables& t);  // tflite_ops_array.cc: arithmetic, shapes, slicing, quantization
void add_detection_converters(ConverterTables& t);  // tflite_ops_detection.cc: TFLite_Detection_PostProcess
void add_control_flow_converters(ConverterTables& t);  // tflite_ops_control.cc: IF, WHILE

class TfliteContext {
 public:
  // Imports subgraph `subgraph` of `fb` into `g`. Subgraphs other than 0 (IF/WHILE bodies) are imported
  // with a name `prefix` (IR names are unique across a graph and its subgraphs); `callers` are the
  // subgraphs whose operators call this one, outermost first.
  TfliteContext(Graph& g, const mstflite::Model& fb, int subgraph, std::shared_ptr<const std::string> file,
                std::string prefix = "", std::vector<int> callers = {});

  const mstflite::Tensor& tensor(int index) const;
  int input_index(const Op& op, size_t i) const;  // -1 when absent or omitted
  bool has_input(const Op& op, size_t i) const { return input_index(op, i) >= 0; }
  // The float (dequantized) IR value of input i.
  std::string input(const Op& op, size_t i);
  // Input i's stored value (quantized values stay quantized), or nullopt when computed at run time.
  std::optional<Tensor> constant(const Op& op, size_t i);
  std::vector<int64_t> constant_ints(const Op& op, size_t i, const char* what);
  // A constant weight permuted by `perm` as a float IR value (quantized weights behind a
  // DequantizeLinear whose channel axis follows the permutation).
  std::string weight(const Op& op, size_t i, const std::vector<int64_t>& perm);
  Shape input_shape(const Op& op, size_t i) const;
  Shape output_shape(const Op& op, size_t k) const;
  DType output_dtype(const Op& op, size_t k) const;

  // A name for the value an op computes for output k, then the value itself: set_output adds the
  // fused activation and the output's QuantizeLinear/DequantizeLinear.
  std::string out_hint(const Op& op, size_t k) const;
  void set_output(const Op& op, size_t k, const std::string& value, int fused_activation = 0);
  // Output k is a compile-time constant (DEQUANTIZE of fp16 weights, DENSIFY).
  void set_constant_output(const Op& op, size_t k, Tensor value);

  // Graph inputs/outputs of the subgraph.
  void bind_graph_input(int index);
  std::string graph_output_value(int index);  // the stored (quantized when quantized) value
  // A subgraph input bound to a value of the enclosing scope (IF branches).
  void bind_value(int index, const std::string& value);
  // All operators of the subgraph, in order (errors name the operator).
  void convert_operators();

  // Control flow: subgraph `index` imported into `into` (a branch or loop body) with its inputs
  // bound to `inputs` (values visible there); returns the values of its outputs.
  std::vector<std::string> import_subgraph(int index, Graph& into, const std::vector<std::string>& inputs,
                                           const std::string& prefix);
  // The IR type of a tensor of subgraph `subgraph` (graph inputs/outputs of bodies).
  TypeInfo tensor_type(int subgraph, int index) const;
  const mstflite::SubGraph& subgraph(int index) const;
  // Names of `g` (and its subgraphs) that this context's builder must not reuse.
  void reserve_names_of(const Graph& g);

  importer::GraphBuilder b;

 private:
  bool quantized(const mstflite::Tensor& t) const;
  std::string name_of(int index) const;
  std::optional<Tensor> stored(int index) const;  // buffer (densified) or folded constant
  std::string dequantize(const std::string& raw, const mstflite::Tensor& t, const std::vector<int64_t>& perm,
                         const std::string& hint);
  std::string materialize(int index);

  Graph& graph_;
  const mstflite::Model& fb_;
  const mstflite::SubGraph& sg_;
  std::shared_ptr<const std::string> file_;
  std::string prefix_;
  std::vector<int> chain_;  // callers, then this subgraph
  std::map<int, std::string> values_;     // tensor -> float IR value
  std::map<int, std::string> raw_values_;  // quantized tensor -> its stored-type IR value
  std::map<int, Tensor> folded_;
};

DType dtype_from_tflite(int type);  // Undefined when the IR has no equivalent
Tensor to_float32(const Tensor& half);  // fp16-stored weights

}  // namespace ms::tflite_format
