// Pairing of intermediate tensors (names, ms.tensor_origin, structure, output position), the
// metadata that carries the origins through ONNX files, and running with tensors exposed.
#include <gtest/gtest.h>

#include "analysis/tensor_capture.h"
#include "analysis/tensor_pairing.h"
#include "compare_models.h"
#include "core/tensor_origin.h"
#include "runtime/session.h"

namespace ms::analysis {
namespace {

std::map<std::string, std::pair<std::string, PairedBy>> by_name(const std::vector<TensorPair>& pairs) {
  std::map<std::string, std::pair<std::string, PairedBy>> m;
  for (const auto& p : pairs) m[p.name] = {p.ref_name, p.by};
  return m;
}

TEST(ComparePairing, SameModelPairsEveryNodeOutputByNameInTopologicalOrder) {
  Model m = test::compare_cnn();
  auto pairs = pair_tensors(m, m);
  ASSERT_EQ(pairs.size(), m.graph.nodes.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(pairs[i].name, m.graph.nodes[i].outputs[0]);
    EXPECT_EQ(pairs[i].ref_name, pairs[i].name);
    EXPECT_EQ(pairs[i].node, i);
    EXPECT_EQ(pairs[i].by, PairedBy::Name);
  }
}

TEST(ComparePairing, RenamedTensorsPairThroughTheirRecordedOrigin) {
  Model ref = test::compare_cnn();
  Model m = ref;
  // Rename relu_a's output as a fusing pass would, and record where it came from (twice, composed).
  for (auto& n : m.graph.nodes) {
    for (auto& in : n.inputs)
      if (in == "ra") in = "fused_ra";
    for (auto& out : n.outputs)
      if (out == "ra") out = "fused_ra";
  }
  record_tensor_origin(m, "tmp_ra", "ra");
  record_tensor_origin(m, "fused_ra", "tmp_ra");
  EXPECT_EQ(read_tensor_origin(m).at("fused_ra"), "ra");
  auto pairs = by_name(pair_tensors(m, ref));
  ASSERT_TRUE(pairs.count("fused_ra"));
  EXPECT_EQ(pairs["fused_ra"], std::pair(std::string("ra"), PairedBy::Origin));
}

TEST(ComparePairing, OriginsSurviveOnnxAndMindIRFiles) {
  Model m = test::compare_cnn();
  record_tensor_origin(m, "x_new", "x_old");
  auto dir = test::temp_dir("compare_origin");
  Model onnx = test::through_file(m, dir / "m.onnx", ModelFormat::Onnx);
  Model mindir = test::through_file(m, dir / "m.mindir", ModelFormat::MindIR);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(read_tensor_origin(onnx), (TensorOriginMap{{"x_new", "x_old"}}));
  EXPECT_EQ(read_tensor_origin(mindir), (TensorOriginMap{{"x_new", "x_old"}}));
}

TEST(ComparePairing, MalformedOriginMetadataNamesTheFile) {
  Model m = test::compare_cnn();
  m.source_path = "broken.onnx";
  m.metadata[kTensorOriginKey] = "[1,2]";
  try {
    read_tensor_origin(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.onnx"), std::string::npos) << e.what();
  }
}

TEST(ComparePairing, UnnamedTensorsPairByStructure) {
  Model ref = test::compare_cnn();
  Model m = ref;
  // An importer that names the conv outputs after the operator, as the MindIR reader does.
  for (auto& n : m.graph.nodes) {
    for (auto& s : n.inputs) s = s == "ca" ? "Conv2D" : s == "cb" ? "Conv2D_1" : s;
    for (auto& s : n.outputs) s = s == "ca" ? "Conv2D" : s == "cb" ? "Conv2D_1" : s;
  }
  auto pairs = by_name(pair_tensors(m, ref));
  EXPECT_EQ(pairs["Conv2D"], std::pair(std::string("ca"), PairedBy::Structure));
  EXPECT_EQ(pairs["Conv2D_1"], std::pair(std::string("cb"), PairedBy::Structure));
  // A node whose inputs differ in number computes something else and stays unpaired.
  Model other = m;
  test::node_named(other, "conv_b").inputs.pop_back();
  EXPECT_FALSE(by_name(pair_tensors(other, ref)).count("Conv2D_1"));
}

TEST(ComparePairing, GraphOutputsPairByPosition) {
  Model ref = test::compare_cnn();
  Model m = ref;
  m.graph.nodes.back().outputs[0] = "scores";
  m.graph.outputs[0].name = "scores";
  auto pairs = by_name(pair_tensors(m, ref));
  EXPECT_EQ(pairs["scores"], std::pair(std::string("probs"), PairedBy::Output));
}

TEST(CompareCapture, ExposedTensorsHoldTheirValuesAndLeaveOutputsUnchanged) {
  // y = Neg(Relu(x)): the exposed Relu output must be max(x, 0).
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {4})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {4})};
  m.graph.nodes = {test::make_node("Relu", {"x"}, {"r"}, "relu"), test::make_node("Neg", {"r"}, {"y"}, "neg")};
  TensorCapture cap(m, {"r", "y"});
  Capture c = cap.run({Tensor::from_vector<float>({-1, 2, -3, 4}, {4})});
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.tensors.at("r").tensor.to_double_vector(), (std::vector<double>{0, 2, 0, 4}));
  EXPECT_EQ(c.tensors.at("y").tensor.to_double_vector(), (std::vector<double>{0, -2, 0, -4}));
  EXPECT_EQ(c.outputs[0].tensor.to_double_vector(), (std::vector<double>{0, -2, 0, -4}));
  EXPECT_TRUE(c.marking_changes.empty());
}

TEST(CompareCapture, OutputChangesAreMeasured) {
  std::vector<ValueInfo> outs{test::tensor_info("a", DType::Float32, {2}), test::tensor_info("b", DType::Float32, {2}),
                              test::tensor_info("c", DType::Float32, {2})};
  std::vector<Value> plain{Tensor::from_vector<float>({1, 2}, {2}), Tensor::from_vector<float>({1, 2}, {2}),
                           Tensor::from_vector<float>({0.0f, 1}, {2})};
  std::vector<Value> exposed{Tensor::from_vector<float>({1, 2}, {2}), Tensor::from_vector<float>({1, 2.5f}, {2}),
                             Tensor::from_vector<float>({-0.0f, 1}, {2})};
  auto changes = output_changes(outs, plain, exposed);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].output, "b");
  EXPECT_DOUBLE_EQ(changes[0].max_abs, 0.5);
  EXPECT_EQ(changes[1].output, "c");  // -0 and +0 compare equal but their bits differ
  EXPECT_GT(changes[1].max_abs, 0);
}

TEST(CompareCapture, ExposingEveryTensorOfTheCnnKeepsItsOutputBitForBit) {
  Model m = test::compare_cnn();
  std::vector<std::string> names;
  for (const auto& n : m.graph.nodes) names.push_back(n.outputs[0]);
  Tensor x(DType::Float32, {1, 3, 12, 12});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 101) / 50.0f - 1.0f;
  for (bool reference : {true, false}) {
    SessionOptions opts;
    opts.reference_kernels = reference;
    Capture c = TensorCapture(m, names, opts).run({x});
    EXPECT_EQ(c.tensors.size(), names.size());
    EXPECT_TRUE(c.marking_changes.empty()) << (reference ? "reference" : "fast") << " kernels";
  }
}

}  // namespace
}  // namespace ms::analysis
