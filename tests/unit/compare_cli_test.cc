// `ms compare` end to end through the binary: verdicts and exit codes, bisect naming the broken
// node after `ms convert`, JSON for CI, bad input, and the HTML report (rendered by headless
// Chromium when it is installed).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "compare_models.h"
#include "formats/io/tensor_file.h"

namespace ms {
namespace {

test::CmdResult run_ms(const std::string& args) { return test::run_command(std::string(MS_BINARY) + " " + args + " 2>&1"); }

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir("compare_cli");
    save_model(test::compare_cnn(), path("original.onnx"), ModelFormat::Onnx);
    save_model(test::break_one_node(test::compare_cnn(), test::Fault::PerturbedWeights).first, path("broken.onnx"),
               ModelFormat::Onnx);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  std::string convert_to_mindir(const std::string& stem) {
    auto r = run_ms("convert --fmk ONNX --modelFile " + path(stem + ".onnx") + " --outputFile " + path(stem + ".mindir"));
    EXPECT_EQ(r.code, 0) << r.output;
    return path(stem + ".mindir");
  }
  std::filesystem::path dir;
};

TEST_F(CompareCli, UnmodifiedConversionAgrees) {
  std::string mindir = convert_to_mindir("original");
  auto r = run_ms("compare --modelFile " + mindir + " --refModel " + path("original.onnx") + " --minCosine 0.99999");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("result: PASS"), std::string::npos) << r.output;
}

