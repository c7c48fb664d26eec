// fuse_quantized_conv: the QDQ graph ms quant writes becomes QLinearConv (output quantized again)
// and com.mstools QConvFloatOut (float tail: residual add, activation, graph output); the rewritten
// graph computes the QDQ graph's values within one quantization step of the output.
#include <cmath>

#include "passes_test_util.h"
#include "runtime/session.h"

namespace ms::test {
namespace {

Tensor int8_weight(const Shape& shape, uint32_t seed) {
  Tensor t(DType::Int8, shape);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-127, 127);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int8_t>()[i] = int8_t(u(rng));
  return t;
}

// x -> Q/DQ -> Conv1(+bias) -> Relu -> Q/DQ -> Conv2 -> Add(x1) -> Relu -> out (float)
//                                                    and Conv1's Relu output also read by the Add.
// Conv1's Relu output has two readers (Q and the Add), so Conv1 keeps a float output; Conv2 has a
// float tail with a residual: both become QConvFloatOut. A third conv (Conv3) feeds a Q/DQ whose
// zero point is 0 (uint8): QLinearConv with the Relu dropped.
TestGraph qdq_graph(bool symmetric) {
  TestGraph g;
  const DType act = symmetric ? DType::Int8 : DType::UInt8;
  auto zp = [&](int v) { return act == DType::UInt8 ? Tensor::scalar<uint8_t>(uint8_t(v)) : Tensor::scalar<int8_t>(int8_t(v)); };
  g.input("x", {1, 8, 9, 11});
  g.scalar("xs", 0.01f).init("xz", zp(symmetric ? 0 : 100));
  g.scalar("hs", 0.02f).init("hz", zp(symmetric ? 0 : 0));
  g.scalar("h3s", 0.015f).init("h3z", zp(symmetric ? 0 : 0));
  std::vector<float> ws(12);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = 0.003f + 0.0004f * float(i);
  g.init("w1q", int8_weight({12, 8, 3, 3}, 1)).init("w1s", Tensor::from_vector<float>(ws, {12}));
  g.init("w1z", Tensor::from_vector<int8_t>(std::vector<int8_t>(12, 0), {12}));
  g.init("w2q", int8_weight({12, 12, 1, 1}, 2)).init("w2s", Tensor::scalar<float>(0.004f)).init("w2z", Tensor::scalar<int8_t>(0));
  g.init("w3q", int8_weight({12, 12, 3, 3}, 3)).init("w3s", Tensor::from_vector<float>(ws, {12}));
  g.weight("b1", {12}, -0.3f, 0.3f).weight("b3", {12}, -0.3f, 0.3f);
  auto axis0 = std::map<std::string, Attribute>{{"axis", Attribute::of_int(0)}};
  auto pads = std::map<std::string, Attribute>{{"pads", ints_attr({1, 1, 1, 1})}};
  g.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}).node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"});
  g.node("DequantizeLinear", {"w1q", "w1s", "w1z"}, {"w1"}, axis0);
  g.node("Conv", {"xd", "w1", "b1"}, {"c1"}, pads).node("Relu", {"c1"}, {"h1"});
  g.node("QuantizeLinear", {"h1", "hs", "hz"}, {"h1q"}).node("DequantizeLinear", {"h1q", "hs", "hz"}, {"h1d"});
  g.node("DequantizeLinear", {"w2q", "w2s", "w2z"}, {"w2"});
  g.node("Conv", {"h1d", "w2"}, {"c2"}).node("Add", {"c2", "h1"}, {"a2"}).node("Relu", {"a2"}, {"out"});
  g.node("DequantizeLinear", {"w3q", "w3s", "w1z"}, {"w3"}, axis0);
  g.node("Conv", {"h1d", "w3", "b3"}, {"c3"}, pads).node("Relu", {"c3"}, {"h3"});
  g.node("QuantizeLinear", {"h3", "h3s", "h3z"}, {"h3q"}).node("DequantizeLinear", {"h3q", "h3s", "h3z"}, {"out3"});
  g.output("out").output("out3");
  return g;
}

// Reference-kernel outputs of both models on the same seeded input; every element within `atol`.
void expect_within(const Model& a, const Model& b, const std::vector<double>& atol) {
  auto feeds = passes::seeded_inputs(a, 5, {});
  const auto ra = passes::run_reference(a, feeds), rb = passes::run_reference(b, feeds);
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t o = 0; o < ra.size(); ++o) {
    const auto va = ra[o].tensor.to_double_vector(), vb = rb[o].tensor.to_double_vector();
    ASSERT_EQ(va.size(), vb.size());
    double worst = 0;
    for (size_t i = 0; i < va.size(); ++i) worst = std::max(worst, std::abs(va[i] - vb[i]));
    EXPECT_LE(worst, atol[o]) << "output " << o;
  }
}

