// Golden before/after and numeric tests of the folding-into-weights and fusion passes, with the
// cases that must not be rewritten.
#include "ops/ms_domain.h"
#include "passes_test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

// Conv(x, w, b) -> c, 4 output channels, 3x3, pads 1.
TestGraph conv_graph() {
  TestGraph g;
  g.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).weight("b", {4});
  g.node("Conv", {"x", "w", "b"}, {"c"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  return g;
}

TestGraph& add_bn(TestGraph& g, const std::string& in, const std::string& out, int64_t c) {
  g.weight("gamma", {c}, 0.5f, 1.5f).weight("beta", {c}).weight("mean", {c}).weight("var", {c}, 0.5f, 2.f);
  return g.node("BatchNormalization", {in, "gamma", "beta", "mean", "var"}, {out}, {{"epsilon", Attribute::of_float(1e-3f)}});
}

TEST(PassFoldBatchNorm, ConvBatchNormBecomesConv) {
  TestGraph g = conv_graph();
  add_bn(g, "c", "y", 4).output("y");
  Model after = apply_pass(g.m, make_fold_batch_norm());
  EXPECT_EQ(node_lines(after), "y = Conv(x, n_c_folded_w, n_c_folded_b) {pads=[1,1,1,1]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFoldBatchNorm, ConvWithoutBiasAndGemmAndConvTranspose) {
  TestGraph g;
  g.input("x", {1, 3, 5, 5}).weight("w", {3, 2, 3, 3}).input("a", {2, 5}).weight("B", {4, 5}).weight("C", {1, 4});
  g.node("ConvTranspose", {"x", "w"}, {"ct"});
  add_bn(g, "ct", "y1", 2);
  g.m.graph.initializers.erase("gamma");  // second BN gets its own parameters
  g.node("Gemm", {"a", "B", "C"}, {"gm"}, {{"transB", Attribute::of_int(1)}, {"beta", Attribute::of_float(0.5f)}});
  g.weight("g2", {4}, 0.5f, 1.5f).weight("b2", {4}).weight("m2", {4}).weight("v2", {4}, 0.5f, 2.f);
  g.weight("gamma", {2}, 0.5f, 1.5f);
  g.node("BatchNormalization", {"gm", "g2", "b2", "m2", "v2"}, {"y2"}).output("y1").output("y2");
  Model after = apply_pass(g.m, make_fold_batch_norm());
  EXPECT_EQ(node_lines(after),
            "y1 = ConvTranspose(x, n_ct_folded_w, n_ct_folded_b)\n"
            "y2 = Gemm(a, n_gm_folded_w, n_gm_folded_b) {beta=1, transB=1}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFoldBatchNorm, NotFoldedWhenConvOutputHasAnotherReader) {
  TestGraph g = conv_graph();
  add_bn(g, "c", "y", 4).node("Relu", {"c"}, {"r"}).output("y").output("r");
  PassStats stats;
  Model after = apply_pass(g.m, make_fold_batch_norm(), {}, &stats);
  EXPECT_EQ(count_ops(after, "BatchNormalization"), 1u);
  EXPECT_EQ(stats.rejections.count("producer output has another reader"), 1u);
}

TEST(PassFoldBatchNorm, NotFoldedWithTrainingOutputsOrNonConstantStats) {
  TestGraph g = conv_graph();
  g.input("mean_in", {4});
  g.weight("gamma", {4}).weight("beta", {4}).weight("var", {4}, 0.5f, 2.f);
  g.node("BatchNormalization", {"c", "gamma", "beta", "mean_in", "var"}, {"y"}).output("y");
  EXPECT_EQ(count_ops(apply_pass(g.m, make_fold_batch_norm()), "BatchNormalization"), 1u);
}

TEST(PassFoldScaleShift, PerChannelMulAndAddFoldIntoConv) {
  TestGraph g = conv_graph();
  g.weight("s", {4, 1, 1}).weight("t", {1, 4, 1, 1});
  g.node("Mul", {"c", "s"}, {"m"}).node("Add", {"t", "m"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fold_scale_shift());
  EXPECT_EQ(node_lines(after), "y = Conv(x, n_c_folded_w_1, n_c_folded_b_2) {pads=[1,1,1,1]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFoldScaleShift, ScalarDivAndSubFold) {
  TestGraph g = conv_graph();
  g.scalar("d", 4.f).scalar("e", 0.25f);
  g.node("Div", {"c", "d"}, {"m"}).node("Sub", {"m", "e"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fold_scale_shift());
  EXPECT_EQ(after.graph.nodes.size(), 1u);
  expect_same_outputs(g.m, after);
}

TEST(PassFoldScaleShift, SpatialConstantAndReversedSubStay) {
  TestGraph g = conv_graph();
  g.weight("sp", {1, 1, 8, 8}).scalar("k", 2.f);
  g.node("Mul", {"c", "sp"}, {"y"}).output("y");
  EXPECT_EQ(apply_pass(g.m, make_fold_scale_shift()).graph.nodes.size(), 2u);
  TestGraph h = conv_graph();
  h.scalar("k", 2.f).node("Sub", {"k", "c"}, {"y"}).output("y");  // k - conv is not conv - k
  EXPECT_EQ(apply_pass(h.m, make_fold_scale_shift()).graph.nodes.size(), 2u);
}

TEST(PassFoldPad, ZeroPadBecomesConvPadding) {
  TestGraph g;
  g.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).ints("p", {0, 0, 1, 2, 0, 0, 1, 2});
  g.node("Pad", {"x", "p"}, {"xp"}).node("Conv", {"xp", "w"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fold_pad());
  EXPECT_EQ(node_lines(after), "y = Conv(x, w) {pads=[1,2,1,2]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFoldPad, ReflectPadAndMaxPoolStay) {
  TestGraph g;
  g.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).ints("p", {0, 0, 1, 1, 0, 0, 1, 1});
  g.node("Pad", {"x", "p"}, {"xp"}, {{"mode", Attribute::of_string("reflect")}}).node("Conv", {"xp", "w"}, {"y"});
  g.node("Pad", {"x", "p"}, {"xq"}).node("MaxPool", {"xq"}, {"z"}, {{"kernel_shape", ints_attr({2, 2})}});
  g.output("y").output("z");
  EXPECT_EQ(apply_pass(g.m, make_fold_pad()).graph.nodes.size(), 4u);
}

TEST(PassFuseMatMulAdd, TwoDimensionalBecomesGemm) {
  TestGraph g;
  g.input("a", {4, 5}).weight("B", {5, 3}).weight("c", {3});
  g.node("MatMul", {"a", "B"}, {"m"}).node("Add", {"m", "c"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_matmul_add());
  EXPECT_EQ(node_lines(after), "y = Gemm(a, B, c)\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseMatMulAdd, BatchedBecomesFusedMatMulUnlessMindIR) {
  TestGraph g;
  g.input("a", {2, 4, 5}).weight("B", {5, 3}).weight("c", {3});
  g.node("MatMul", {"a", "B"}, {"m"}).node("Add", {"c", "m"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_matmul_add());
  EXPECT_EQ(node_lines(after), "y = com.mstools.FusedMatMul(a, B, c)\n");
  EXPECT_EQ(after.opset(kMsDomain), 1);
  expect_same_outputs(g.m, after);
  PassContext mindir;
  mindir.allow_ms_domain = false;
  EXPECT_EQ(apply_pass(g.m, make_fuse_matmul_add(), mindir).graph.nodes.size(), 2u);
}

TEST(PassFoldTransposeIntoGemm, TransposeBecomesFlag) {
  TestGraph g;
  g.input("a", {5, 4}).weight("B", {5, 3});
  g.node("Transpose", {"a"}, {"at"}, {{"perm", ints_attr({1, 0})}}).node("Gemm", {"at", "B"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fold_transpose_into_gemm());
  EXPECT_EQ(node_lines(after), "y = Gemm(a, B) {transA=1}\n");
  expect_same_outputs(g.m, after);
}

// act(Conv) for every activation a fused op carries: structure and numbers.
struct ActivationCase {
  std::string op, domain;
  std::map<std::string, Attribute> attrs;
  std::string fused;  // expected `activation` attribute
};

TEST(PassFuseActivation, EveryActivationFusesIntoConvAndComputesTheSame) {
  const std::vector<ActivationCase> cases = {
      {"Relu", "", {}, "Relu"},
      {"Sigmoid", "", {}, "Sigmoid"},
      {"Tanh", "", {}, "Tanh"},
      {"HardSwish", "", {}, "HardSwish"},
      {"LeakyRelu", "", {{"alpha", Attribute::of_float(0.3f)}}, "LeakyRelu"},
      {"HardSigmoid", "", {{"alpha", Attribute::of_float(0.25f)}, {"beta", Attribute::of_float(0.4f)}}, "HardSigmoid"},
      {"Gelu", kMsDomain, {}, "Gelu"},
  };
  for (const auto& c : cases) {
    TestGraph g = conv_graph();
    g.node(c.op, {"c"}, {"y"}, c.attrs, c.domain).output("y");
    Model after = apply_pass(g.m, make_fuse_activation());
    ASSERT_EQ(after.graph.nodes.size(), 1u) << c.op;
    const Node& n = after.graph.nodes[0];
    EXPECT_EQ(n.op_type, "FusedConv");
    EXPECT_EQ(n.attr("activation")->s, c.fused);
    expect_same_outputs(g.m, after);
  }
}

TEST(PassFuseActivation, ClipBecomesRelu6Parameters) {
  TestGraph g = conv_graph();
  g.scalar("lo", 0.f).scalar("hi", 6.f).node("Clip", {"c", "lo", "hi"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_activation());
  EXPECT_EQ(node_lines(after), "y = com.mstools.FusedConv(x, w, b) {activation=\"Clip\", activation_params=[0,6], pads=[1,1,1,1]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseActivation, SwishGemmAndMatMul) {
  TestGraph g = conv_graph();
  g.node("Sigmoid", {"c"}, {"s"}).node("Mul", {"s", "c"}, {"y"});
  g.input("a", {2, 5}).weight("B", {5, 3}).node("Gemm", {"a", "B"}, {"gm"}).node("Tanh", {"gm"}, {"y2"});
  g.node("MatMul", {"a", "B"}, {"mm"}).node("Relu", {"mm"}, {"y3"});
  g.output("y").output("y2").output("y3");
  Model after = apply_pass(g.m, make_fuse_activation());
  EXPECT_EQ(node_lines(after),
            "y = com.mstools.FusedConv(x, w, b) {activation=\"Swish\", activation_params=[], pads=[1,1,1,1]}\n"
            "y2 = com.mstools.FusedGemm(a, B) {activation=\"Tanh\", activation_params=[]}\n"
            "y3 = com.mstools.FusedMatMul(a, B) {activation=\"Relu\", activation_params=[]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseActivation, ResidualAddThenReluFuseIntoOneConv) {
  TestGraph g = conv_graph();
  g.input("z", {1, 4, 8, 8}).node("Add", {"z", "c"}, {"s"}).node("Relu", {"s"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_activation());
  EXPECT_EQ(node_lines(after), "y = com.mstools.FusedConv(x, w, b, z) {activation=\"Relu\", activation_params=[], pads=[1,1,1,1]}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseActivation, NotFusedWhenTheConvOutputIsReadElsewhereOrForMindIR) {
  TestGraph g = conv_graph();
  g.node("Relu", {"c"}, {"y"}).output("y").output("c");
  PassStats stats;
  Model after = apply_pass(g.m, make_fuse_activation(), {}, &stats);
  EXPECT_EQ(count_ops(after, "FusedConv"), 0u);
  EXPECT_EQ(stats.rejections.count("the pre-activation value has another reader"), 1u);
  TestGraph h = conv_graph();
  h.node("Relu", {"c"}, {"y"}).output("y");
  PassContext mindir;
  mindir.allow_ms_domain = false;
  EXPECT_EQ(apply_pass(h.m, make_fuse_activation(), mindir).graph.nodes.size(), 2u);
  // A broadcasting residual (z smaller than the conv output) is not a FusedConv Z.
  TestGraph k = conv_graph();
  k.input("z", {1, 4, 1, 1}).node("Add", {"c", "z"}, {"y"}).output("y");
  EXPECT_EQ(count_ops(apply_pass(k.m, make_fuse_activation()), "FusedConv"), 0u);
}

TEST(FusedOps, BadActivationIsAClearError) {
  TestGraph g = conv_graph();
  g.m.graph.nodes[0].op_type = "FusedConv";
  g.m.graph.nodes[0].domain = kMsDomain;
  g.m.graph.nodes[0].attrs["activation"] = Attribute::of_string("Softplus");
  g.m.opsets[kMsDomain] = 1;
  g.output("c");
  try {
    run_reference(g.m, seeded_inputs(g.m, 1, {}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown activation 'Softplus'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("n_c"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ms::test