TEST_F(CompareCli, BisectNamesTheBrokenNodeAfterConversionToMindIR) {
  std::string mindir = convert_to_mindir("broken");
  auto r = run_ms("compare --modelFile " + mindir + " --refModel " + path("original.onnx") + " --bisect");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("first divergent node:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[reference: conv_b (Conv)]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("result: FAIL"), std::string::npos) << r.output;
}

TEST_F(CompareCli, OneModelOnTwoBackends) {
  // Without --refModel the model is its own reference, run on the reference kernels.
  auto r = test::run_command(std::string(MS_BINARY) + " compare --modelFile " + path("original.onnx") +
                             " --refBackend reference --layerwise --minCosine 0.99999 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["backend"], "fast");
  EXPECT_EQ(j["ref_backend"], "reference");
  EXPECT_GE(j["outputs"][0]["metrics"]["cosine"].get<double>(), 0.99999);
  for (const auto& l : j["layers"]) EXPECT_TRUE(l["pass"].get<bool>()) << l.dump();
  // The same backend on both sides is no comparison at all.
  EXPECT_EQ(run_ms("compare --modelFile " + path("original.onnx") + " --backend reference --refBackend reference").code, 2);
  EXPECT_EQ(run_ms("compare --modelFile " + path("original.onnx") + " --refBackend gpu").code, 2);
}

TEST_F(CompareCli, BisectThroughOptimizeGeneralFusions) {
  // conv_a + bn_a become one Conv; a fault in conv_a's bias shows in its output.
  save_model(test::break_one_node(test::compare_cnn(), test::Fault::PerturbedFusedWeights).first, path("bias.onnx"),
             ModelFormat::Onnx);
  for (const std::string stem : {"bias", "original"}) {
    auto o = run_ms("optimize --optimize general --modelFile " + path(stem + ".onnx") + " --outputFile " + path(stem + "_opt.onnx"));
    ASSERT_EQ(o.code, 0) << o.output;
  }
  auto good = run_ms("compare --modelFile " + path("original_opt.onnx") + " --refModel " + path("original.onnx") +
                     " --bisect --minCosine 0.99999");
  EXPECT_EQ(good.code, 0) << good.output;
  auto r = test::run_command(std::string(MS_BINARY) + " compare --modelFile " + path("bias_opt.onnx") + " --refModel " +
                             path("original.onnx") + " --bisect --format json");
  ASSERT_EQ(r.code, 1) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["first_divergence"]["ref_nodes"], nlohmann::json::array({"conv_a (Conv)"})) << j["first_divergence"].dump(1);
  EXPECT_EQ(j["first_divergence"]["ref_node"], "conv_a (Conv)");
  ASSERT_EQ(j["first_divergence"]["nodes"].size(), 1u);
  EXPECT_EQ(j["first_divergence"]["nodes"][0].get<std::string>().rfind("conv_a (", 0), 0u) << j["first_divergence"].dump(1);
  auto text = run_ms("compare --modelFile " + path("bias_opt.onnx") + " --refModel " + path("original.onnx") + " --bisect");
  EXPECT_NE(text.output.find("first divergent node: conv_a ("), std::string::npos) << text.output;
  // The folded pattern (a written file keeps Relu apart: no com.mstools fused ops), and the folded
  // weight computation feeding it, are listed for the reference.
  EXPECT_NE(text.output.find("between them the reference computes: scale_wa (Mul), conv_a (Conv), bn_a "
                             "(BatchNormalization)"),
            std::string::npos)
      << text.output;
}

TEST_F(CompareCli, JsonForCi) {
  auto r = test::run_command(std::string(MS_BINARY) + " compare --modelFile " + path("broken.onnx") + " --refModel " +
                             path("original.onnx") + " --bisect --format json --seed 4 --inputRange -1,1");
  ASSERT_EQ(r.code, 1) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_FALSE(j["pass"].get<bool>());
  EXPECT_EQ(j["first_divergence"]["node"], "conv_b (Conv)");
  EXPECT_EQ(j["first_divergence"]["ref_node"], "conv_b (Conv)");
  EXPECT_EQ(j["first_divergence"]["inputs"][0]["tensor"], "ra");
  EXPECT_TRUE(j["first_divergence"]["inputs"][0]["pass"].get<bool>());
  EXPECT_EQ(j["layers"].size(), test::compare_cnn().graph.nodes.size());
  EXPECT_EQ(j["outputs"][0]["name"], "probs");
  EXPECT_LT(j["outputs"][0]["metrics"]["cosine"].get<double>(), 0.9999);
  EXPECT_EQ(j["marking_changes"].size(), 0u);
}

TEST_F(CompareCli, ReferenceOutputFiles) {
  // y = softmax(...) of the CNN is not easy by hand; use a model whose output is: y = Relu(x - 1).
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {4})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {4})};
  m.graph.initializers["one"] = Tensor::scalar<float>(1);
  m.graph.nodes = {test::make_node("Sub", {"x", "one"}, {"s"}, "sub"), test::make_node("Relu", {"s"}, {"y"}, "relu")};
  save_model(m, path("relu.onnx"), ModelFormat::Onnx);
  io::write_npy(path("x.npy"), Tensor::from_vector<float>({0, 1, 2, 5}, {4}));
  io::write_npy(path("good.npy"), Tensor::from_vector<float>({0, 0, 1, 4}, {4}));
  io::write_npy(path("bad.npy"), Tensor::from_vector<float>({0, 0, 1, -4}, {4}));
  std::string base = "compare --modelFile " + path("relu.onnx") + " --inDataFile " + path("x.npy") + " --refOutputs ";
  auto good = run_ms(base + path("good.npy") + " --atol 0 --rtol 0");
  EXPECT_EQ(good.code, 0) << good.output;
  auto bad = run_ms(base + path("bad.npy"));
  EXPECT_EQ(bad.code, 1) << bad.output;
  auto extra = run_ms(base + path("good.npy") + "," + path("good.npy"));
  EXPECT_EQ(extra.code, 2) << extra.output;
}

TEST_F(CompareCli, DatasetWithLabels) {
  // Three samples back to back in one .bin; labels are the reference's own predictions, so the
  // reference scores 100% and the printed table says so.
  std::vector<float> x(3 * 3 * 12 * 12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 211) / 105.0f - 1.0f;
  std::ofstream(path("set.bin"), std::ios::binary).write(reinterpret_cast<const char*>(x.data()), x.size() * 4);
  auto json = test::run_command(std::string(MS_BINARY) + " compare --modelFile " + path("original.onnx") +
                                " --refModel " + path("original.onnx") + " --inDataFile " + path("set.bin") +
                                " --format json");
  ASSERT_EQ(json.code, 0) << json.output;
  auto j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["samples"], 3);
  EXPECT_EQ(j["outputs"][0]["worst_sample"].get<std::string>().rfind(path("set.bin") + "[", 0), 0u);
  EXPECT_EQ(j["outputs"][0]["failing_samples"], 0);
  // Labels from an independent run of the reference through `ms run`, one sample at a time.
  std::string labels;
  for (int s = 0; s < 3; ++s) {
    io::write_npy(path("s.npy"), Tensor::from_vector<float>({x.begin() + s * 432, x.begin() + (s + 1) * 432}, {1, 3, 12, 12}));
    auto run = run_ms("run --modelFile " + path("original.onnx") + " --inDataFile " + path("s.npy") + " --outputDir " + path("out"));
    ASSERT_EQ(run.code, 0) << run.output;
    auto probs = io::read_npy(path("out/output_0.npy")).to_double_vector();
    labels += std::to_string(std::max_element(probs.begin(), probs.end()) - probs.begin()) + "\n";
  }
  std::ofstream(path("labels.txt")) << labels;
  auto r = run_ms("compare --modelFile " + path("broken.onnx") + " --refModel " + path("original.onnx") +
                  " --inDataFile " + path("set.bin") + " --labels " + path("labels.txt"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("reference  100.00%"), std::string::npos) << r.output;
}