TEST(FuseQuantizedConv, RewritesQdqConvolutions) {
  for (bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "int8 activations" : "uint8 activations");
    TestGraph g = qdq_graph(symmetric);
    passes::PassStats stats;
    Model out = apply_pass(g.m, passes::make_fuse_quantized_conv(), {}, &stats);
    EXPECT_EQ(stats.rewrites, 3u);
    EXPECT_EQ(count_ops(out, "Conv"), 0u);
    // uint8 with zero point 0: the Relu before Q is a no-op, QLinearConv. int8 (zero point 0 is not
    // the lowest value): the Relu matters, so Conv3 keeps a float tail.
    EXPECT_EQ(count_ops(out, "QLinearConv"), symmetric ? 0u : 1u);
    EXPECT_EQ(count_ops(out, "QConvFloatOut"), symmetric ? 3u : 2u);
    EXPECT_EQ(count_ops(out, "Add"), 0u);  // Conv2's residual add is inside QConvFloatOut
    // Within one quantization step of each output (out: float, out3: step 0.015).
    expect_within(g.m, out, {1e-4, 0.015 + 1e-6});
  }
}

TEST(FuseQuantizedConv, AsymmetricWeightsStayFloat) {
  TestGraph g = qdq_graph(false);
  g.m.graph.initializers["w2z"] = Tensor::scalar<int8_t>(3);
  passes::PassStats stats;
  Model out = apply_pass(g.m, passes::make_fuse_quantized_conv(), {}, &stats);
  EXPECT_EQ(count_ops(out, "Conv"), 1u);
  EXPECT_EQ(stats.rewrites, 2u);
}

TEST(FuseQuantizedConv, FastKernelsRunTheRewrittenGraph) {
  TestGraph g = qdq_graph(false);
  Model out = apply_pass(g.m, passes::make_fuse_quantized_conv());
  auto model = std::make_shared<Model>(out);
  auto feeds = passes::seeded_inputs(out, 5, {});
  SessionOptions fast;
  RunProfile prof;
  Session session(model, fast);
  session.run(feeds, &prof);
  for (const auto& r : prof.nodes) {
    const Node& n = session.model().graph.nodes[r.node_index];
    if (n.op_type == "QLinearConv" || n.op_type == "QConvFloatOut") EXPECT_EQ(r.kernel, "onednn_qconv_int8") << n.label();
  }
  expect_within(g.m, out, {1e-4, 0.015 + 1e-6});
}

TEST(FuseQuantizedConv, QdqMatMulBecomesQLinearMatMul) {
  TestGraph g;
  g.input("a", {3, 17});
  g.scalar("as", 0.01f).init("az", Tensor::scalar<uint8_t>(90));
  g.scalar("ys", 0.03f).init("yz", Tensor::scalar<uint8_t>(120));
  std::vector<float> bs(9);
  for (size_t j = 0; j < bs.size(); ++j) bs[j] = 0.004f + 0.0005f * float(j);
  g.init("bq", int8_weight({17, 9}, 4)).init("bs", Tensor::from_vector<float>(bs, {9}));
  g.init("bz", Tensor::from_vector<int8_t>(std::vector<int8_t>(9, 0), {9}));
  g.node("QuantizeLinear", {"a", "as", "az"}, {"aq"}).node("DequantizeLinear", {"aq", "as", "az"}, {"ad"});
  g.node("DequantizeLinear", {"bq", "bs", "bz"}, {"b"}, {{"axis", Attribute::of_int(1)}});
  g.node("MatMul", {"ad", "b"}, {"m"}).node("QuantizeLinear", {"m", "ys", "yz"}, {"mq"});
  g.node("DequantizeLinear", {"mq", "ys", "yz"}, {"out"}).output("out");
  Model out = apply_pass(g.m, passes::make_fuse_quantized_conv());
  EXPECT_EQ(count_ops(out, "QLinearMatMul"), 1u);
  EXPECT_EQ(count_ops(out, "MatMul"), 0u);
  expect_within(g.m, out, {0.03 + 1e-6});
}

}  // namespace
}  // namespace ms::test
