// The session's activation arena: liveness placement with in-place and view sharing, re-planning
// for new input shapes, outputs that survive later runs, and fast == reference with it on.
// Expected values are computed here from the ops' definitions, not captured from a run.
#include <gtest/gtest.h>

#include <cmath>

#include "fast_kernels_util.h"
#include "runtime/memory/liveness_plan.h"

namespace ms::test {
namespace {

float relu(float v) { return v > 0 ? v : 0; }
float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

Tensor map(const Tensor& x, float (*f)(float)) {
  Tensor y(DType::Float32, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) y.data<float>()[i] = f(x.data<float>()[i]);
  return y;
}

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor y(DType::Float32, a.shape());
  for (int64_t i = 0; i < a.numel(); ++i) y.data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
  return y;
}

// --- the planner

// x -> Relu -> a -> Sigmoid -> b -> Tanh -> c (graph output); a, b 1 KiB each.
Graph chain() {
  Graph g;
  g.inputs.push_back(tensor_info("x", DType::Float32, {256}));
  g.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Sigmoid", {"a"}, {"b"}, "n1"),
             make_node("Tanh", {"b"}, {"c"}, "n2")};
  g.outputs.push_back(tensor_info("c", DType::Float32, {256}));
  return g;
}

std::optional<size_t> kib(const std::string&) { return 1024; }

TEST(LivenessPlan, InPlaceSharesTheInputsBytesWhenTheInputDies) {
  const Graph g = chain();
  MemoryPlanOptions opts;
  opts.exclude = [](const std::string& n) { return n == "c"; };
  // a and b overlap at node 1: apart they need two slots.
  EXPECT_EQ(plan_activation_memory(g, kib, opts).arena_bytes, 2048u);
  opts.may_overwrite_input = [](size_t, size_t) { return true; };
  const MemoryPlan p = plan_activation_memory(g, kib, opts);
  EXPECT_EQ(p.arena_bytes, 1024u);
  EXPECT_EQ(p.shares_with.at("b"), "a");
  EXPECT_EQ(p.placements.at("a").offset, p.placements.at("b").offset);
}

TEST(LivenessPlan, NoInPlaceOverAnInputReadLater) {
  Graph g = chain();
  g.nodes.push_back(make_node("Add", {"a", "c"}, {"d"}, "n3"));  // a is read again after node 1
  g.outputs = {tensor_info("d", DType::Float32, {256})};
  MemoryPlanOptions opts;
  opts.may_overwrite_input = [](size_t, size_t) { return true; };
  const MemoryPlan p = plan_activation_memory(g, kib, opts);
  EXPECT_FALSE(p.shares_with.count("b"));
  EXPECT_NE(p.placements.at("a").offset, p.placements.at("b").offset);
  // c may take b's bytes (b dies at node 2), never a's (a lives to node 3).
  EXPECT_EQ(p.shares_with.at("c"), "b");
  EXPECT_NE(p.placements.at("c").offset, p.placements.at("a").offset);
}

TEST(LivenessPlan, AViewLivesAsLongAsItsSource) {
  // x -> Relu -> a -> Reshape (view) -> r ; x -> Sigmoid -> s ; Add(r, s) -> out
  Graph g;
  g.inputs.push_back(tensor_info("x", DType::Float32, {256}));
  g.initializers["shape"] = Tensor::from_vector<int64_t>({16, 16}, {2});
  g.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Reshape", {"a", "shape"}, {"r"}, "n1"),
             make_node("Sigmoid", {"x"}, {"s"}, "n2"), make_node("Add", {"r", "s"}, {"out"}, "n3")};
  g.outputs.push_back(tensor_info("out", DType::Float32, {16, 16}));
  MemoryPlanOptions opts;
  opts.exclude = [](const std::string& n) { return n == "out"; };
  opts.views_input = [](size_t node, size_t input) { return node == 1 && input == 0; };
  const MemoryPlan p = plan_activation_memory(g, kib, opts);
  EXPECT_EQ(p.shares_with.at("r"), "a");
  EXPECT_EQ(p.placements.at("r").offset, p.placements.at("a").offset);
  // a's bytes stay busy while r lives, so s cannot take them.
  EXPECT_NE(p.placements.at("s").offset, p.placements.at("a").offset);
  EXPECT_EQ(p.arena_bytes, 2048u);
}

// --- the session

ModelSpec elementwise_chain(const Shape& shape) {
  ModelSpec s;
  s.inputs = {{"x", random_tensor(shape, 1)}};
  s.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Sigmoid", {"a"}, {"b"}, "n1"),
             make_node("Neg", {"b"}, {"c"}, "n2"), make_node("Neg", {"c"}, {"y"}, "n3")};
  s.outputs = {"y"};
  return s;
}

