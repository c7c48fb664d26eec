// Golden before/after and numeric tests of the transformer fusions: decomposed LayerNorm, GELU
// (erf and tanh forms) and multi-head attention, as PyTorch exports them.
#include <cmath>

#include "ops/ms_domain.h"
#include "passes_test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

TestGraph layer_norm_graph(std::vector<int64_t> axes) {
  TestGraph g;
  g.input("x", {2, 3, 8}).weight("gamma", {8}).weight("beta", {8}).scalar("two", 2.f).scalar("eps", 1e-5f);
  g.node("ReduceMean", {"x"}, {"mean"}, {{"axes", ints_attr(axes)}})
      .node("Sub", {"x", "mean"}, {"d"})
      .node("Pow", {"d", "two"}, {"sq"})
      .node("ReduceMean", {"sq"}, {"var"}, {{"axes", ints_attr(axes)}})
      .node("Add", {"var", "eps"}, {"ve"})
      .node("Sqrt", {"ve"}, {"sd"})
      .node("Div", {"d", "sd"}, {"n"})
      .node("Mul", {"n", "gamma"}, {"sc"})
      .node("Add", {"sc", "beta"}, {"y"})
      .output("y");
  return g;
}

TEST(PassFuseLayerNorm, DecomposedLayerNormBecomesOneOp) {
  TestGraph g = layer_norm_graph({-1});
  Model after = apply_pass(g.m, make_fuse_layer_norm());
  EXPECT_EQ(node_lines(after), "y = LayerNormalization(x, gamma, beta) {axis=2, epsilon=1e-05}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseLayerNorm, NonTrailingAxesOrSharedIntermediateStay) {
  TestGraph g = layer_norm_graph({1});
  EXPECT_EQ(apply_pass(g.m, make_fuse_layer_norm()).graph.nodes.size(), 9u);
  TestGraph h = layer_norm_graph({-1});
  h.output("sd");  // the standard deviation is used elsewhere
  EXPECT_EQ(apply_pass(h.m, make_fuse_layer_norm()).graph.nodes.size(), 9u);
}

TEST(PassFuseGelu, ErfFormBecomesGelu) {
  TestGraph g;
  g.input("x", {2, 16}).scalar("sqrt2", std::sqrt(2.f)).scalar("one", 1.f).scalar("half", 0.5f);
  g.node("Div", {"x", "sqrt2"}, {"xs"}).node("Erf", {"xs"}, {"e"}).node("Add", {"e", "one"}, {"e1"});
  g.node("Mul", {"x", "e1"}, {"p"}).node("Mul", {"p", "half"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_gelu());
  EXPECT_EQ(node_lines(after), "y = com.mstools.Gelu(x) {approximate=\"none\"}\n");
  expect_same_outputs(g.m, after);
  PassContext mindir;  // MindIR has GeLU: the IR's own Gelu then
  mindir.allow_ms_domain = false;
  EXPECT_EQ(node_lines(apply_pass(g.m, make_fuse_gelu(), mindir)), "y = Gelu(x) {approximate=\"none\"}\n");
}

TEST(PassFuseGelu, TanhFormWithHalfFirstBecomesGelu) {
  TestGraph g;
  g.input("x", {2, 16}).scalar("three", 3.f).scalar("k", 0.044715f).scalar("c", std::sqrt(2.f / float(M_PI)));
  g.scalar("one", 1.f).scalar("half", 0.5f);
  g.node("Pow", {"x", "three"}, {"x3"}).node("Mul", {"k", "x3"}, {"kx3"}).node("Add", {"x", "kx3"}, {"in"});
  g.node("Mul", {"in", "c"}, {"arg"}).node("Tanh", {"arg"}, {"t"}).node("Add", {"one", "t"}, {"t1"});
  g.node("Mul", {"x", "half"}, {"hx"}).node("Mul", {"hx", "t1"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_fuse_gelu());
  EXPECT_EQ(node_lines(after), "y = com.mstools.Gelu(x) {approximate=\"tanh\"}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseGelu, WrongConstantStays) {
  TestGraph g;
  g.input("x", {2, 16}).scalar("c", 1.5f).scalar("one", 1.f).scalar("half", 0.5f);
  g.node("Div", {"x", "c"}, {"xs"}).node("Erf", {"xs"}, {"e"}).node("Add", {"e", "one"}, {"e1"});
  g.node("Mul", {"x", "e1"}, {"p"}).node("Mul", {"p", "half"}, {"y"}).output("y");
  EXPECT_EQ(apply_pass(g.m, make_fuse_gelu()).graph.nodes.size(), 5u);
}

// One self-attention block: B=1, S=5, 2 heads of 4.
TestGraph attention_graph(bool mask) {
  TestGraph g;
  g.input("q", {1, 5, 8}).input("k", {1, 5, 8}).input("v", {1, 5, 8}).ints("split", {1, 5, 2, 4}).ints("merge", {1, 5, 8});
  g.scalar("d", 2.f);
  if (mask) g.weight("mask", {1, 1, 1, 5}, -3.f, 0.f);
  const std::vector<int64_t> heads = {0, 2, 1, 3}, keys = {0, 2, 3, 1};
  g.node("Reshape", {"q", "split"}, {"qr"}).node("Transpose", {"qr"}, {"qh"}, {{"perm", ints_attr(heads)}});
  g.node("Reshape", {"k", "split"}, {"kr"}).node("Transpose", {"kr"}, {"kt"}, {{"perm", ints_attr(keys)}});
  g.node("Reshape", {"v", "split"}, {"vr"}).node("Transpose", {"vr"}, {"vh"}, {{"perm", ints_attr(heads)}});
  g.node("MatMul", {"qh", "kt"}, {"s"}).node("Div", {"s", "d"}, {"ss"});
  std::string scores = "ss";
  if (mask) {
    g.node("Add", {"ss", "mask"}, {"sm"});
    scores = "sm";
  }
  g.node("Softmax", {scores}, {"p"}, {{"axis", Attribute::of_int(-1)}}).node("MatMul", {"p", "vh"}, {"o"});
  g.node("Transpose", {"o"}, {"ot"}, {{"perm", ints_attr(heads)}}).node("Reshape", {"ot", "merge"}, {"y"}).output("y");
  return g;
}

TEST(PassFuseAttention, ChainBecomesMultiHeadAttention) {
  TestGraph g = attention_graph(false);
  Model after = apply_pass(g.m, make_fuse_attention());
  EXPECT_EQ(node_lines(after), "y = com.mstools.MultiHeadAttention(q, k, v) {num_heads=2, scale=0.5}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseAttention, AdditiveMaskIsTheFourthInput) {
  TestGraph g = attention_graph(true);
  Model after = apply_pass(g.m, make_fuse_attention());
  EXPECT_EQ(node_lines(after), "y = com.mstools.MultiHeadAttention(q, k, v, mask) {num_heads=2, scale=0.5}\n");
  expect_same_outputs(g.m, after);
}

TEST(PassFuseAttention, ProbabilitiesReadElsewhereStay) {
  TestGraph g = attention_graph(false);
  g.output("p");
  EXPECT_EQ(count_ops(apply_pass(g.m, make_fuse_attention()), "MultiHeadAttention"), 0u);
}

}  // namespace
}  // namespace ms::test
