// Golden before/after and numeric tests of the folding and elimination passes.
#include "passes_test_util.h"

namespace ms::test {
namespace {

using namespace ms::passes;

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as PyTorch exports x.view(x.size(0), -1).
TestGraph shape_chain(std::vector<Dim> dims) {
  TestGraph g;
  g.m.graph.inputs.push_back({"x", TypeInfo::tensor(DType::Float32, dims)});
  g.init("zero", Tensor::scalar<int64_t>(0)).ints("axes0", {0}).ints("minus1", {-1});
  g.node("Shape", {"x"}, {"s"})
      .node("Gather", {"s", "zero"}, {"g0"}, {{"axis", Attribute::of_int(0)}})
      .node("Unsqueeze", {"g0", "axes0"}, {"u0"})
      .node("Concat", {"u0", "minus1"}, {"shp"}, {{"axis", Attribute::of_int(0)}})
      .node("Reshape", {"x", "shp"}, {"y"})
      .output("y");
  return g;
}

TEST(PassFoldConstants, ShapeChainFoldsWhenShapesAreStatic) {
  TestGraph g = shape_chain({Dim::fixed(2), Dim::fixed(3), Dim::fixed(4)});
  Model after = apply_pass(g.m, make_fold_constants());
  EXPECT_EQ(node_lines(after), "y = Reshape(x, shp)\n");
  EXPECT_EQ(after.graph.initializers.at("shp").to_int64_vector(), (std::vector<int64_t>{2, -1}));
  expect_same_outputs(g.m, after, 0);
}

TEST(PassFoldConstants, DynamicDimKeepsTheChainUntilInputShapeFixesIt) {
  TestGraph g = shape_chain({Dim::symbol("N"), Dim::fixed(3), Dim::fixed(4)});
  EXPECT_EQ(apply_pass(g.m, make_fold_constants()).graph.nodes.size(), 5u);
  PassContext ctx;
  ctx.input_shapes["x"] = {5, 3, 4};  // what --inputShape x:5,3,4 does
  Model after = apply_pass(g.m, make_fold_constants(), ctx);
  EXPECT_EQ(node_lines(after), "y = Reshape(x, shp)\n");
  EXPECT_EQ(after.graph.initializers.at("shp").to_int64_vector(), (std::vector<int64_t>{5, -1}));
}

TEST(PassFoldConstants, RefusesTensorsAboveTheSizeLimit) {
  TestGraph g;
  g.input("x", {1000}).ints("n", {1000});
  g.node("ConstantOfShape", {"n"}, {"c"}).node("Add", {"x", "c"}, {"y"}).output("y");
  PassContext small;
  small.fold_limit_elements = 100;
  PassStats stats;
  EXPECT_EQ(apply_pass(g.m, make_fold_constants(), small, &stats).graph.nodes.size(), 2u);
  EXPECT_EQ(stats.rejections.size(), 1u);
  Model folded = apply_pass(g.m, make_fold_constants());
  EXPECT_EQ(node_lines(folded), "y = Add(x, c)\n");
  expect_same_outputs(g.m, folded, 0);
}

TEST(PassFoldConstants, InitializerThatIsAGraphInputIsNotFolded) {
  TestGraph g;
  g.input("x", {3}).input("w", {3}).weight("w", {3});  // w can be overridden by the caller
  g.node("Neg", {"w"}, {"nw"}).node("Add", {"x", "nw"}, {"y"}).output("y");
  EXPECT_EQ(apply_pass(g.m, make_fold_constants()).graph.nodes.size(), 2u);
}

TEST(PassEliminateNoops, ChainOfNoOpsDisappears) {
  TestGraph g;
  g.input("x", {2, 3}).init("one", Tensor::from_vector<float>({1.f}, {1})).init("zero", Tensor::from_vector<float>({0.f, 0.f, 0.f}, {3}));
  g.node("Identity", {"x"}, {"a"})
      .node("Dropout", {"a"}, {"b"})
      .node("Cast", {"b"}, {"c"}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Float32))}})
      .node("Mul", {"c", "one"}, {"d"})
      .node("Add", {"zero", "d"}, {"e"})
      .node("Transpose", {"e"}, {"f"}, {{"perm", ints_attr({0, 1})}})
      .node("Div", {"f", "one"}, {"h"})
      .node("Relu", {"h"}, {"y"})
      .output("y");
  Model after = apply_pass(g.m, make_eliminate_noops());
  EXPECT_EQ(node_lines(after), "y = Relu(x)\n");
  expect_same_outputs(g.m, after, 0);
}

TEST(PassEliminateNoops, GraphOutputKeepsItsName) {
  TestGraph g;
  g.input("x", {4});
  g.node("Relu", {"x"}, {"r"}).node("Identity", {"r"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_eliminate_noops());
  EXPECT_EQ(node_lines(after), "y = Relu(x)\n");
}

TEST(PassEliminateNoops, OpsThatChangeSomethingStay) {
  TestGraph g;
  g.input("x", {2, 3}).init("ones", Tensor::from_vector<float>(std::vector<float>(12, 1.f), {2, 2, 3}));
  g.init("neg", Tensor::from_vector<float>({-1.f}, {1}));
  g.node("Mul", {"x", "ones"}, {"a"})                                          // broadcasts to [2,2,3]
      .node("Cast", {"x"}, {"b"}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int32))}})
      .node("Transpose", {"x"}, {"c"}, {{"perm", ints_attr({1, 0})}})
      .node("Sub", {"neg", "x"}, {"d"})                                         // 0 - x is not x - 0
      .node("Identity", {"x"}, {"e"})                                           // graph input -> graph output
      .output("a").output("b").output("c").output("d").output("e");
  Model after = apply_pass(g.m, make_eliminate_noops());
  EXPECT_EQ(after.graph.nodes.size(), 5u);
}

