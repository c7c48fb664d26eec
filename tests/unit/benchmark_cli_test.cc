// ms benchmark and ms profile through the CLI: the JSON keys outside scripts read, the accuracy
// verdict (exit 1 above the threshold), bad input (exit 2), and a trace whose per-op times add up
// to the measured wall time.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "analysis/profile.h"
#include "fast_kernels_util.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"

namespace ms::test {
namespace {

class BenchmarkCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("bench_cli");
    // Conv + Relu + GlobalAveragePool: fast kernels and a reference fallback-free path.
    ModelSpec s;
    Node c = make_node("Conv", {"x", "w", "b"}, {"t"});
    c.attrs["pads"] = ints({1, 1, 1, 1});
    s.nodes = {c, make_node("Relu", {"t"}, {"r"}), make_node("GlobalAveragePool", {"r"}, {"y"})};
    s.weights = {{"w", random_tensor({8, 3, 3, 3}, 1)}, {"b", random_tensor({8}, 2)}};
    s.inputs = {{"x", random_tensor({1, 3, 32, 32}, 3)}};
    s.outputs = {"y"};
    Model m = *build_model(s);
    m.graph.outputs[0].type = TypeInfo::tensor(DType::Float32, Shape{1, 8, 1, 1});
    save_model(m, (dir_ / "m.onnx").string(), ModelFormat::Onnx);
    io::write_npy((dir_ / "x.npy").string(), s.inputs[0].second);
    // The reference kernels' output is the accuracy reference; a perturbed copy must fail.
    SessionOptions o;
    o.reference_kernels = true;
    Tensor y = Session(build_model(s), o).run({Value(s.inputs[0].second)})[0].tensor;
    io::write_npy((dir_ / "ref.npy").string(), y);
    Tensor bad = y.clone();
    for (int64_t i = 0; i < bad.numel(); ++i) bad.data<float>()[i] *= 1.1f;
    io::write_npy((dir_ / "bad.npy").string(), bad);
  }
  std::string path(const char* f) const { return (dir_ / f).string(); }
  CmdResult ms(const std::string& args) { return run_command(std::string(MS_BINARY) + " " + args + " 2>&1"); }
  std::filesystem::path dir_;
};