TEST(ActivationArena, AnInPlaceChainNeedsOneSlot) {
  const ModelSpec s = elementwise_chain({64, 100});
  Session fast(build_model(s));
  RunProfile prof;
  const auto out = fast.run({Value(s.inputs[0].second)}, &prof);
  // a, b, c each 25600 bytes; in place they all share one slot.
  EXPECT_EQ(prof.arena_bytes, 64u * 100 * 4);
  for (const auto& r : prof.nodes) EXPECT_NE(r.kernel, "reference") << r.node_index;
  expect_close(out[0].tensor, map(s.inputs[0].second, [](float v) { return sigmoid(relu(v)); }), 1e-5, 1e-6, "y");
}

TEST(ActivationArena, InPlaceDoesNotClobberAValueReadLater) {
  // a feeds Sigmoid and, later, Add: Sigmoid must write beside a, not over it.
  ModelSpec s;
  s.inputs = {{"x", random_tensor({33, 47}, 2)}};
  s.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Sigmoid", {"a"}, {"b"}, "n1"),
             make_node("Neg", {"b"}, {"c"}, "n2"), make_node("Add", {"a", "c"}, {"d"}, "n3"),
             make_node("Neg", {"d"}, {"y"}, "n4")};
  s.outputs = {"y"};
  Session fast(build_model(s));
  const Tensor& x = s.inputs[0].second;
  const Tensor a = map(x, relu);
  Tensor want = add(a, map(map(a, sigmoid), [](float v) { return -v; }));
  want = map(want, [](float v) { return -v; });
  for (int run = 0; run < 3; ++run) expect_close(fast.run({Value(x)})[0].tensor, want, 1e-5, 1e-6, "y");
}

TEST(ActivationArena, RePlansWhenInputShapesChange) {
  ModelSpec s = elementwise_chain({8, 16});
  auto m = std::make_shared<Model>(*build_model(s));
  m->graph.inputs[0].type = TypeInfo::tensor(DType::Float32, {Dim::symbol("N"), Dim::symbol("C")});
  Session fast(m);
  for (const Shape& shape : {Shape{8, 16}, Shape{32, 50}, Shape{8, 16}, Shape{3, 5}}) {
    const Tensor x = random_tensor(shape, static_cast<uint32_t>(shape[0] * 100 + shape[1]));
    RunProfile prof;
    const auto out = fast.run({Value(x)}, &prof);
    EXPECT_EQ(prof.arena_bytes, static_cast<size_t>(shape_numel(shape)) * 4) << shape_str(shape);
    expect_close(out[0].tensor, map(x, [](float v) { return sigmoid(relu(v)); }), 1e-5, 1e-6, shape_str(shape));
  }
}

TEST(ActivationArena, OutputsStayValidAfterLaterRuns) {
  // y1 comes straight from an arena value through a viewing Reshape; y2 from an elementwise kernel.
  ModelSpec s;
  s.inputs = {{"x", random_tensor({16, 16}, 3)}};
  s.weights["shape"] = Tensor::from_vector<int64_t>({256}, {1});
  s.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Sigmoid", {"a"}, {"b"}, "n1"),
             make_node("Reshape", {"b", "shape"}, {"y1"}, "n2"), make_node("Neg", {"b"}, {"y2"}, "n3")};
  s.outputs = {"y1", "y2"};
  Session fast(build_model(s));
  const Tensor x1 = random_tensor({16, 16}, 4), x2 = random_tensor({16, 16}, 5);
  const auto first = fast.run({Value(x1)});
  for (int run = 0; run < 3; ++run) fast.run({Value(x2)});
  const Tensor want_b = map(x1, [](float v) { return sigmoid(relu(v)); });
  expect_close(first[0].tensor, want_b.reshaped({256}), 1e-5, 1e-6, "y1 of the first run");
  expect_close(first[1].tensor, map(want_b, [](float v) { return -v; }), 1e-5, 1e-6, "y2 of the first run");
}

TEST(ActivationArena, AViewOfAnArenaValueKeepsItsBytes) {
  // r views a (reference Reshape); s is computed while r is alive and must not land on a's bytes.
  // The first run copies the view; later runs plan a and r as one block.
  ModelSpec s;
  s.inputs = {{"x", random_tensor({16, 16}, 6)}};
  s.weights["shape"] = Tensor::from_vector<int64_t>({256}, {1});
  s.nodes = {make_node("Relu", {"x"}, {"a"}, "n0"), make_node("Reshape", {"a", "shape"}, {"r"}, "n1"),
             make_node("Sigmoid", {"x"}, {"s0"}, "n2"), make_node("Reshape", {"s0", "shape"}, {"s"}, "n3"),
             make_node("Add", {"r", "s"}, {"y"}, "n4")};
  s.outputs = {"y"};
  Session fast(build_model(s));
  const Tensor& x = s.inputs[0].second;
  const Tensor want = add(map(x, relu), map(x, sigmoid)).reshaped({256});
  size_t first_arena = 0;
  for (int run = 0; run < 3; ++run) {
    RunProfile prof;
    expect_close(fast.run({Value(x)}, &prof)[0].tensor, want, 1e-6, 1e-7, "y, run " + std::to_string(run));
    if (run == 0) first_arena = prof.arena_bytes;
    else EXPECT_LT(prof.arena_bytes, first_arena) << "views share their source's bytes once learned";
  }
}

