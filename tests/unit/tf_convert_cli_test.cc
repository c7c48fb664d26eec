// `ms convert --fmk TF|TFLITE` options of the importers: output types printed and written after
// --inputShape (not the import's [?,10]), and --inputLayout's checks and effect on the inputs.
#include <gtest/gtest.h>

#include <filesystem>

#include "formats/model_io.h"
#include "test_util.h"

namespace ms {
namespace {

const std::string kFcLayers = std::string(MS_SOURCE_DIR) + "/tests/data/tf/tf2onnx_fc-layers_frozen.pb";
const std::string kFaceDetection =
    std::string(MS_SOURCE_DIR) + "/tests/real_models/node_modules/@mediapipe/face_detection/face_detection_short_range.tflite";

test::CmdResult run_ms(const std::string& args) { return test::run_command(std::string(MS_BINARY) + " " + args + " 2>&1"); }

class TfConvertCli : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("tf_convert_cli"); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  std::filesystem::path dir;
};

TEST_F(TfConvertCli, OutputTypesFollowInputShape) {
  ASSERT_TRUE(std::filesystem::exists(kFcLayers)) << kFcLayers << " is missing (tests/data/tf is part of the repository)";
  // The graph's batch is unknown (X: [?,784]); fixing it to 3 makes the 784->10 MLP's output [3,10].
  auto r = run_ms("convert --fmk TF --modelFile " + kFcLayers + " --saveType ONNX --outputFile " + path("fc") +
                  " --inputShape X:3,784");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("output float32[3,10]"), std::string::npos) << r.output;
  Model m = load_model(path("fc.onnx"));
  ASSERT_EQ(m.graph.outputs.size(), 1u);
  EXPECT_EQ(m.graph.outputs[0].type.str(), "float32[3,10]");
}

// The gru graph's keep_prob is a Placeholder of unknown rank: ONNX wants a shape on every input, so
// without one the ONNX writer refuses (exit 2, naming the input and --inputShape) and writes nothing;
// "keep_prob:[]" makes it a scalar, accepted by convert and model_check alike, and an IR version
// that matches the opset written.
TEST_F(TfConvertCli, UnknownRankInputNeedsInputShapeForOnnx) {
  const std::string gru = std::string(MS_SOURCE_DIR) + "/tests/data/tf/tf2onnx_gru_frozen.pb";
  ASSERT_TRUE(std::filesystem::exists(gru)) << gru << " is missing";
  auto r = run_ms("convert --fmk TF --modelFile " + gru + " --saveType ONNX --outputFile " + path("gru") + " --inputShape X:1,784");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("'keep_prob'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--inputShape \"keep_prob:[]\""), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("gru.onnx")));
  r = run_ms("convert --fmk TF --modelFile " + gru + " --saveType ONNX --outputFile " + path("gru") +
             " --inputShape \"X:[1,784];keep_prob:[]\"");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("keep_prob float32[]"), std::string::npos) << r.output;
  Model m = load_model(path("gru.onnx"));
  EXPECT_GE(m.ir_version, 8);  // opset 17
  for (const auto& v : m.graph.inputs) {
    ASSERT_TRUE(v.type.shape) << v.name;
    if (v.name == "keep_prob") EXPECT_TRUE(v.type.shape->empty());
  }
  // The same syntax in model_check's --inputShape; a malformed entry is exit 2 there too.
  r = run_ms("model_check --checkModel 1 --modelFile " + path("gru.onnx") + " --inputShape \"X:1,784;keep_prob:[]\"");
  EXPECT_NE(r.code, 2) << r.output;
  r = run_ms("model_check --checkModel 1 --modelFile " + path("gru.onnx") + " --inputShape \"keep_prob:[1\"");
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST_F(TfConvertCli, InputLayoutNchw) {
  if (!std::filesystem::exists(kFaceDetection)) GTEST_SKIP() << kFaceDetection << " is missing: run scripts/fetch_models.sh";
  auto r = run_ms("convert --fmk TFLITE --modelFile " + kFaceDetection + " --saveType ONNX --outputFile " + path("fd") +
                  " --inputLayout NCHW");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("input float32[1,3,128,128]"), std::string::npos) << r.output;
  Model m = load_model(path("fd.onnx"));
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "Transpose") EXPECT_NE(n.inputs[0], "input") << "a Transpose still reads the input";
  // Bad values and formats the option does not apply to: exit 2, nothing written.
  r = run_ms("convert --fmk TFLITE --modelFile " + kFaceDetection + " --outputFile " + path("bad") + " --inputLayout NCWH");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("NCWH"), std::string::npos) << r.output;
  r = run_ms("convert --fmk ONNX --modelFile " + path("fd.onnx") + " --outputFile " + path("bad") + " --inputLayout NCHW");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("bad.mindir")));
}

}  // namespace
}  // namespace ms