TEST_F(BenchmarkCli, JsonKeysAndAccuracyVerdict) {
  auto r = ms("benchmark --modelFile " + path("m.onnx") + " --inDataFile " + path("x.npy") +
              " --loopCount 5 --warmUpLoopCount 1 --numThreads 1 --format json --benchmarkDataFile " + path("ref.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  for (const char* k : {"min_ms", "median_ms", "mean_ms", "p99_ms", "peak_rss_mb", "threads", "loops"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["loops"], 5);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_LE(j["min_ms"].get<double>(), j["median_ms"].get<double>());
  EXPECT_LE(j["median_ms"].get<double>(), j["p99_ms"].get<double>());
  EXPECT_LT(j["mean_relative_error_pct"].get<double>(), 0.01);

  r = ms("benchmark --modelFile " + path("m.onnx") + " --inDataFile " + path("x.npy") +
         " --loopCount 2 --benchmarkDataFile " + path("bad.npy") + " --accuracyThreshold 5");
  EXPECT_EQ(r.code, 1) << r.output;  // 10 % off, threshold 5 %
  EXPECT_NE(r.output.find("accuracy"), std::string::npos);
}

TEST_F(BenchmarkCli, BadInputIsExit2) {
  EXPECT_EQ(ms("benchmark --modelFile " + path("missing.onnx")).code, 2);
  EXPECT_EQ(ms("benchmark --modelFile " + path("m.onnx") + " --loopCount 0").code, 2);
  auto r = ms("benchmark --modelFile " + path("m.onnx") + " --benchmarkDataFile " + path("x.npy"));
  EXPECT_EQ(r.code, 2) << r.output;  // shape [1,3,32,32] is not the output's
}

TEST_F(BenchmarkCli, ProfileTraceAddsUpToWallTime) {
  auto r = ms("profile --modelFile " + path("m.onnx") + " --optimize none --loopCount 5 --numThreads 1 --format json --trace " +
              path("trace.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  const double wall = j["wall_ms"], sum = j["op_sum_ms"];
  EXPECT_GT(sum, 0.9 * wall);
  EXPECT_LE(sum, wall * 1.0001);
  ASSERT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["nodes"][0]["kernel"], "onednn_conv");
  // 2 * M * H * W * C * k * k for the convolution.
  EXPECT_DOUBLE_EQ(j["nodes"][0]["flops"].get<double>(), 2.0 * 8 * 32 * 32 * 3 * 9);
  std::ifstream f(path("trace.json"));
  auto trace = nlohmann::json::parse(f);
  size_t node_events = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["cat"] != "session") ++node_events;
  EXPECT_EQ(node_events, 3u);
}

// By default the session runs the model as `ms optimize --optimize cpu` would write it (Conv and
// Relu fused), and says so; the time on reference kernels is reported and 0 here.
TEST_F(BenchmarkCli, OptimizesAtLoadAndReportsTheReferenceShare) {
  auto r = ms("profile --modelFile " + path("m.onnx") + " --loopCount 2 --numThreads 1 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["optimize"], "cpu");
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["op_type"], "com.mstools.FusedConv");
  EXPECT_EQ(j["nodes"][0]["kernel"], "onednn_conv");
  EXPECT_EQ(j["reference_kernel_share"].get<double>(), 0.0);

  r = ms("benchmark --modelFile " + path("m.onnx") + " --loopCount 2 --numThreads 1 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["optimize"], "cpu");
  EXPECT_EQ(j["reference_kernel_share"].get<double>(), 0.0);
  for (const char* k : {"load_ms", "optimize_ms", "session_create_ms"}) EXPECT_GE(j[k].get<double>(), 0.0) << k;

  r = ms("benchmark --modelFile " + path("m.onnx") + " --optimize fastest");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--optimize"), std::string::npos) << r.output;
  // Half-precision compute: accepted by every command that runs the model, and said how it runs;
  // with the reference kernels (float32 only) refused, nothing written.
  for (const char* cmd : {"benchmark", "run", "profile"}) {
    const std::string out = std::string(cmd) == "run" ? " --outputDir " + path("out_bf16") : "";
    r = ms(std::string(cmd) + " --modelFile " + path("m.onnx") + " --precision bf16 --numThreads 1" + out +
           (std::string(cmd) == "run" ? "" : " --loopCount 2"));
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.output;
    if (std::string(cmd) != "run") EXPECT_NE(r.output.find("bf16"), std::string::npos) << r.output;
    r = ms(std::string(cmd) + " --modelFile " + path("m.onnx") + " --precision fp16 --reference" +
           (std::string(cmd) == "run" ? " --outputDir " + path("out_ref16") : ""));
    EXPECT_EQ(r.code, 3) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("float32 only"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(path("out_ref16")));
  r = ms("benchmark --modelFile " + path("m.onnx") + " --precision bf16 --loopCount 1 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["precision"], "bfloat16");
  r = ms("benchmark --modelFile " + path("m.onnx") + " --precision fp32 --loopCount 1");
  EXPECT_EQ(r.code, 0) << r.output;
}

// An op without a fast kernel (CumSum) taking most of the run: the share says so, the text output
// warns, and `ms profile` marks the node.
TEST_F(BenchmarkCli, ReferenceKernelTimeIsVisible) {
  ModelSpec s;
  Node c = make_node("CumSum", {"x", "axis"}, {"y"});
  s.nodes = {c};
  s.weights["axis"] = Tensor::scalar<int64_t>(1);
  s.inputs = {{"x", random_tensor({64, 4096}, 4)}};
  s.outputs = {"y"};
  save_model(*build_model(s), path("cumsum.onnx"), ModelFormat::Onnx);
  auto r = ms("benchmark --modelFile " + path("cumsum.onnx") + " --loopCount 2 --numThreads 1 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  // stderr's warning follows the JSON document in the merged output
  const size_t open = r.output.find('{'), close = r.output.rfind('}');
  auto j = nlohmann::json::parse(r.output.substr(open, close - open + 1));
  EXPECT_GT(j["reference_kernel_share"].get<double>(), 0.5);
  EXPECT_NE(r.output.find("warning"), std::string::npos) << r.output;
  r = ms("profile --modelFile " + path("cumsum.onnx") + " --loopCount 1 --numThreads 1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("reference kernels:"), std::string::npos) << r.output;
}

// The load test: requests counted, QPS consistent with them, percentiles ordered; --batch on a
// model with a fixed batch dimension and --duration without --concurrency are refused (exit 2).
TEST_F(BenchmarkCli, LoadTestAndBatch) {
  auto r = ms("benchmark --modelFile " + path("m.onnx") + " --loopCount 2 --numThreads 1 --concurrency 2 --duration 0.5 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  const auto& l = j["load_test"];
  ASSERT_TRUE(l.is_object()) << r.output;
  EXPECT_EQ(l["concurrency"], 2);
  EXPECT_GT(l["requests"].get<size_t>(), 2u);
  EXPECT_NEAR(l["qps"].get<double>(), l["requests"].get<double>() / l["duration_s"].get<double>(), 1e-6);
  EXPECT_GE(l["duration_s"].get<double>(), 0.5);
  EXPECT_LE(l["p50_ms"].get<double>(), l["p90_ms"].get<double>());
  EXPECT_LE(l["p90_ms"].get<double>(), l["p99_ms"].get<double>());

  r = ms("benchmark --modelFile " + path("m.onnx") + " --loopCount 1 --batch 4");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("fixed first dimension"), std::string::npos) << r.output;
  // The same model with a dynamic batch dimension takes the one-sample input as a batch of 4.
  Model dynamic = load_model(path("m.onnx"));
  dynamic.graph.inputs[0].type = TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3), Dim::fixed(32), Dim::fixed(32)});
  dynamic.graph.outputs[0].type = TypeInfo::tensor_unknown_shape(DType::Float32);
  save_model(dynamic, path("dyn.onnx"), ModelFormat::Onnx);
  r = ms("benchmark --modelFile " + path("dyn.onnx") + " --inDataFile " + path("x.npy") + " --loopCount 2 --batch 4 --format json");
  ASSERT_EQ(r.code, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["batch"], 4);
  EXPECT_GT(j["samples_per_s"].get<double>(), 0.0);
  r = ms("benchmark --modelFile " + path("m.onnx") + " --loopCount 1 --duration 2");
  EXPECT_EQ(r.code, 2) << r.output;
}

// A reference kernel inside an If body (CumSum, no fast kernel) is counted in the run's reference
// time although the main graph shows only the If node.
TEST(RunProfileBodies, ReferenceTimeInsideAnIfIsCounted) {
  auto body = std::make_shared<Graph>();
  body->name = "then";
  Node cum = make_node("CumSum", {"x", "axis"}, {"c"});
  body->nodes = {cum};
  body->outputs = {{"c", TypeInfo::tensor_unknown_shape(DType::Float32)}};
  auto other = std::make_shared<Graph>();
  other->name = "else";
  other->nodes = {make_node("Identity", {"x"}, {"e"})};
  other->outputs = {{"e", TypeInfo::tensor_unknown_shape(DType::Float32)}};
  ModelSpec s;
  Node n = make_node("If", {"cond"}, {"y"});
  n.attrs["then_branch"] = Attribute::of_graph(body);
  n.attrs["else_branch"] = Attribute::of_graph(other);
  s.nodes = {n};
  s.weights["axis"] = Tensor::scalar<int64_t>(1);
  s.inputs = {{"cond", Tensor::scalar<bool>(true)}, {"x", random_tensor({64, 4096}, 5)}};
  s.outputs = {"y"};
  Session session(build_model(s));
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  RunProfile prof;
  session.run(feeds, &prof);
  ASSERT_EQ(prof.nodes.size(), 1u);
  EXPECT_EQ(prof.nodes[0].kernel, kControlFlowKernel);
  EXPECT_GT(prof.body_reference_us, 0.5 * prof.nodes[0].duration_us);
  EXPECT_GT(summarize_profile(session.model(), {prof}).reference_share, 0.5);
}

}  // namespace
}  // namespace ms::test
