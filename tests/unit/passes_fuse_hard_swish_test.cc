// fuse_hard_swish: golden before/after and numeric equality of the spelled-out HardSwish and
// HardSigmoid forms, the cases that must stay, and the pipeline putting the result into FusedConv.
#include "ops/ms_domain.h"
#include "passes_test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

// Seeded inputs lie in [-1, 1): the tests scale x by 5 so that it crosses both kinks (-3, 3).
TestGraph hard_graph() {
  TestGraph g;
  g.input("x", {2, 4, 7, 5}).scalar("three", 3.f).scalar("zero", 0.f).scalar("six", 6.f).scalar("sixth", 1.f / 6.f);
  return g;
}

// PaddlePaddle's order: (x * Clip(x + 3, 0, 6)) / 6.
TEST(PassFuseHardSwish, PaddleOrderBecomesHardSwish) {
  TestGraph g = hard_graph();
  g.scalar("k", 5.f).node("Mul", {"x", "k"}, {"y"});  // y = 5x reaches the kinks
  g.node("Add", {"y", "three"}, {"a"}).node("Clip", {"a", "zero", "six"}, {"c"});
  g.node("Mul", {"y", "c"}, {"m"}).node("Div", {"m", "six"}, {"h"}).output("h");
  Model after = apply_pass(g.m, make_fuse_hard_swish());
  EXPECT_EQ(node_lines(after), "y = Mul(x, k)\nh = HardSwish(y)\n");
  expect_same_outputs(g.m, after, 1e-6);
}

// PyTorch's order x * (Clip(3 + x, 0, 6) * (1/6)), operands swapped.
TEST(PassFuseHardSwish, TorchOrderBecomesHardSwish) {
  TestGraph g = hard_graph();
  g.scalar("k", 5.f).node("Mul", {"k", "x"}, {"y"});
  g.node("Add", {"three", "y"}, {"a"}).node("Clip", {"a", "zero", "six"}, {"c"});
  g.node("Mul", {"c", "sixth"}, {"s"}).node("Mul", {"s", "y"}, {"h"}).output("h");
  Model after = apply_pass(g.m, make_fuse_hard_swish());
  EXPECT_EQ(node_lines(after), "y = Mul(k, x)\nh = HardSwish(y)\n");
  expect_same_outputs(g.m, after, 1e-6);
}

// Clip(x + 3, 0, 6) / 6 alone is HardSigmoid(alpha 1/6, beta 1/2); the pre-opset-11 Clip with
// min/max attributes is read too.
TEST(PassFuseHardSwish, ClipOverSixBecomesHardSigmoid) {
  TestGraph g = hard_graph();
  g.scalar("k", 5.f).node("Mul", {"x", "k"}, {"y"});
  g.node("Add", {"y", "three"}, {"a"});
  g.node("Clip", {"a"}, {"c"}, {{"min", Attribute::of_float(0.f)}, {"max", Attribute::of_float(6.f)}});
  g.node("Div", {"c", "six"}, {"h"}).output("h");
  g.m.opsets[""] = 6;
  Model after = apply_pass(g.m, make_fuse_hard_swish());
  ASSERT_EQ(after.graph.nodes.size(), 2u);
  const Node& n = after.graph.nodes[1];
  EXPECT_EQ(n.op_type, "HardSigmoid");
  EXPECT_EQ(n.inputs, std::vector<std::string>{"y"});
  EXPECT_EQ(n.outputs, std::vector<std::string>{"h"});
  EXPECT_FLOAT_EQ(n.attr("alpha")->f, 1.f / 6.f);
  EXPECT_FLOAT_EQ(n.attr("beta")->f, 0.5f);
  expect_same_outputs(g.m, after, 1e-6);
}

TEST(PassFuseHardSwish, OtherBoundsOrSharedIntermediatesStay) {
  {  // Clip to 5: not the hard activations' clamp
    TestGraph g = hard_graph();
    g.scalar("five", 5.f).node("Add", {"x", "three"}, {"a"}).node("Clip", {"a", "zero", "five"}, {"c"});
    g.node("Mul", {"x", "c"}, {"m"}).node("Div", {"m", "six"}, {"h"}).output("h");
    EXPECT_EQ(apply_pass(g.m, make_fuse_hard_swish()).graph.nodes.size(), 4u);
  }
  {  // the product before the division is read elsewhere: it must stay computed
    TestGraph g = hard_graph();
    g.node("Add", {"x", "three"}, {"a"}).node("Clip", {"a", "zero", "six"}, {"c"});
    g.node("Mul", {"x", "c"}, {"m"}).node("Div", {"m", "six"}, {"h"}).output("h").output("m");
    EXPECT_EQ(apply_pass(g.m, make_fuse_hard_swish()).graph.nodes.size(), 4u);
  }
  {  // x + 2: not HardSwish
    TestGraph g = hard_graph();
    g.scalar("two", 2.f).node("Add", {"x", "two"}, {"a"}).node("Clip", {"a", "zero", "six"}, {"c"});
    g.node("Mul", {"x", "c"}, {"m"}).node("Div", {"m", "six"}, {"h"}).output("h");
    EXPECT_EQ(apply_pass(g.m, make_fuse_hard_swish()).graph.nodes.size(), 4u);
  }
}

// The whole cpu pipeline: Conv followed by the spelled-out HardSwish ends as one FusedConv.
TEST(PassFuseHardSwish, PipelinePutsItIntoFusedConv) {
  TestGraph g = hard_graph();
  g.input("img", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3}, -2.f, 2.f).weight("b", {4});
  g.m.graph.inputs.erase(g.m.graph.inputs.begin());  // x is not used here
  g.node("Conv", {"img", "w", "b"}, {"y"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  g.node("Add", {"y", "three"}, {"a"}).node("Clip", {"a", "zero", "six"}, {"c"});
  g.node("Mul", {"y", "c"}, {"m"}).node("Div", {"m", "six"}, {"h"}).output("h");
  Model m = g.m;
  OptimizeOptions o;
  o.level = "cpu";
  optimize_model(m, o);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "FusedConv");
  EXPECT_EQ(m.graph.nodes[0].domain, kMsDomain);
  EXPECT_EQ(m.graph.nodes[0].attr("activation")->s, "HardSwish");
  expect_same_outputs(g.m, m, 1e-5);
}

}  // namespace
}  // namespace ms::test