TEST(ActivationArena, FastWithArenaMatchesReferenceAndHeap) {
  // Conv -> Conv -> MaxPool (blocked layouts between them), Relu, residual Add, pooling, MatMul.
  ModelSpec s;
  s.inputs = {{"x", random_tensor({2, 8, 13, 11}, 7)}};
  s.weights["w1"] = random_tensor({16, 8, 3, 3}, 8, -0.3f, 0.3f);
  s.weights["w2"] = random_tensor({16, 16, 3, 3}, 9, -0.3f, 0.3f);
  s.weights["fc"] = random_tensor({16, 5}, 10);
  Node c1 = make_node("Conv", {"x", "w1"}, {"c1"}, "c1");
  c1.attrs["pads"] = ints({1, 1, 1, 1});
  Node c2 = make_node("Conv", {"c1", "w2"}, {"c2"}, "c2");
  c2.attrs["pads"] = ints({1, 1, 1, 1});
  Node pool = make_node("MaxPool", {"c2"}, {"p"}, "pool");
  pool.attrs["kernel_shape"] = ints({2, 2});
  pool.attrs["strides"] = ints({2, 2});
  s.nodes = {c1,
             c2,
             pool,
             make_node("Relu", {"p"}, {"r"}, "relu"),
             make_node("Add", {"r", "p"}, {"sum"}, "add"),
             make_node("Sigmoid", {"sum"}, {"act"}, "act"),
             make_node("GlobalAveragePool", {"act"}, {"gap"}, "gap"),
             make_node("Flatten", {"gap"}, {"flat"}, "flat"),
             make_node("MatMul", {"flat", "fc"}, {"y"}, "fc")};
  s.outputs = {"y"};
  check_against_reference(s, {"Conv", "MaxPool", "MatMul", "Add", "Relu", "Sigmoid"});
  auto model = build_model(s);
  SessionOptions heap_opts;
  heap_opts.activation_arena = false;
  const Value x(s.inputs[0].second);
  const auto heap = Session(model, heap_opts).run({x});
  Session arena(model);
  for (int run = 0; run < 2; ++run) {
    RunProfile prof;
    const auto got = arena.run({x}, &prof);
    EXPECT_GT(prof.arena_bytes, 0u);
    expect_close(got[0].tensor, heap[0].tensor, 0, 0, "arena vs heap");  // same kernels: bit-identical
  }
}

TEST(ActivationArena, InPlaceBetweenConvolutionsInTheBlockedLayout) {
  // Scale and residual Add between convolutions run on the channel-blocked layout; the Mul may
  // overwrite c2 in place, the Add must not overwrite m (read again by the last Conv's residual).
  for (int64_t C : {12, 16}) {
    ModelSpec s;
    s.inputs = {{"x", random_tensor({1, 8, 9, 10}, 11)}};
    s.weights["w1"] = random_tensor({C, 8, 3, 3}, 12, -0.3f, 0.3f);
    s.weights["w2"] = random_tensor({C, C, 3, 3}, 13, -0.3f, 0.3f);
    s.weights["w3"] = random_tensor({C, C, 1, 1}, 14, -0.3f, 0.3f);
    s.weights["w4"] = random_tensor({4, C, 1, 1}, 15, -0.3f, 0.3f);
    s.weights["scale"] = random_tensor({1, C, 1, 1}, 16, 0.5f, 1.5f);
    Node c1 = make_node("Conv", {"x", "w1"}, {"c1"}, "c1");
    c1.attrs["pads"] = ints({1, 1, 1, 1});
    Node c2 = make_node("Conv", {"c1", "w2"}, {"c2"}, "c2");
    c2.attrs["pads"] = ints({1, 1, 1, 1});
    s.nodes = {c1,
               c2,
               make_node("Mul", {"c2", "scale"}, {"m"}, "scale"),
               make_node("Conv", {"m", "w3"}, {"c3"}, "c3"),
               make_node("Add", {"c3", "m"}, {"sum"}, "residual"),
               make_node("Conv", {"sum", "w4"}, {"y"}, "c4")};
    s.outputs = {"y"};
    check_against_reference(s, {"Conv", "Mul", "Add"});
    Session fast(build_model(s));
    for (int run = 0; run < 2; ++run) {
      SessionOptions ref;
      ref.reference_kernels = true;
      const auto want = Session(build_model(s), ref).run({Value(s.inputs[0].second)});
      expect_close(fast.run({Value(s.inputs[0].second)})[0].tensor, want[0].tensor, 1e-4, 1e-5,
                   "C=" + std::to_string(C) + " run " + std::to_string(run));
    }
  }
}

}  // namespace
}  // namespace ms::test
