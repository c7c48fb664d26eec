// MindIR keeps the tensor correspondence of core/tensor_origin.h: every tensor of the written model
// is found again by name after reading the file back (the compare tool pairs tensors so), and the
// model's metadata, "ms.tensor_origin" among it, travels in ModelProto.user_info.
#include <gtest/gtest.h>

#include <set>

#include "core/tensor_origin.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "test_util.h"

namespace ms {
namespace {

Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, Attribute> attrs = {}) {
  Node n = test::make_node(op, std::move(in), std::move(out), op + "_" + out[0]);
  n.attrs = std::move(attrs);
  return n;
}

std::set<std::string> value_names(const Model& m) {
  std::set<std::string> s;
  for (const auto& v : m.graph.inputs) s.insert(v.name);
  for (const auto& [n, t] : m.graph.initializers) s.insert(n);
  for (const auto& n : m.graph.nodes) s.insert(n.outputs.begin(), n.outputs.end());
  return s;
}

// Names chosen to collide with what the writer and reader make up: a biased Conv (written as
// Conv2D + BiasAdd, read back as one Conv), a value named like the reader's helper constants
// ("axes"), an Identity of a graph input, LayerNormalization whose unused statistics the reader
// must not leave behind, and a graph output that is a graph input.
Model model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "names";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 2, 4, 4})};
  m.graph.initializers["w"] = Tensor::from_vector<float>(std::vector<float>(2 * 2 * 3 * 3, 0.1f), {2, 2, 3, 3});
  m.graph.initializers["b"] = Tensor::from_vector<float>({0.5f, -0.5f}, {2});
  m.graph.initializers["g"] = Tensor::from_vector<float>({1.f, 1.f, 1.f, 1.f}, {4});
  m.graph.initializers["sq_axes"] = Tensor::from_vector<int64_t>({0}, {1});
  auto& n = m.graph.nodes;
  n.push_back(node("Conv", {"x", "w", "b"}, {"conv"}, {{"pads", Attribute::of_ints({1, 1, 1, 1})}}));
  n.push_back(node("Relu", {"conv"}, {"axes"}));
  n.push_back(node("Identity", {"x"}, {"x_copy"}));
  n.push_back(node("LayerNormalization", {"axes", "g"}, {"ln"}, {}));
  n.push_back(node("Squeeze", {"ln", "sq_axes"}, {"const"}));
  n.push_back(node("Add", {"const", "x_copy"}, {"y"}));
  m.graph.outputs = {{"y", {}}, {"x", {}}};
  return m;
}

TEST(MindirTensorNames, EveryValueKeepsItsName) {
  Model a = model();
  Model b = mindir::import_mindir_bytes(mindir::export_mindir_bytes(a), "names.mindir");
  std::set<std::string> have = value_names(b);
  for (const auto& name : {"x", "w", "conv", "axes", "x_copy", "ln", "const", "y"}) EXPECT_TRUE(have.count(name)) << name;
  ASSERT_EQ(b.graph.outputs.size(), 2u);
  EXPECT_EQ(b.graph.outputs[0].name, "y");
  EXPECT_EQ(b.graph.outputs[1].name, "x");
  // The biased Conv is one Conv again, named after the ONNX value; LayerNormalization's statistics
  // are not computed when nothing uses them.
  int convs = 0, others = 0;
  for (const auto& node : b.graph.nodes) {
    if (node.op_type == "Conv") {
      ++convs;
      EXPECT_EQ(node.outputs.at(0), "conv");
      EXPECT_EQ(node.inputs.size(), 3u);
    }
    if (node.op_type == "Reciprocal" || node.op_type == "Sub") ++others;
  }
  EXPECT_EQ(convs, 1);
  EXPECT_EQ(others, 0);
}

TEST(MindirTensorNames, MetadataAndTensorOriginTravelInUserInfo) {
  Model a = model();
  a.metadata["author"] = "unit test";
  record_tensor_origin(a, "conv", "conv_before_fusion");
  std::string bytes = mindir::export_mindir_bytes(a);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  ASSERT_TRUE(p.user_info().count("author"));
  EXPECT_EQ(p.user_info().at("author"), "unit test");
  ASSERT_TRUE(p.user_info().count(kTensorOriginKey));

  Model b = mindir::import_mindir_bytes(bytes, "names.mindir");
  EXPECT_EQ(b.metadata.at("author"), "unit test");
  TensorOriginMap origin = read_tensor_origin(b);
  EXPECT_EQ(tensor_origin_root(origin, "conv"), "conv_before_fusion");
  EXPECT_TRUE(value_names(b).count("conv"));
}

}  // namespace
}  // namespace ms
