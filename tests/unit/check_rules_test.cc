// model_check rules: for every rule one model that triggers it (right rule, severity, node) and the
// healthy model that must not. Models are built with the IR; file rules go through real files.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "check/check.h"
#include "formats/model_io.h"
#include "formats/onnx/onnx_exporter.h"
#include "ops/infer_graph.h"
#include "test_util.h"

namespace ms {
namespace {

using check::CheckReport;
using check::Severity;
using test::make_node;
using test::tensor_info;

Tensor filled(const Shape& s, float v) {
  Tensor t(DType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = v + 0.01f * static_cast<float>(i % 7);
  return t;
}

Tensor ints(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

// x[1,3,8,8] -> Conv(4x3x3x3, pads 1) -> BatchNormalization -> Relu -> GlobalAveragePool -> Reshape[1,4]
//   -> Gemm(4x2) -> y[1,2]
Model healthy() {
  Model m;
  m.opsets[""] = 17;
  m.producer_name = "check_test";
  Graph& g = m.graph;
  g.name = "g";
  g.inputs.push_back(tensor_info("x", DType::Float32, {1, 3, 8, 8}));
  g.outputs.push_back(tensor_info("y", DType::Float32, {1, 2}));
  g.initializers["w"] = filled({4, 3, 3, 3}, 0.1f);
  g.initializers["b"] = filled({4}, 0.0f);
  g.initializers["bn_scale"] = filled({4}, 1.0f);
  g.initializers["bn_bias"] = filled({4}, 0.0f);
  g.initializers["bn_mean"] = filled({4}, 0.0f);
  g.initializers["bn_var"] = filled({4}, 1.0f);
  g.initializers["shape"] = ints({1, 4});
  g.initializers["fc_w"] = filled({4, 2}, 0.2f);
  g.initializers["fc_b"] = filled({2}, 0.0f);
  Node conv = make_node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  conv.attrs["kernel_shape"] = Attribute::of_ints({3, 3});
  conv.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  conv.attrs["strides"] = Attribute::of_ints({1, 1});
  g.nodes.push_back(conv);
  g.nodes.push_back(make_node("BatchNormalization", {"c", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn"}, "bn1"));
  g.nodes.push_back(make_node("Relu", {"bn"}, {"r"}, "relu1"));
  g.nodes.push_back(make_node("GlobalAveragePool", {"r"}, {"p"}, "gap"));
  g.nodes.push_back(make_node("Reshape", {"p", "shape"}, {"f"}, "reshape1"));
  g.nodes.push_back(make_node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}, "fc"));
  return m;
}

Node* find(Model& m, const std::string& name) {
  for (auto& n : m.graph.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

CheckReport run(const Model& m, check::Target t = check::Target::Cpu) {
  check::CheckOptions o;
  o.target = t;
  return check::check_model(m, o);
}

const check::Finding* finding(const CheckReport& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::string dump(const CheckReport& r) { return check::format_text(r); }

TEST(CheckRules, HealthyModelHasNoFindings) {
  CheckReport r = run(healthy());
  EXPECT_TRUE(r.findings.empty()) << dump(r);
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_TRUE(r.target_summary);
  EXPECT_EQ(r.target_summary->supported, r.target_summary->total);
}

TEST(CheckRules, CatalogueIdsAreUniqueAndDocumented) {
  std::set<std::string> ids;
  std::ifstream doc(std::string(MS_SOURCE_DIR) + "/docs/diagnostics.md");
  std::stringstream ss;
  ss << doc.rdbuf();
  for (const auto& r : check::rule_catalogue()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_NE(ss.str().find(std::string("`") + r.id + "`"), std::string::npos) << r.id << " missing in diagnostics.md";
    // The table row states the catalogue severity.
    std::string row = std::string("| `") + r.id + "` | " + std::string(check::severity_name(r.severity)) + " |";
    EXPECT_NE(ss.str().find(row), std::string::npos) << r.id << ": severity in diagnostics.md differs from the catalogue";
  }
}

struct Case {
  std::string rule;
  std::string node;  // expected node name ("" = a tensor finding; then `tensor`)
  std::string tensor;
  std::function<void(Model&)> mutate;
  check::Target target = check::Target::Cpu;
};

class RuleCase : public ::testing::TestWithParam<Case> {};

TEST_P(RuleCase, TriggersOnDefectNotOnHealthy) {
  const Case& c = GetParam();
  Model bad = healthy();
  c.mutate(bad);
  CheckReport r = run(bad, c.target);
  const check::Finding* f = finding(r, c.rule);
  ASSERT_NE(f, nullptr) << c.rule << " not reported:\n" << dump(r);
  EXPECT_EQ(f->severity, check::rule_info(c.rule).severity);
  if (!c.node.empty()) EXPECT_EQ(f->node, c.node) << dump(r);
  if (!c.tensor.empty()) EXPECT_EQ(f->tensor, c.tensor) << dump(r);
  EXPECT_FALSE(f->hint.empty());
  if (f->severity == Severity::Error) EXPECT_EQ(r.exit_code(), 1);
  CheckReport good = run(healthy(), c.target);
  EXPECT_EQ(finding(good, c.rule), nullptr) << dump(good);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  // --- graph structure
  v.push_back({"MC-GRAPH-001", "relu1", "", [](Model& m) { find(m, "relu1")->inputs[0] = "nowhere"; }});
  v.push_back({"MC-GRAPH-002", "", "y2", [](Model& m) {
                 m.graph.outputs.push_back(tensor_info("y2", DType::Float32, {1, 2}));
               }});
  v.push_back({"MC-GRAPH-003", "relu2", "", [](Model& m) {
                 m.graph.nodes.insert(m.graph.nodes.begin() + 3, make_node("Relu", {"bn"}, {"r"}, "relu2"));
               }});
  v.push_back({"MC-GRAPH-004", "relu1", "", [](Model& m) { find(m, "gap")->name = "relu1"; }});
  v.push_back({"MC-GRAPH-005", "bn1", "", [](Model& m) {
                 // conv reads the relu output: conv -> bn -> relu -> conv
                 find(m, "bn1")->inputs[0] = "r2";
                 find(m, "relu1")->outputs[0] = "r2";
                 find(m, "relu1")->inputs[0] = "bn";
                 Node extra = make_node("Identity", {"r2"}, {"r"}, "id1");
                 m.graph.nodes.push_back(extra);
               }});
  v.push_back({"MC-GRAPH-006", "relu1", "", [](Model& m) { std::swap(m.graph.nodes[1], m.graph.nodes[2]); }});
  v.push_back({"MC-GRAPH-007", "dead", "", [](Model& m) {
                 m.graph.nodes.push_back(make_node("Sigmoid", {"r"}, {"unused"}, "dead"));
               }});
  v.push_back({"MC-GRAPH-008", "iso1", "", [](Model& m) {
                 m.graph.initializers["k"] = filled({2}, 1.0f);
                 m.graph.nodes.push_back(make_node("Neg", {"k"}, {"k1"}, "iso1"));
                 m.graph.nodes.push_back(make_node("Abs", {"k1"}, {"k2"}, "iso2"));
               }});
  v.push_back({"MC-GRAPH-009", "", "spare", [](Model& m) { m.graph.initializers["spare"] = filled({3}, 1.0f); }});
  v.push_back({"MC-GRAPH-010", "", "extra_in", [](Model& m) {
                 m.graph.inputs.push_back(tensor_info("extra_in", DType::Float32, {1}));
               }});
  v.push_back({"MC-GRAPH-011", "", "", [](Model& m) {
                 m.graph.nodes.clear();
                 m.graph.initializers.clear();
                 m.graph.outputs.clear();
               }});
  // --- operator schema
  v.push_back({"MC-OP-001", "relu1", "", [](Model& m) { find(m, "relu1")->op_type = "Rleu"; }});
  v.push_back({"MC-OP-002", "relu1", "", [](Model& m) {
                 m.opsets[""] = 11;
                 find(m, "relu1")->op_type = "Celu";  // since opset 12
               }});
  v.push_back({"MC-OP-003", "relu1", "", [](Model& m) { find(m, "relu1")->inputs.push_back("bn"); }});
  v.push_back({"MC-OP-004", "relu1", "", [](Model& m) { find(m, "relu1")->outputs.push_back("r_extra"); }});
  v.push_back({"MC-OP-005", "gap", "", [](Model& m) {
                 Node* n = find(m, "gap");
                 n->op_type = "MaxPool";  // kernel_shape is required
               }});
  v.push_back({"MC-OP-006", "conv1", "", [](Model& m) { find(m, "conv1")->attrs["group"] = Attribute::of_float(1.0f); }});
  v.push_back({"MC-OP-007", "relu1", "", [](Model& m) { find(m, "relu1")->attrs["alpha"] = Attribute::of_float(0.1f); }});
  v.push_back({"MC-OP-008", "conv1", "", [](Model& m) {
                 find(m, "conv1")->attrs["strides"] = Attribute::of_ints({0, 1});
               }});
  v.push_back({"MC-OP-008", "conv1", "", [](Model& m) { find(m, "conv1")->attrs["pads"] = Attribute::of_ints({-1, 1, 1, 1}); }});
  v.push_back({"MC-OP-008", "conv1", "", [](Model& m) { find(m, "conv1")->attrs["group"] = Attribute::of_int(2); }});
  v.push_back({"MC-OP-008", "sm", "", [](Model& m) {
                 m.graph.nodes.push_back(make_node("Softmax", {"y"}, {"z"}, "sm"));
                 m.graph.nodes.back().attrs["axis"] = Attribute::of_int(5);
                 m.graph.outputs[0].name = "z";
               }});
  v.push_back({"MC-OP-009", "conv1", "", [](Model& m) { m.graph.initializers["w"] = filled({4, 2, 3, 3}, 0.1f); }});
  v.push_back({"MC-OP-009", "bn1", "", [](Model& m) { m.graph.initializers["bn_var"] = filled({5}, 1.0f); }});
  // --- types and shapes
  v.push_back({"MC-SHAPE-001", "reshape1", "", [](Model& m) { m.graph.initializers["shape"] = ints({3, 5}); }});
  v.push_back({"MC-SHAPE-002", "reshape1", "", [](Model& m) {
                 m.graph.initializers.erase("shape");
                 m.graph.inputs.push_back(tensor_info("shape", DType::Int64, {2}));
               }});
  v.push_back({"MC-SHAPE-003", "addk", "", [](Model& m) {
                 m.graph.inputs[0] = {"x", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3),
                                                                                            Dim::fixed(8), Dim::fixed(8)})};
                 m.graph.initializers["k3"] = filled({3, 1, 1}, 1.0f);  // 4 channels vs 3: no broadcast
                 m.graph.nodes.insert(m.graph.nodes.begin() + 4, make_node("Add", {"p", "k3"}, {"pk"}, "addk"));
                 find(m, "reshape1")->inputs[0] = "pk";
               }});
  v.push_back({"MC-SHAPE-004", "fc", "", [](Model& m) { m.graph.outputs[0].type = TypeInfo::tensor(DType::Float32, Shape{1, 3}); }});
  v.push_back({"MC-TYPE-001", "add1", "", [](Model& m) {
                 m.graph.initializers["one"] = Tensor::from_vector<int64_t>({1}, {1});
                 m.graph.nodes.push_back(make_node("Add", {"y", "one"}, {"z"}, "add1"));
                 m.graph.outputs[0].name = "z";
               }});
  v.push_back({"MC-TYPE-002", "fc", "", [](Model& m) { m.graph.outputs[0].type.dtype = DType::Int64; }});
  // --- deployability
  v.push_back({"MC-DEPLOY-001", "drop", "", [](Model& m) {
                 m.graph.initializers["ratio"] = Tensor::scalar<float>(0.5f);
                 m.graph.initializers["train"] = Tensor::scalar<bool>(true);
                 m.graph.nodes.insert(m.graph.nodes.begin() + 3, make_node("Dropout", {"r", "ratio", "train"}, {"rd"}, "drop"));
                 find(m, "gap")->inputs[0] = "rd";
               }});
  v.push_back({"MC-DEPLOY-002", "bn1", "", [](Model& m) { find(m, "bn1")->attrs["training_mode"] = Attribute::of_int(1); }});
  v.push_back({"MC-DEPLOY-003", "noise", "", [](Model& m) {
                 Node n = make_node("RandomNormalLike", {"y"}, {"nz"}, "noise");
                 m.graph.nodes.push_back(n);
                 m.graph.nodes.push_back(make_node("Add", {"y", "nz"}, {"z"}, "add_noise"));
                 m.graph.outputs[0].name = "z";
               }});
  v.push_back({"MC-DEPLOY-005", "", "x", [](Model& m) {
                 m.graph.inputs[0].type = TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch"), Dim::fixed(3),
                                                                                            Dim::fixed(8), Dim::fixed(8)});
               }});
  v.push_back({"MC-DEPLOY-006", "nz", "", [](Model& m) {
                 m.graph.nodes.push_back(make_node("NonZero", {"y"}, {"idx"}, "nz"));
                 m.graph.outputs.push_back({"idx", TypeInfo::tensor_unknown_shape(DType::Int64)});
               }});
  v.push_back({"MC-DEPLOY-007", "conv1", "w", [](Model& m) { m.graph.initializers["w"].data<float>()[5] = NAN; }});
  v.push_back({"MC-DEPLOY-008", "bn1", "", [](Model& m) { m.graph.initializers["bn_var"].data<float>()[2] = -1.0f; }});
  v.push_back({"MC-DEPLOY-009", "", "x", [](Model& m) {
                 m.graph.inputs[0].type.dtype = DType::Float64;
                 m.graph.nodes.insert(m.graph.nodes.begin(), make_node("Cast", {"x"}, {"xf"}, "cast_in"));
                 m.graph.nodes[0].attrs["to"] = Attribute::of_int(1);
                 find(m, "conv1")->inputs[0] = "xf";
               }});
  v.push_back({"MC-DEPLOY-010", "", "input.1", [](Model& m) {
                 m.graph.inputs[0].name = "input.1";
                 find(m, "conv1")->inputs[0] = "input.1";
               }});
  v.push_back({"MC-DEPLOY-011", "", "input:0", [](Model& m) {
                 m.graph.inputs[0].name = "input:0";
                 find(m, "conv1")->inputs[0] = "input:0";
               }});
  // --- target support
  v.push_back({"MC-TARGET-001", "det", "",
               [](Model& m) {
                 m.graph.initializers["sq"] = filled({2, 2}, 1.0f);
                 m.graph.nodes.push_back(make_node("Det", {"sq"}, {"d"}, "det"));
                 m.graph.outputs.push_back({"d", TypeInfo::tensor(DType::Float32, Shape{})});
               },
               check::Target::Ascend});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleCase, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string n = info.param.rule + "_" + std::to_string(info.index);
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// --- negatives that matter for real models
TEST(CheckRules, InferenceModeResidueIsNotFlagged) {
  Model m = healthy();
  m.graph.initializers["ratio"] = Tensor::scalar<float>(0.5f);
  m.graph.initializers["train"] = Tensor::scalar<bool>(false);
  m.graph.nodes.insert(m.graph.nodes.begin() + 3, make_node("Dropout", {"r", "ratio", "train"}, {"rd"}, "drop"));
  find(m, "gap")->inputs[0] = "rd";
  find(m, "bn1")->attrs["training_mode"] = Attribute::of_int(0);
  CheckReport r = run(m);
  EXPECT_EQ(finding(r, "MC-DEPLOY-001"), nullptr) << dump(r);
  EXPECT_EQ(finding(r, "MC-DEPLOY-002"), nullptr) << dump(r);
  EXPECT_EQ(r.exit_code(), 0) << dump(r);
}

TEST(CheckRules, InfAsBoundOrMaskIsNotCorruptWeights) {
  // Clip(max=+inf), as in openWakeWord's melspectrogram model: by design, no MC-DEPLOY-007.
  Model m = healthy();
  m.graph.initializers["lo"] = Tensor::from_vector<float>({0.0f}, {});
  m.graph.initializers["hi"] = Tensor::from_vector<float>({INFINITY}, {});
  find(m, "relu1")->op_type = "Clip";
  find(m, "relu1")->inputs = {"bn", "lo", "hi"};
  CheckReport r = run(m);
  EXPECT_EQ(finding(r, "MC-DEPLOY-007"), nullptr) << dump(r);
  EXPECT_EQ(r.exit_code(), 0) << dump(r);
  // NaN in the same bound is reported; so is Inf in a Conv weight.
  m.graph.initializers["hi"] = Tensor::from_vector<float>({NAN}, {});
  EXPECT_NE(finding(run(m), "MC-DEPLOY-007"), nullptr);
  Model w = healthy();
  w.graph.initializers["w"].data<float>()[3] = -INFINITY;
  const CheckReport rw = run(w);
  const check::Finding* f = finding(rw, "MC-DEPLOY-007");
  ASSERT_NE(f, nullptr) << dump(rw);
  EXPECT_EQ(f->node, "conv1");
  EXPECT_EQ(rw.exit_code(), 1);
}

TEST(CheckRules, PerFindingSeverities) {
  // int64 graph input: a warning on cpu (this runtime handles it), an error where the target wants int32.
  Model m = healthy();
  m.graph.inputs.push_back(tensor_info("sr", DType::Int64, {1}));
  m.graph.nodes.push_back(make_node("Cast", {"sr"}, {"sr_f"}, "cast_sr"));
  m.graph.outputs.push_back(tensor_info("sr_f", DType::Float32, {1}));
  m.graph.nodes.back().attrs["to"] = Attribute::of_int(static_cast<int64_t>(DType::Float32));
  CheckReport cpu = run(m);
  const check::Finding* f = finding(cpu, "MC-DEPLOY-009");
  ASSERT_NE(f, nullptr) << dump(cpu);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(cpu.exit_code(), 0) << dump(cpu);
  CheckReport asc = run(m, check::Target::Ascend);
  f = finding(asc, "MC-DEPLOY-009");
  ASSERT_NE(f, nullptr) << dump(asc);
  EXPECT_EQ(f->severity, Severity::Error);
}

TEST(CheckRules, WeightsListedAsInputsAreNotUnusedInputs) {
  Model m = healthy();
  m.graph.inputs.push_back(tensor_info("w", DType::Float32, {4, 3, 3, 3}));
  CheckReport r = run(m);
  EXPECT_EQ(finding(r, "MC-GRAPH-010"), nullptr) << dump(r);
  EXPECT_EQ(r.exit_code(), 0) << dump(r);
}

TEST(CheckRules, InputShapeOptionSilencesDynamicDims) {
  Model m = healthy();
  m.graph.inputs[0].type = TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch"), Dim::fixed(3),
                                                                             Dim::fixed(8), Dim::fixed(8)});
  check::CheckOptions o;
  o.input_shapes["x"] = {1, 3, 8, 8};
  CheckReport r = check::check_model(m, o);
  EXPECT_EQ(finding(r, "MC-DEPLOY-005"), nullptr) << dump(r);
}

TEST(CheckRules, SubgraphsAreCheckedWithOuterScope) {
  Model m = healthy();
  auto branch = [](const std::string& in, const std::string& out, const std::string& name) {
    auto g = std::make_shared<Graph>();
    g->name = name;
    g->nodes.push_back(make_node("Identity", {in}, {out}, name + "_id"));
    g->outputs.push_back({out, TypeInfo::tensor(DType::Float32, Shape{1, 2})});
    return g;
  };
  m.graph.initializers["cond"] = Tensor::scalar<bool>(true);
  Node iff = make_node("If", {"cond"}, {"z"}, "if1");
  iff.attrs["then_branch"] = Attribute::of_graph(branch("y", "t_out", "then"));
  iff.attrs["else_branch"] = Attribute::of_graph(branch("missing_value", "e_out", "else"));
  m.graph.nodes.push_back(iff);
  m.graph.outputs[0].name = "z";
  CheckReport r = run(m);
  const check::Finding* f = finding(r, "MC-GRAPH-001");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->node, "else_id");
  EXPECT_NE(f->message.find("if1"), std::string::npos) << f->message;
  // The then-branch reads 'y' from the outer graph: not dangling.
  for (const auto& x : r.findings) EXPECT_NE(x.node, "then_id") << dump(r);
}

TEST(CheckRules, TargetSummaryCountsOps) {
  Model m = healthy();
  m.graph.initializers["sq"] = filled({2, 2}, 1.0f);
  m.graph.nodes.push_back(make_node("Det", {"sq"}, {"d"}, "det"));
  m.graph.outputs.push_back({"d", TypeInfo::tensor(DType::Float32, Shape{})});
  CheckReport r = run(m, check::Target::Ascend);
  ASSERT_TRUE(r.target_summary);
  EXPECT_EQ(r.target_summary->total, 7);
  EXPECT_EQ(r.target_summary->unsupported, std::vector<std::string>{"Det"});
  EXPECT_NE(check::format_text(r).find("Supported ops: 6/7, Unsupported ops: [Det]"), std::string::npos);
}

// --- graph inference engine
TEST(InferGraph, PropagatesConstantsAndSymbols) {
  Model m = healthy();
  m.graph.inputs[0].type = TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3),
                                                                             Dim::fixed(8), Dim::fixed(8)});
  GraphInference inf = infer_graph(m);
  EXPECT_TRUE(inf.failures.empty());
  const TypeInfo* c = inf.type_of(m.graph, "c");
  ASSERT_TRUE(c && c->shape);
  EXPECT_EQ(c->str(), "float32[N,4,8,8]");
  // Shape -> Gather folds when the dims are static.
  Model s = healthy();
  s.graph.initializers["zero"] = Tensor::scalar<int64_t>(0);
  s.graph.nodes.push_back(make_node("Shape", {"c"}, {"sh"}, "shape_of"));
  s.graph.nodes.push_back(make_node("Gather", {"sh", "zero"}, {"n"}, "dim0"));
  GraphInference inf2 = infer_graph(s);
  const Tensor* n = inf2.constant_of(s.graph, "n");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->as_int64(0), 1);
}

