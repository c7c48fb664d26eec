// Runs the built `ms` binary on crafted good and bad inputs: exit codes and one-line messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "test_util.h"

namespace ms {
namespace {

test::CmdResult run_ms(const std::string& args) {
  return test::run_command(std::string(MS_BINARY) + " " + args + " 2>&1");
}

// y = Relu(x + b) with x: float32[2,3].
Model add_relu_model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "add_relu";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 3})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {2, 3})};
  m.graph.initializers["b"] = Tensor::from_vector<float>({-1, 0, 1}, {3});
  m.graph.nodes = {test::make_node("Add", {"x", "b"}, {"s"}, "add"), test::make_node("Relu", {"s"}, {"y"}, "relu")};
  return m;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("cli"); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  std::filesystem::path dir;
};

TEST_F(Cli, RunWritesOneNpyPerOutput) {
  save_model(add_relu_model(), path("m.onnx"), ModelFormat::Onnx);
  io::write_npy(path("x.npy"), Tensor::from_vector<float>({1, 1, 1, -5, 2, -3}, {2, 3}));
  auto r = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("x.npy") + " --outputDir " + path("out"));
  ASSERT_EQ(r.code, 0) << r.output;
  Tensor y = io::read_npy(path("out/output_0.npy"));
  EXPECT_EQ(y.to_double_vector(), (std::vector<double>{0, 1, 2, 0, 2, 0}));
}

TEST_F(Cli, WrongInputShapeNamesTheInputAndBothShapes) {
  save_model(add_relu_model(), path("m.onnx"), ModelFormat::Onnx);
  io::write_npy(path("x.npy"), Tensor::from_vector<float>({1, 2, 3, 4}, {4}));
  auto r = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("x.npy") + " --outputDir " + path("out"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("'x'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[2,3]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[4]"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("out/output_0.npy")));
}

TEST_F(Cli, UnknownOperatorIsUnsupportedAndNamed) {
  Model m = add_relu_model();
  m.graph.nodes[1].op_type = "FancyOp";
  save_model(m, path("m.onnx"), ModelFormat::Onnx);
  auto r = run_ms("run --modelFile " + path("m.onnx") + " --outputDir " + path("out"));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("FancyOp"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("relu"), std::string::npos) << r.output;
}

TEST_F(Cli, MissingTensorReferenceNamesTheNode) {
  Model m = add_relu_model();
  m.graph.nodes[1].inputs = {"nowhere"};
  save_model(m, path("m.onnx"), ModelFormat::Onnx);
  auto r = run_ms("run --modelFile " + path("m.onnx") + " --outputDir " + path("out"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("nowhere"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("relu"), std::string::npos) << r.output;
}

TEST_F(Cli, TruncatedModelIsAnErrorNamingTheFile) {
  save_model(add_relu_model(), path("m.onnx"), ModelFormat::Onnx);
  auto size = std::filesystem::file_size(path("m.onnx"));
  std::filesystem::resize_file(path("m.onnx"), size / 2);
  auto r = run_ms("run --modelFile " + path("m.onnx") + " --outputDir " + path("out"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("m.onnx"), std::string::npos) << r.output;
}

TEST_F(Cli, BadFlagIsUsageError) {
  auto r = run_ms("run --noSuchFlag 1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(run_ms("frobnicate").code, 2);
  EXPECT_EQ(run_ms("run --help").code, 0);
}

TEST_F(Cli, InfoJsonListsInputsOpsAndParameters) {
  save_model(add_relu_model(), path("m.onnx"), ModelFormat::Onnx);
  auto r = run_ms("info --json --modelFile " + path("m.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("\"parameters\": 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"Relu\": 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"name\": \"x\""), std::string::npos) << r.output;
}

TEST_F(Cli, ConvertToOnnxKeepsTheModelRunnable) {
  save_model(add_relu_model(), path("m.onnx"), ModelFormat::Onnx);
  auto r = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --saveType ONNX --outputFile " + path("c"));
  ASSERT_EQ(r.code, 0) << r.output;
  io::write_npy(path("x.npy"), Tensor::from_vector<float>({1, 1, 1, -5, 2, -3}, {2, 3}));
  auto run = run_ms("run --modelFile " + path("c.onnx") + " --inDataFile " + path("x.npy") + " --outputDir " + path("o"));
  EXPECT_EQ(run.code, 0) << run.output;
}

}  // namespace
}  // namespace ms
