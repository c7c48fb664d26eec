// fuse_leaky_relu: tf.maximum(x, a * x) becomes LeakyRelu(x, a) in both operand orders, the
// same values as before (the original on the reference kernels is the oracle); the forms that are
// not a leaky ReLU stay; the cpu pipeline puts the result into the convolution before it.
#include "ops/ms_domain.h"
#include "passes_test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

TEST(PassFuseLeakyRelu, MaxOfXAndScaledXBecomesLeakyRelu) {
  for (int order = 0; order < 4; ++order) {
    TestGraph g;
    g.input("x", {2, 3, 5}).scalar("a", 0.2f);
    if (order % 2) g.node("Mul", {"a", "x"}, {"ax"});
    else g.node("Mul", {"x", "a"}, {"ax"});
    if (order / 2) g.node("Max", {"ax", "x"}, {"y"});
    else g.node("Max", {"x", "ax"}, {"y"});
    g.output("y");
    Model after = apply_pass(g.m, make_fuse_leaky_relu());
    SCOPED_TRACE(order);
    ASSERT_EQ(after.graph.nodes.size(), 1u);
    EXPECT_EQ(after.graph.nodes[0].op_type, "LeakyRelu");
    EXPECT_FLOAT_EQ(after.graph.nodes[0].attr("alpha")->f, 0.2f);
    expect_same_outputs(g.m, after, 0);
  }
}

TEST(PassFuseLeakyRelu, OtherFormsStay) {
  for (float a : {1.5f, -0.2f}) {  // not a leaky ReLU: Max(x, 1.5x) and Max(x, -0.2x) differ from it
    TestGraph g;
    g.input("x", {4}).scalar("a", a).node("Mul", {"x", "a"}, {"ax"}).node("Max", {"x", "ax"}, {"y"}).output("y");
    EXPECT_EQ(count_ops(apply_pass(g.m, make_fuse_leaky_relu()), "LeakyRelu"), 0u) << a;
  }
  TestGraph shared;  // the product is read elsewhere
  shared.input("x", {4}).scalar("a", 0.1f).node("Mul", {"x", "a"}, {"ax"}).node("Max", {"x", "ax"}, {"y"});
  shared.output("y").output("ax");
  EXPECT_EQ(count_ops(apply_pass(shared.m, make_fuse_leaky_relu()), "LeakyRelu"), 0u);
}

TEST(PassFuseLeakyRelu, CpuPipelinePutsItIntoTheConvolution) {
  TestGraph g;
  g.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}).scalar("a", 0.2f);
  g.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  g.node("Mul", {"c", "a"}, {"ac"}).node("Max", {"c", "ac"}, {"y"}).output("y");
  Model m = g.m;
  OptimizeOptions o;
  o.level = "cpu";
  optimize_model(m, o);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "FusedConv");
  expect_same_outputs(g.m, m, 1e-5);
}

}  // namespace
}  // namespace ms::test
