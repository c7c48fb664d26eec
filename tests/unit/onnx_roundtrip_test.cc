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

}  // namespace
}  // namespace ms