TEST_F(CompareCli, BadUsageAndInput) {
  std::string m = " --modelFile " + path("original.onnx");
  EXPECT_EQ(run_ms("compare" + m).code, 2);  // neither --refModel nor --refOutputs
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("original.onnx") + " --refOutputs a.npy").code, 2);
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("original.onnx") + " --format xml").code, 2);
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("original.onnx") + " --inputRange 1").code, 2);
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("original.onnx") + " --minCosine 2").code, 2);
  EXPECT_EQ(run_ms("compare" + m + " --refOutputs " + path("x.npy") + " --bisect").code, 2);
  auto missing = run_ms("compare" + m + " --refModel " + path("nope.onnx"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.output.find("nope.onnx"), std::string::npos) << missing.output;
  std::ofstream(path("garbage.onnx")) << "not a model";
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("garbage.onnx")).code, 2);
  // A report into a folder that does not exist fails before anything runs.
  EXPECT_EQ(run_ms("compare" + m + " --refModel " + path("original.onnx") + " --report " + path("no/dir/r.html")).code, 2);
  // An operator without implementation is "unsupported" (3), named in the message.
  Model u = test::compare_cnn();
  test::node_named(u, "relu_b").op_type = "NoSuchOp";
  save_model(u, path("unsupported.onnx"), ModelFormat::Onnx);
  auto r = run_ms("compare --modelFile " + path("unsupported.onnx") + " --refModel " + path("original.onnx"));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("NoSuchOp"), std::string::npos) << r.output;
  // Labels that do not match the samples: an error, and no report left behind.
  std::ofstream(path("two.txt")) << "1 2";
  auto l = run_ms("compare" + m + " --refModel " + path("original.onnx") + " --labels " + path("two.txt") +
                  " --report " + path("r.html"));
  EXPECT_EQ(l.code, 2) << l.output;
  EXPECT_FALSE(std::filesystem::exists(path("r.html")));
}

TEST_F(CompareCli, HtmlReportIsSelfContainedWithChart) {
  auto r = run_ms("compare --modelFile " + path("broken.onnx") + " --refModel " + path("original.onnx") +
                  " --bisect --report " + path("report.html"));
  ASSERT_EQ(r.code, 1) << r.output;
  std::string html = read_text(path("report.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("first divergence: conv_b (Conv)"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no other URL: nothing to fetch
  EXPECT_EQ(html.find("https://"), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(CompareCli, HtmlReportRendersInHeadlessChromiumWithoutConsoleErrors) {
  if (test::run_command("command -v chromium >/dev/null 2>&1").code != 0)
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium) - the headless rendering check did not run";
  auto r = run_ms("compare --modelFile " + path("broken.onnx") + " --refModel " + path("original.onnx") +
                  " --bisect --report " + path("report.html"));
  ASSERT_EQ(r.code, 1) << r.output;
  // --enable-logging=stderr --v=0 prints every console message as "...:CONSOLE(...)"; a script error
  // would show up there too. The dumped DOM is what the browser built from the file.
  std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" + path("chromium-profile") +
                    " --enable-logging=stderr --v=0 --dump-dom file://" + path("report.html") + " 2>" + path("chromium.log");
  auto dom = test::run_command(cmd);
  ASSERT_EQ(dom.code, 0) << read_text(path("chromium.log"));
  std::string log = read_text(path("chromium.log"));
  EXPECT_EQ(log.find("CONSOLE"), std::string::npos) << log;
  EXPECT_NE(dom.output.find("<svg"), std::string::npos);
  EXPECT_NE(dom.output.find("<circle"), std::string::npos);
  EXPECT_NE(dom.output.find("first divergence: conv_b (Conv)"), std::string::npos);
}

}  // namespace
}  // namespace ms
