// `ms model_check` through the built binary: exit codes 0 / 1 / 2 / 3, text output and the JSON
// fields (rule, severity, node, op, tensor, message, hint; summary).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "formats/onnx/onnx_exporter.h"
#include "test_util.h"

namespace ms {
namespace {

using test::CmdResult;

CmdResult run_check(const std::string& args) {
  return test::run_command(std::string(MS_BINARY) + " model_check --checkModel 1 " + args + " 2>/dev/null");
}

// y = Relu(x + b), x: float32[2,3], all names deployable.
Model healthy() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "g";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 3})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {2, 3})};
  m.graph.initializers["b"] = Tensor::from_vector<float>({-1, 0, 1}, {3});
  m.graph.nodes = {test::make_node("Add", {"x", "b"}, {"s"}, "add"), test::make_node("Relu", {"s"}, {"y"}, "relu")};
  return m;
}

class CheckCli : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("check_cli"); }
  std::string write(const std::string& name, const std::string& bytes) {
    std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string write_model(const std::string& name, const Model& m) {
    return write(name, onnx_format::export_onnx_bytes(m));
  }
  std::filesystem::path dir;
};

const nlohmann::json* find_rule(const nlohmann::json& j, const std::string& rule) {
  for (const auto& f : j["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

TEST_F(CheckCli, HealthyModelExitsZero) {
  auto p = write_model("ok.onnx", healthy());
  auto t = run_check("--modelFile " + p);
  EXPECT_EQ(t.code, 0) << t.output;
  EXPECT_NE(t.output.find("Supported ops: 2/2, Unsupported ops: []"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("summary: 0 errors, 0 warnings, 0 info -> PASSED"), std::string::npos) << t.output;
  auto j = run_check("--modelFile " + p + " --format json");
  EXPECT_EQ(j.code, 0);
  auto js = nlohmann::json::parse(j.output);
  EXPECT_TRUE(js["findings"].is_array());
  EXPECT_TRUE(js["findings"].empty()) << j.output;
  EXPECT_EQ(js["target"], "cpu");
  EXPECT_EQ(js["summary"]["errors"], 0);
  EXPECT_EQ(js["summary"]["exit_code"], 0);
  EXPECT_EQ(js["supported_ops"], 2);
  EXPECT_EQ(js["total_ops"], 2);
}

TEST_F(CheckCli, StructuralDefectsExitOneWithAllJsonFields) {
  // A dead node (error since the severity decision in docs/diagnostics.md).
  Model m = healthy();
  m.graph.nodes.push_back(test::make_node("Neg", {"s"}, {"unused"}, "dead_neg"));
  auto p = write_model("dead.onnx", m);
  auto t = run_check("--modelFile " + p);
  EXPECT_EQ(t.code, 1) << t.output;
  EXPECT_NE(t.output.find("error MC-GRAPH-007 node dead_neg (Neg)"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("-> FAILED"), std::string::npos) << t.output;

  auto j = run_check("--modelFile " + p + " --format json");
  EXPECT_EQ(j.code, 1);
  auto js = nlohmann::json::parse(j.output);
  const auto* f = find_rule(js, "MC-GRAPH-007");
  ASSERT_NE(f, nullptr) << j.output;
  EXPECT_EQ((*f)["severity"], "error");
  EXPECT_EQ((*f)["node"], "dead_neg");
  EXPECT_EQ((*f)["op"], "Neg");
  EXPECT_TRUE((*f)["tensor"].is_null());
  EXPECT_FALSE((*f)["message"].get<std::string>().empty());
  EXPECT_FALSE((*f)["hint"].get<std::string>().empty());
  EXPECT_GE(js["summary"]["errors"].get<int>(), 1);
  EXPECT_EQ(js["summary"]["exit_code"], 1);

  // An unused initializer: a tensor finding (node and op null).
  Model u = healthy();
  u.graph.initializers["orphan"] = Tensor::from_vector<float>({1, 2}, {2});
  auto ju = run_check("--modelFile " + write_model("unused.onnx", u) + " --format json");
  EXPECT_EQ(ju.code, 1) << ju.output;
  auto jus = nlohmann::json::parse(ju.output);
  const auto* g = find_rule(jus, "MC-GRAPH-009");
  ASSERT_NE(g, nullptr) << ju.output;
  EXPECT_EQ((*g)["severity"], "error");
  EXPECT_EQ((*g)["tensor"], "orphan");
  EXPECT_TRUE((*g)["node"].is_null());

  // A name strict runtimes reject ("out.1") is a warning (healthy exports have such names); the
  // TensorFlow form "out:0" is an error.
  Model n = healthy();
  n.graph.outputs[0].name = "out.1";
  n.graph.nodes[1].outputs[0] = "out.1";
  auto dotted = run_check("--modelFile " + write_model("dotted.onnx", n));
  EXPECT_EQ(dotted.code, 0) << dotted.output;
  EXPECT_NE(dotted.output.find("warning MC-DEPLOY-010 'out.1'"), std::string::npos) << dotted.output;
  n.graph.outputs[0].name = "out:0";
  n.graph.nodes[1].outputs[0] = "out:0";
  auto colon = run_check("--modelFile " + write_model("colon.onnx", n));
  EXPECT_EQ(colon.code, 1) << colon.output;
  EXPECT_NE(colon.output.find("error MC-DEPLOY-011 'out:0'"), std::string::npos) << colon.output;
}

TEST_F(CheckCli, WarningsAloneExitZero) {
  Model m = healthy();
  m.graph.inputs[0].type =
      TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch"), Dim::fixed(3)});
  m.graph.outputs[0].type =
      TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch"), Dim::fixed(3)});
  auto p = write_model("dyn.onnx", m);
  auto t = run_check("--modelFile " + p);
  EXPECT_EQ(t.code, 0) << t.output;
  EXPECT_NE(t.output.find("warning MC-DEPLOY-005 'x'"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("-> PASSED"), std::string::npos) << t.output;
  // --inputShape fixes the dims: the warning goes away.
  auto fixed = run_check("--modelFile " + p + " --inputShape \"x:4,3\"");
  EXPECT_EQ(fixed.code, 0);
  EXPECT_EQ(fixed.output.find("MC-DEPLOY-005"), std::string::npos) << fixed.output;
}

TEST_F(CheckCli, UnreadableFilesExitTwo) {
  auto missing = run_check("--modelFile " + (dir / "nope.onnx").string() + " --format json");
  EXPECT_EQ(missing.code, 2);
  auto jm = nlohmann::json::parse(missing.output);
  ASSERT_NE(find_rule(jm, "MC-FILE-001"), nullptr) << missing.output;
  EXPECT_EQ(jm["summary"]["exit_code"], 2);

  auto text = run_check("--modelFile " + write("text.onnx", "hello, this is not a model"));
  EXPECT_EQ(text.code, 2) << text.output;
  EXPECT_NE(text.output.find("MC-FILE-003"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("UNREADABLE"), std::string::npos) << text.output;

  std::string bytes = onnx_format::export_onnx_bytes(healthy());
  auto trunc = run_check("--modelFile " + write("trunc.onnx", bytes.substr(0, bytes.size() - 7)));
  EXPECT_EQ(trunc.code, 2) << trunc.output;
  EXPECT_NE(trunc.output.find("MC-FILE-002"), std::string::npos) << trunc.output;

  auto empty = run_check("--modelFile " + write("empty.onnx", ""));
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.output.find("MC-FILE-001"), std::string::npos) << empty.output;
}

TEST_F(CheckCli, BadUsageExitsTwo) {
  auto p = write_model("ok.onnx", healthy());
  EXPECT_EQ(run_check("--modelFile " + p + " --target tpu").code, 2);
  EXPECT_EQ(run_check("--modelFile " + p + " --format xml").code, 2);
  EXPECT_EQ(run_check("").code, 2);  // --modelFile is required
  EXPECT_EQ(run_check("--modelFile " + p + " --inputShape \"x\"").code, 2);
}

TEST_F(CheckCli, UnsupportedFeatureExitsThree) {
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(onnx_format::export_onnx_bytes(healthy())));
  auto* sp = proto.mutable_graph()->add_sparse_initializer();
  sp->add_dims(4);
  sp->mutable_values()->set_name("sparse_w");
  sp->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sp->mutable_values()->add_dims(1);
  sp->mutable_values()->add_float_data(1.0f);
  sp->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sp->mutable_indices()->add_dims(1);
  sp->mutable_indices()->add_int64_data(2);
  auto r = run_check("--modelFile " + write("sparse.onnx", proto.SerializeAsString()) + " --format json");
  EXPECT_EQ(r.code, 3) << r.output;
  auto js = nlohmann::json::parse(r.output);
  const auto* f = find_rule(js, "MC-FILE-008");
  ASSERT_NE(f, nullptr) << r.output;
  EXPECT_NE((*f)["message"].get<std::string>().find("sparse"), std::string::npos) << r.output;
  EXPECT_EQ(js["summary"]["exit_code"], 3);
}

}  // namespace
}  // namespace ms