TEST(PassCse, IdenticalNodesComputeOnce) {
  TestGraph g;
  g.input("x", {4});
  g.node("Relu", {"x"}, {"a"}).node("Relu", {"x"}, {"b"}).node("Add", {"a", "b"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_eliminate_common_subexpressions());
  EXPECT_EQ(node_lines(after), "a = Relu(x)\ny = Add(a, a)\n");
  expect_same_outputs(g.m, after, 0);
}

TEST(PassCse, RandomOpsAndDifferentAttributesStay) {
  TestGraph g;
  g.input("x", {4});
  g.node("RandomUniformLike", {"x"}, {"r1"}).node("RandomUniformLike", {"x"}, {"r2"});
  g.node("LeakyRelu", {"x"}, {"l1"}, {{"alpha", Attribute::of_float(0.1f)}});
  g.node("LeakyRelu", {"x"}, {"l2"}, {{"alpha", Attribute::of_float(0.2f)}});
  g.node("Sum", {"r1", "r2", "l1", "l2"}, {"y"}).output("y");
  EXPECT_EQ(apply_pass(g.m, make_eliminate_common_subexpressions()).graph.nodes.size(), 5u);
}

TEST(PassDedupeInitializers, IdenticalWeightsStoredOnce) {
  TestGraph g;
  g.input("x", {3});
  Tensor w = Tensor::from_vector<float>({1.f, 2.f, 3.f}, {3});
  g.init("w1", w.clone()).init("w2", w.clone()).init("w3", Tensor::from_vector<float>({1.f, 2.f, 4.f}, {3}));
  g.node("Mul", {"x", "w1"}, {"a"}).node("Mul", {"a", "w2"}, {"b"}).node("Mul", {"b", "w3"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_dedupe_initializers());
  EXPECT_EQ(node_lines(after), "a = Mul(x, w1)\nb = Mul(a, w1)\ny = Mul(b, w3)\n");
  EXPECT_EQ(after.graph.initializers.size(), 2u);
  expect_same_outputs(g.m, after, 0);
}

TEST(PassEliminateDeadCode, UnusedNodesAndWeightsGo) {
  TestGraph g;
  g.input("x", {3}).weight("w", {3}).weight("unused", {3});
  g.node("Mul", {"x", "w"}, {"dead"}).node("Relu", {"x"}, {"y"}).output("y");
  PassStats stats;
  std::vector<std::unique_ptr<Pass>> list;
  list.push_back(make_eliminate_dead_code());
  std::vector<PassStats> all;
  Model after = apply_passes(g.m, std::move(list), {}, &all);
  EXPECT_EQ(node_lines(after), "y = Relu(x)\n");
  EXPECT_TRUE(after.graph.initializers.empty());
  EXPECT_EQ(all[0].rewrites, 3u);  // one node, two initializers
}

TEST(PassMergeLayoutChains, TransposePairComposes) {
  TestGraph g;
  g.input("x", {2, 3, 4});
  g.node("Transpose", {"x"}, {"t1"}, {{"perm", ints_attr({0, 2, 1})}})
      .node("Transpose", {"t1"}, {"y"}, {{"perm", ints_attr({2, 0, 1})}})
      .output("y");
  Model after = apply_pass(g.m, make_merge_layout_chains());
  // r[i] = p[q[i]] = {p[2], p[0], p[1]} = {1, 0, 2}
  EXPECT_EQ(node_lines(after), "y = Transpose(x) {perm=[1,0,2]}\n");
  expect_same_outputs(g.m, after, 0);
}

TEST(PassMergeLayoutChains, ReshapeLikeChainBecomesOneReshape) {
  TestGraph g;
  g.input("x", {2, 3, 4}).ints("s", {6, 4}).ints("ax", {0});
  g.node("Reshape", {"x", "s"}, {"r"}).node("Unsqueeze", {"r", "ax"}, {"u"}).node("Relu", {"u"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_merge_layout_chains());
  EXPECT_EQ(node_lines(after), "u = Reshape(x, u_shape)\ny = Relu(u)\n");
  EXPECT_EQ(after.graph.initializers.at("u_shape").to_int64_vector(), (std::vector<int64_t>{1, 6, 4}));
  expect_same_outputs(g.m, after, 0);
}

TEST(PassMergeLayoutChains, SlicesOnDisjointAxesMerge) {
  TestGraph g;
  g.input("x", {4, 6}).ints("s0", {1}).ints("e0", {3}).ints("a0", {0}).ints("s1", {2}).ints("e1", {5}).ints("a1", {1});
  g.node("Slice", {"x", "s0", "e0", "a0"}, {"t"}).node("Slice", {"t", "s1", "e1", "a1"}, {"y"}).output("y");
  Model after = apply_pass(g.m, make_merge_layout_chains());
  EXPECT_EQ(node_lines(after), "y = Slice(x, y_starts, y_ends, y_axes, y_steps)\n");
  expect_same_outputs(g.m, after, 0);
}

TEST(PassMergeLayoutChains, FirstOpWithAnotherReaderStays) {
  TestGraph g;
  g.input("x", {2, 3, 4});
  g.node("Transpose", {"x"}, {"t1"}, {{"perm", ints_attr({0, 2, 1})}})
      .node("Transpose", {"t1"}, {"y"}, {{"perm", ints_attr({0, 2, 1})}})
      .output("y").output("t1");
  Model after = apply_pass(g.m, make_merge_layout_chains());
  EXPECT_EQ(node_lines(after), "t1 = Transpose(x) {perm=[0,2,1]}\ny = Transpose(x) {perm=[0,1,2]}\n");
  expect_same_outputs(g.m, after, 0);
}

}  // namespace
}  // namespace ms::test