TEST(InferGraph, NamesTheFirstFailingNode) {
  Model m = healthy();
  m.graph.initializers["shape"] = ints({3, 5});
  GraphInference inf = infer_graph(m);
  ASSERT_EQ(inf.failures.size(), 1u);
  EXPECT_EQ(inf.failures[0].node_name, "reshape1");
  EXPECT_NE(inf.failures[0].message().find("cannot infer output shape of node reshape1 (Reshape)"), std::string::npos)
      << inf.failures[0].message();
}

// --- file integrity (real files)
class CheckFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("check_files"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  CheckReport check(const std::string& p) { return check::check_file(p, {}); }
  std::filesystem::path dir_;
};

TEST_F(CheckFiles, HealthyFileIsClean) {
  auto p = write("ok.onnx", onnx_format::export_onnx_bytes(healthy()));
  CheckReport r = check(p);
  EXPECT_EQ(r.exit_code(), 0) << dump(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST_F(CheckFiles, MissingEmptyTruncatedNotAModel) {
  CheckReport r = check((dir_ / "nope.onnx").string());
  EXPECT_EQ(r.exit_code(), 2);
  ASSERT_NE(finding(r, "MC-FILE-001"), nullptr);
  r = check(write("empty.onnx", ""));
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_NE(finding(r, "MC-FILE-001"), nullptr) << dump(r);
  std::string bytes = onnx_format::export_onnx_bytes(healthy());
  r = check(write("trunc.onnx", bytes.substr(0, bytes.size() / 2)));
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_NE(finding(r, "MC-FILE-002"), nullptr) << dump(r);
  r = check(write("text.onnx", "this is a text file, not a model\n"));
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_NE(finding(r, "MC-FILE-003"), nullptr) << dump(r);
}

TEST_F(CheckFiles, ExternalDataMissingShortStrippedMismatched) {
  onnx::ModelProto base;
  onnx_format::export_onnx(healthy(), &base);
  auto make_external = [&](onnx::ModelProto& p, const std::string& location, int64_t length) {
    for (auto& t : *p.mutable_graph()->mutable_initializer())
      if (t.name() == "w") {
        t.clear_raw_data();
        t.set_data_location(onnx::TensorProto::EXTERNAL);
        auto* kv = t.add_external_data();
        kv->set_key("location");
        kv->set_value(location);
        auto* len = t.add_external_data();
        len->set_key("length");
        len->set_value(std::to_string(length));
      }
  };
  {
    onnx::ModelProto p = base;
    make_external(p, "w.bin", 4 * 108);
    CheckReport r = check(write("ext_missing.onnx", p.SerializeAsString()));
    const check::Finding* f = finding(r, "MC-FILE-004");
    ASSERT_NE(f, nullptr) << dump(r);
    EXPECT_EQ(f->tensor, "w");
    EXPECT_EQ(r.exit_code(), 1);
  }
  {
    onnx::ModelProto p = base;
    make_external(p, "w_short.bin", 4 * 108);
    write("w_short.bin", std::string(100, '\0'));
    CheckReport r = check(write("ext_short.onnx", p.SerializeAsString()));
    ASSERT_NE(finding(r, "MC-FILE-005"), nullptr) << dump(r);
    EXPECT_EQ(r.exit_code(), 1);
  }
  {
    onnx::ModelProto p = base;
    make_external(p, "w_ok.bin", 4 * 108);
    write("w_ok.bin", std::string(4 * 108, '\0'));
    CheckReport r = check(write("ext_ok.onnx", p.SerializeAsString()));
    EXPECT_EQ(r.exit_code(), 0) << dump(r);
  }
  {
    onnx::ModelProto p = base;
    for (auto& t : *p.mutable_graph()->mutable_initializer()) t.clear_raw_data();
    CheckReport r = check(write("stripped.onnx", p.SerializeAsString()));
    ASSERT_NE(finding(r, "MC-FILE-006"), nullptr) << dump(r);
    EXPECT_EQ(r.exit_code(), 1);
  }
  {
    onnx::ModelProto p = base;
    for (auto& t : *p.mutable_graph()->mutable_initializer())
      if (t.name() == "fc_w") t.set_raw_data(std::string(12, '\0'));
    CheckReport r = check(write("mismatch.onnx", p.SerializeAsString()));
    const check::Finding* f = finding(r, "MC-FILE-007");
    ASSERT_NE(f, nullptr) << dump(r);
    EXPECT_EQ(f->tensor, "fc_w");
  }
}

TEST_F(CheckFiles, CliExitCodesAndJson) {
  auto ok = write("ok.onnx", onnx_format::export_onnx_bytes(healthy()));
  Model bad = healthy();
  find(bad, "relu1")->inputs[0] = "nowhere";
  auto badp = write("bad.onnx", onnx_format::export_onnx_bytes(bad));
  auto text = write("text.onnx", "hello");
  auto sh = [&](const std::string& args) {
    std::string cmd = std::string(MS_BINARY) + " model_check --checkModel 1 " + args + " > " + (dir_ / "out.txt").string();
    int rc = std::system(cmd.c_str());
    return WEXITSTATUS(rc);
  };
  EXPECT_EQ(sh("--modelFile " + ok), 0);
  EXPECT_EQ(sh("--modelFile " + badp), 1);
  EXPECT_EQ(sh("--modelFile " + badp + " --format json"), 1);
  std::ifstream f(dir_ / "out.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("\"rule\": \"MC-GRAPH-001\""), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("\"node\": \"relu1\""), std::string::npos) << ss.str();
  EXPECT_EQ(sh("--modelFile " + text), 2);
  EXPECT_EQ(sh("--modelFile " + ok + " --target tpu"), 2);
}

}  // namespace
}  // namespace ms
