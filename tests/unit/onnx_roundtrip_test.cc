// Import -> export -> import keeps the graph, passes the ONNX checker and runs to the same outputs.
#include <gtest/gtest.h>

#include <onnx/checker.h>

#include <filesystem>
#include <fstream>

#include "formats/io/tensor_file.h"
#include "formats/onnx/onnx_exporter.h"
#include "formats/onnx/onnx_importer.h"
#include "runtime/session.h"

namespace ms {
namespace {

const std::string kSuite = "/usr/share/libonnx-testdata/data/";

std::vector<Value> run_with_case_inputs(const Model& m, const std::string& case_dir) {
  auto model = std::make_shared<const Model>(m);
  Session s(model);
  std::vector<Value> feeds;
  for (int i = 0;; ++i) {
    auto p = case_dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb";
    if (!std::filesystem::exists(p)) break;
    feeds.push_back(io::read_pb(p, &m.graph.inputs[i].type));
  }
  return s.run(feeds);
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, ExportedModelChecksAndRunsTheSame) {
  std::string dir = kSuite + GetParam();
  Model a = onnx_format::load_onnx(dir + "/model.onnx");
  onnx::ModelProto proto;
  onnx_format::export_onnx(a, &proto);
  EXPECT_NO_THROW(onnx::checker::check_model(proto));
  Model b = onnx_format::import_onnx_bytes(proto.SerializeAsString(), dir + "/exported.onnx");
  ASSERT_EQ(a.graph.nodes.size(), b.graph.nodes.size());
  for (size_t i = 0; i < a.graph.nodes.size(); ++i) {
    EXPECT_EQ(a.graph.nodes[i].op_type, b.graph.nodes[i].op_type);
    EXPECT_EQ(a.graph.nodes[i].inputs, b.graph.nodes[i].inputs);
    EXPECT_EQ(a.graph.nodes[i].attrs.size(), b.graph.nodes[i].attrs.size());
  }
  EXPECT_EQ(a.graph.initializers.size(), b.graph.initializers.size());
  EXPECT_EQ(a.opsets, b.opsets);
  auto out_a = run_with_case_inputs(a, dir);
  auto out_b = run_with_case_inputs(b, dir);
  ASSERT_EQ(out_a.size(), out_b.size());
  for (size_t i = 0; i < out_a.size(); ++i) {
    ASSERT_TRUE(out_a[i].is_tensor());
    ASSERT_EQ(out_a[i].tensor.shape(), out_b[i].tensor.shape());
    EXPECT_EQ(out_a[i].tensor.to_double_vector(), out_b[i].tensor.to_double_vector());
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, RoundTrip,
                         ::testing::Values("node/test_relu", "node/test_identity", "simple/test_single_relu_model",
                                           "node/test_if", "node/test_constant", "node/test_conv_with_strides_padding",
                                           "pytorch-converted/test_Conv2d", "node/test_loop11"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Importer, UpgradesOldOpsetsToTheCanonicalOne) {
  // test_softmax_axis_0 declares opset 13; the version converter brings it to 17.
  Model m = onnx_format::load_onnx(kSuite + "node/test_softmax_axis_0/model.onnx");
  EXPECT_EQ(m.opset(""), onnx_format::kCanonicalOpset);
}

TEST(Importer, TruncatedFileIsAClearError) {
  std::string bytes;
  {
    std::ifstream f(kSuite + "pytorch-converted/test_Conv2d/model.onnx", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  try {
    onnx_format::import_onnx_bytes(bytes.substr(0, bytes.size() / 2), "cut.onnx");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("cut.onnx"), std::string::npos);
  }
}

}  // namespace
}  // namespace ms

namespace ms {
namespace {

// ONNX's version converter dereferences missing producers: a corrupt old-opset model must reach
// our own validation (a clear error) instead of crashing inside the converter.
TEST(Importer, CorruptOldOpsetModelIsAnErrorNotACrash) {
  onnx::ModelProto p;
  p.set_ir_version(7);
  p.add_opset_import()->set_version(13);
  auto* g = p.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y_typo");  // produced by nothing
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  Model m = onnx_format::import_onnx_bytes(p.SerializeAsString(), "corrupt.onnx");
  EXPECT_EQ(m.opset(""), 13);  // left unconverted
  EXPECT_THROW(Session(std::make_shared<const Model>(m)), Error);
  // An element type the converter cannot represent.
  g->mutable_output(0)->set_name("y");
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(61);
  EXPECT_NO_THROW(onnx_format::import_onnx_bytes(p.SerializeAsString(), "corrupt.onnx"));
}

// The version converter runs ONNX shape inference first; what inference adds to the value_info of
// If bodies must not stay in the imported model (47 KB of Silero VAD's quantized file), while what
// the file declared stays.
TEST(Importer, BodiesKeepOnlyTheValueInfoTheFileDeclared) {
  onnx::ModelProto p;
  p.set_ir_version(8);
  p.add_opset_import()->set_version(16);
  auto* g = p.mutable_graph();
  g->set_name("g");
  auto tensor = [](onnx::ValueInfoProto* v, const std::string& name, int elem, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();  // a scalar has a shape with no dims
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  };
  tensor(g->add_input(), "x", 1, {2, 3});
  tensor(g->add_input(), "flag", 9, {});
  tensor(g->add_output(), "z", 1, {2, 3});
  auto* n = g->add_node();
  n->set_op_type("If");
  n->set_name("choose");
  n->add_input("flag");
  n->add_output("z");
  auto branch = [&](const std::string& attr, const std::string& op, bool declare) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(attr);
    auto* first = b->add_node();
    first->set_op_type(op);
    first->add_input("x");
    first->add_output(attr + "_a");
    auto* second = b->add_node();
    second->set_op_type("Neg");
    second->add_input(attr + "_a");
    second->add_output(attr + "_out");
    tensor(b->add_output(), attr + "_out", 1, {2, 3});
    if (declare) tensor(b->add_value_info(), attr + "_a", 1, {2, 3});
  };
  branch("then_branch", "Relu", true);
  branch("else_branch", "Abs", false);
  Model m = onnx_format::import_onnx_bytes(p.SerializeAsString(), "bodies.onnx");
  ASSERT_EQ(m.opset(""), onnx_format::kCanonicalOpset);  // the converter ran
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  const Graph& then_g = *m.graph.nodes[0].attrs.at("then_branch").g;
  const Graph& else_g = *m.graph.nodes[0].attrs.at("else_branch").g;
  ASSERT_EQ(then_g.value_info.size(), 1u);
  EXPECT_EQ(then_g.value_info[0].name, "then_branch_a");
  EXPECT_TRUE(else_g.value_info.empty());
}

}  // namespace
}  // namespace ms
