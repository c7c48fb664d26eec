// One Session shared by several threads, as `ms benchmark --concurrency` and a server use it: every
// concurrent run must give what the reference kernels give, whether it got the activation arena
// or ran on heap memory, and whatever other runs were doing to the kernels' per-shape plans.
#include <gtest/gtest.h>

#include <thread>

#include "fast_kernels_util.h"

namespace ms::test {
namespace {

// Conv (blocked layouts, prepacked weights), masked attention, MatMul, Resize and Softmax: the
// kernels with per-shape plans and shared scratch.
ModelSpec mixed_model() {
  ModelSpec s;
  Node conv = make_node("Conv", {"x", "w"}, {"c"});
  conv.attrs["pads"] = ints({1, 1, 1, 1});
  Node relu = make_node("Relu", {"c"}, {"r"});
  Node resize = make_node("Resize", {"r", "", "scales"}, {"up"});
  resize.attrs["mode"] = Attribute::of_string("linear");
  Node flat = make_node("Reshape", {"up", "flat_shape"}, {"f"});
  Node attn = make_node("MultiHeadAttention", {"f", "f", "f", "mask"}, {"a"});
  attn.domain = kMsDomain;
  attn.attrs["num_heads"] = Attribute::of_int(2);
  Node mm = make_node("MatMul", {"a", "proj"}, {"m"});
  Node soft = make_node("Softmax", {"m"}, {"y"});
  s.nodes = {conv, relu, resize, flat, attn, mm, soft};
  s.weights["w"] = random_tensor({8, 3, 3, 3}, 81);
  s.weights["scales"] = Tensor::from_vector<float>({1, 1, 2, 2}, {4});
  s.weights["flat_shape"] = Tensor::from_vector<int64_t>({1, 8, 256}, {3});
  s.weights["proj"] = random_tensor({256, 16}, 82);
  Tensor mask = random_tensor({1, 1, 1, 8}, 83);
  mask.data<float>()[7] = -10000.f;
  s.inputs = {{"x", random_tensor({1, 3, 8, 8}, 84)}, {"mask", mask}};
  s.outputs = {"y"};
  return s;
}

TEST(SessionConcurrency, SharedSessionRunsAgreeWithTheReference) {
  const ModelSpec s = mixed_model();
  auto model = build_model(s);
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  SessionOptions ref_opts;
  ref_opts.reference_kernels = true;
  const Tensor want = Session(model, ref_opts).run(feeds)[0].tensor;

  SessionOptions fast_opts;
  fast_opts.num_threads = 1;
  const Session shared(model, fast_opts);
  constexpr int kThreads = 4, kRuns = 25;
  std::vector<std::vector<Tensor>> got(kThreads);
  std::vector<std::thread> clients;
  for (int c = 0; c < kThreads; ++c)
    clients.emplace_back([&, c] {
      for (int i = 0; i < kRuns; ++i) got[c].push_back(shared.run(feeds)[0].tensor);
    });
  for (auto& t : clients) t.join();
  for (int c = 0; c < kThreads; ++c) {
    ASSERT_EQ(got[c].size(), static_cast<size_t>(kRuns));
    for (int i = 0; i < kRuns; ++i) expect_close(got[c][i], want, 1e-4, 1e-5, "client " + std::to_string(c) + " run " + std::to_string(i));
  }
  // The model really ran on fast kernels (a reference fallback would make the test vacuous).
  RunProfile prof;
  shared.run(feeds, &prof);
  for (const auto& r : prof.nodes)
    if (shared.model().graph.nodes[r.node_index].op_type != "Reshape") EXPECT_NE(r.kernel, kReferenceKernel) << r.node_index;
}

}  // namespace
}  // namespace ms::test
