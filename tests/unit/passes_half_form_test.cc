// The half-precision compute form (passes/half_compute_form.cc): which nodes compute in the half
// type, what stays float32, the interface, and the numbers: the form run as written on the
// reference kernels (which compute float16 ops in float16) agrees with the float32 model to
// float16 precision and differs from it (the form really rounds).
#include <gtest/gtest.h>

#include "passes/basic_passes.h"
#include "passes_test_util.h"
#include "runtime/session.h"

namespace ms::test {
namespace {

// x -> Conv -> BatchNormalization -> Relu -> (y1) -> GlobalAveragePool -> Flatten -> Gemm -> Softmax -> y2
Model float_model() {
  TestGraph g;
  g.input("x", {1, 3, 8, 8});
  g.weight("w", {8, 3, 3, 3}).weight("b", {8});
  g.weight("scale", {8}, 0.5f, 1.5f).weight("bias", {8}).weight("mean", {8}).weight("var", {8}, 0.5f, 1.f);
  g.weight("fc", {8, 5}).weight("fcb", {5});
  g.node("Conv", {"x", "w", "b"}, {"c"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"});
  g.node("Relu", {"bn"}, {"y1"});
  g.node("GlobalAveragePool", {"y1"}, {"p"});
  g.node("Flatten", {"p"}, {"f"});
  g.node("Gemm", {"f", "fc", "fcb"}, {"g"});
  g.node("Softmax", {"g"}, {"y2"});
  g.output("y1").output("y2");
  for (auto& o : g.m.graph.outputs) o.type = TypeInfo::tensor_unknown_shape(DType::Float32);
  return g.m;
}

const Node& node_named(const Model& m, const std::string& name) {
  for (const auto& n : m.graph.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

DType input_dtype(const Model& m, const std::string& value) {
  if (auto it = m.graph.initializers.find(value); it != m.graph.initializers.end()) return it->second.dtype();
  for (const auto& n : m.graph.nodes)
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] == value && n.op_type == "Cast") return static_cast<DType>(n.attr("to")->i);
  return DType::Undefined;  // produced by a computing node: its type follows its inputs
}

TEST(HalfComputeForm, HalfWhereTheOpComputesInItFloatElsewhere) {
  Model m = float_model();
  const size_t half_nodes = passes::to_half_compute_form(m, DType::Float16);
  EXPECT_EQ(half_nodes, 4u);  // Conv, Relu, Flatten, Gemm
  // Conv reads a Cast of the float32 input and float16 weights.
  const Node& conv = node_named(m, "n_c");
  EXPECT_EQ(input_dtype(m, conv.inputs[0]), DType::Float16);
  EXPECT_EQ(m.graph.initializers.at(conv.inputs[1]).dtype(), DType::Float16);
  EXPECT_EQ(m.graph.initializers.at(conv.inputs[2]).dtype(), DType::Float16);
  // BatchNormalization keeps float32 statistics and reads the convolution through a Cast to float.
  const Node& bn = node_named(m, "n_bn");
  EXPECT_EQ(input_dtype(m, bn.inputs[0]), DType::Float32);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(m.graph.initializers.at(bn.inputs[i]).dtype(), DType::Float32);
  // GlobalAveragePool (a reduction) and Softmax stay float32.
  EXPECT_EQ(input_dtype(m, node_named(m, "n_p").inputs[0]), DType::Float32);
  EXPECT_EQ(input_dtype(m, node_named(m, "n_y2").inputs[0]), DType::Float32);
  // The graph output y1 is written by a Cast back to float32; Relu writes a renamed half value.
  EXPECT_NE(node_named(m, "n_y1").outputs[0], "y1");
  EXPECT_EQ(input_dtype(m, "y1"), DType::Float32);
  // The graph is valid and keeps its interface.
  SessionOptions ref;
  ref.reference_kernels = true;
  Session s(std::make_shared<const Model>(m), ref);
  EXPECT_EQ(s.inputs()[0].type.dtype, DType::Float32);
}

TEST(HalfComputeForm, AgreesWithFloat32ToHalfPrecision) {
  for (DType half : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(dtype_name(half));
    Model f = float_model();
    Model h = f;
    passes::to_half_compute_form(h, half);
    Tensor x(DType::Float32, {1, 3, 8, 8});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
    SessionOptions ref;
    ref.reference_kernels = true;
    const auto want = Session(std::make_shared<const Model>(f), ref).run({Value(x)});
    const auto got = Session(std::make_shared<const Model>(h), ref).run({Value(x)});
    ASSERT_EQ(got.size(), 2u);
    // float16 keeps 11 significant bits, bfloat16 8; a few roundings in a row.
    const double rel = half == DType::Float16 ? 8e-3 : 6e-2;
    double differs = 0;
    for (size_t o = 0; o < 2; ++o) {
      const Tensor& a = got[o].tensor;
      const Tensor& b = want[o].tensor;
      ASSERT_EQ(a.dtype(), DType::Float32);
      ASSERT_EQ(a.shape(), b.shape());
      double peak = 0;
      for (int64_t i = 0; i < b.numel(); ++i) peak = std::max(peak, std::abs(b.as_double(i)));
      for (int64_t i = 0; i < b.numel(); ++i) {
        EXPECT_NEAR(a.as_double(i), b.as_double(i), rel * peak) << "output " << o << " element " << i;
        differs = std::max(differs, std::abs(a.as_double(i) - b.as_double(i)));
      }
    }
    EXPECT_GT(differs, 0.0) << "the half form computed exactly the float32 numbers";
  }
}

TEST(HalfComputeForm, KeptNodesAndSharedWeightsStayFloat32) {
  Model m = float_model();
  // The Gemm's weight is also read by a float32 consumer: the half node gets its own copy.
  m.graph.nodes.push_back(m.graph.nodes.back());
  Node& extra = m.graph.nodes.back();
  extra.op_type = "Softmax";  // float32 only
  extra.name = "n_fc_copy";
  extra.inputs = {"fc"};
  extra.outputs = {"fc_copy"};
  m.graph.outputs.push_back({"fc_copy", TypeInfo::tensor_unknown_shape(DType::Float32)});
  passes::to_half_compute_form(m, DType::Float16, {"n_c"});
  EXPECT_EQ(input_dtype(m, node_named(m, "n_c").inputs[0]), DType::Undefined);  // x itself, float32
  EXPECT_EQ(node_named(m, "n_c").inputs[0], "x");
  EXPECT_EQ(m.graph.initializers.at("w").dtype(), DType::Float32);
  EXPECT_EQ(m.graph.initializers.at("fc").dtype(), DType::Float32);
  EXPECT_EQ(m.graph.initializers.at(node_named(m, "n_g").inputs[1]).dtype(), DType::Float16);
  SessionOptions ref;
  ref.reference_kernels = true;
  EXPECT_NO_THROW(Session(std::make_shared<const Model>(m), ref));
}

TEST(HalfComputeForm, ValuesABodyCapturesKeepFloat32) {
  // An If body reads the Relu's output from the outer graph: that Relu must keep writing float32.
  TestGraph g;
  g.input("x", {1, 4}).input("c", {}, DType::Bool);
  g.weight("w", {4, 4});
  g.node("MatMul", {"x", "w"}, {"m"});
  g.node("Relu", {"m"}, {"r"});
  auto branch = [](const std::string& op) {
    auto body = std::make_shared<Graph>();
    body->name = op;
    Node n;
    n.op_type = op;
    n.name = "b_" + op;
    n.inputs = {"r"};
    n.outputs = {"o_" + op};
    body->nodes = {n};
    body->outputs = {{"o_" + op, TypeInfo::tensor_unknown_shape(DType::Float32)}};
    return body;
  };
  g.node("If", {"c"}, {"y"}, {{"then_branch", Attribute::of_graph(branch("Identity"))},
                              {"else_branch", Attribute::of_graph(branch("Neg"))}});
  g.output("y");
  g.m.graph.outputs[0].type = TypeInfo::tensor_unknown_shape(DType::Float32);
  Model m = g.m;
  passes::to_half_compute_form(m, DType::Float16);
  EXPECT_EQ(node_named(m, "n_r").outputs[0], "r");
  EXPECT_EQ(input_dtype(m, node_named(m, "n_r").inputs[0]), DType::Float32);  // the MatMul's half result cast back
  Tensor x = Tensor::from_vector<float>({0.5f, -1.f, 2.f, 0.25f}, {1, 4});
  Tensor cond(DType::Bool, {});
  cond.data<bool>()[0] = true;
  SessionOptions ref;
  ref.reference_kernels = true;
  const auto want = Session(std::make_shared<const Model>(g.m), ref).run(std::vector<Value>{Value(x), Value(cond)});
  const auto got = Session(std::make_shared<const Model>(m), ref).run(std::vector<Value>{Value(x), Value(cond)});
  ASSERT_EQ(got[0].tensor.dtype(), DType::Float32);
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(got[0].tensor.as_double(i), want[0].tensor.as_double(i), 1e-2);
}

TEST(HalfComputeForm, BFloat16NeedsOpset13) {
  Model m = float_model();
  m.opsets[""] = 11;
  try {
    passes::to_half_compute_form(m, DType::BFloat16);
    FAIL() << "opset 11 accepted a bfloat16 Cast";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
}

}  // namespace
}  // namespace ms::test
