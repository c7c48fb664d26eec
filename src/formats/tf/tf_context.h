// What a TensorFlow op converter sees: the node's inputs resolved to IR values, its attributes,
// constant inputs, and the builder to emit IR nodes with. One converter per TF op type, grouped by
// kind in tf_ops_*.cc; a converter names its results with output_name() so that graph outputs keep
// TensorFlow's node names.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "formats/import_builder.h"
#include "tf_graph.pb.h"

namespace ms::tf_format {

class TfContext;
using Converter = std::function<void(TfContext&, const ms_tf::NodeDef&)>;
using ConverterTable = std::map<std::string, Converter>;

void add_nn_converters(ConverterTable& t);      // tf_ops_nn.cc: conv, pool, norm, resize, activations
void add_math_converters(ConverterTable& t);    // tf_ops_math.cc: arithmetic, matmul, reductions
void add_array_converters(ConverterTable& t);   // tf_ops_array.cc: shapes, slicing, joining

class TfContext {
 public:
  explicit TfContext(Model& m) : model_(m), b(m.graph) {}

  size_t num_inputs(const ms_tf::NodeDef& n) const;  // data inputs (control inputs excluded)
  std::string input(const ms_tf::NodeDef& n, size_t i) const;
  // The value of input i when it is a constant, else nullptr.
  const Tensor* constant_input(const ms_tf::NodeDef& n, size_t i) const;
  const Tensor& require_constant(const ms_tf::NodeDef& n, size_t i, const char* what) const;
  std::vector<int64_t> constant_ints(const ms_tf::NodeDef& n, size_t i, const char* what) const;

  // The IR name of output k (TensorFlow's name for output 0, `<node>_<k>` for the others).
  std::string output_name(const ms_tf::NodeDef& n, int k = 0);
  // Output k is the existing IR value `value` (Identity and other pass-through ops).
  void alias_output(const ms_tf::NodeDef& n, int k, const std::string& value);
  // Resolves "node" / "node:k" to an IR value; error when the node has no such output.
  std::string resolve(const std::string& tf_name) const;
  int outputs_of(const std::string& node) const;  // how many outputs a converted node defined

  bool has_attr(const ms_tf::NodeDef& n, const char* key) const;
  int64_t attr_int(const ms_tf::NodeDef& n, const char* key, int64_t def) const;
  float attr_float(const ms_tf::NodeDef& n, const char* key, float def) const;
  bool attr_bool(const ms_tf::NodeDef& n, const char* key, bool def) const;
  std::string attr_string(const ms_tf::NodeDef& n, const char* key, const std::string& def) const;
  std::vector<int64_t> attr_ints(const ms_tf::NodeDef& n, const char* key) const;
  DType attr_dtype(const ms_tf::NodeDef& n, const char* key, DType def) const;
  bool channels_first(const ms_tf::NodeDef& n) const;  // data_format NCHW / NCDHW

  // Static facts about an IR value from shape inference over what is built so far: rank (-1 when
  // unknown) and dims (-1 for unknown ones).
  int rank_of(const std::string& value) const;
  std::vector<int64_t> dims_of(const std::string& value) const;

  Model& model() { return model_; }

 private:
  Model& model_;
  std::map<std::string, std::vector<std::string>> outputs_;  // TF node -> IR value per output

 public:
  importer::GraphBuilder b;
};

}  // namespace ms::tf_format
