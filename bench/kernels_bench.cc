// Micro-benchmarks of the fast kernels, each as a one-node model run through a Session on one
// thread (so the figures include the executor's per-node cost, as real runs do), at tile-edge
// sizes next to aligned ones. Compute-bound kernels report GFLOP/s (per CPU second).
#include <benchmark/benchmark.h>

#include <random>

#include "ops/ms_domain.h"
#include "runtime/session.h"

namespace {

using namespace ms;

Tensor random_tensor(const Shape& s, uint32_t seed) {
  Tensor t(DType::Float32, s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

struct OneNode {
  std::shared_ptr<Model> model = std::make_shared<Model>();
  std::vector<Value> feeds;
  OneNode(const std::string& op, const std::string& domain) {
    model->opsets = {{"", 17}, {kMsDomain, kMsDomainVersion}};
    Node n;
    n.op_type = op;
    n.domain = domain;
    n.name = op;
    n.outputs = {"y"};
    model->graph.nodes.push_back(n);
    model->graph.outputs.push_back({"y", TypeInfo::tensor_unknown_shape(DType::Float32)});
  }
  Node& node() { return model->graph.nodes[0]; }
  OneNode& input(const std::string& name, const Shape& s) {
    node().inputs.push_back(name);
    model->graph.inputs.push_back({name, TypeInfo::tensor(DType::Float32, s)});
    feeds.emplace_back(random_tensor(s, static_cast<uint32_t>(feeds.size() + 1)));
    return *this;
  }
  OneNode& weight(const std::string& name, const Shape& s) {
    node().inputs.push_back(name);
    model->graph.initializers[name] = random_tensor(s, 99);
    return *this;
  }
  OneNode& attr(const std::string& k, Attribute a) {
    node().attrs[k] = std::move(a);
    return *this;
  }
};

void run(benchmark::State& state, OneNode& n, double flops) {
  SessionOptions o;
  o.num_threads = 1;
  Session s(n.model, o);
  s.run(n.feeds);  // plans and prepacks
  for (auto _ : state) benchmark::DoNotOptimize(s.run(n.feeds));
  if (flops > 0)
    state.counters["GFLOP/s"] = benchmark::Counter(flops * static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

// Conv: args = channels in, channels out, spatial size, kernel, group.
void BM_Conv(benchmark::State& state) {
  const int64_t c = state.range(0), m = state.range(1), hw = state.range(2), k = state.range(3), g = state.range(4);
  OneNode n("Conv", "");
  n.input("x", {1, c, hw, hw}).weight("w", {m, c / g, k, k}).weight("b", {m});
  n.attr("pads", Attribute::of_ints({k / 2, k / 2, k / 2, k / 2})).attr("group", Attribute::of_int(g));
  run(state, n, 2.0 * m * hw * hw * (c / g) * k * k);
}
BENCHMARK(BM_Conv)
    ->Args({64, 64, 56, 3, 1})
    ->Args({256, 64, 56, 1, 1})
    ->Args({63, 65, 55, 3, 1})  // tile edges
    ->Args({144, 144, 56, 3, 144})  // depthwise
    ->Args({3, 64, 224, 7, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_MatMul(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  OneNode n("MatMul", "");
  n.input("a", {M, K}).weight("b", {K, N});
  run(state, n, 2.0 * M * K * N);
}
BENCHMARK(BM_MatMul)->Args({128, 256, 1024})->Args({127, 255, 1023})->Args({1, 2048, 1000})->Unit(benchmark::kMicrosecond);

void BM_MaxPool(benchmark::State& state) {
  OneNode n("MaxPool", "");
  n.input("x", {1, state.range(0), 112, 112})
      .attr("kernel_shape", Attribute::of_ints({3, 3}))
      .attr("strides", Attribute::of_ints({2, 2}))
      .attr("pads", Attribute::of_ints({1, 1, 1, 1}));
  run(state, n, 0);
}
BENCHMARK(BM_MaxPool)->Arg(64)->Arg(63)->Unit(benchmark::kMicrosecond);

void BM_AddPerChannel(benchmark::State& state) {
  OneNode n("Add", "");
  n.input("a", {1, state.range(0), 56, 56}).weight("b", {1, state.range(0), 1, 1});
  run(state, n, 0);
}
BENCHMARK(BM_AddPerChannel)->Arg(64)->Arg(63)->Unit(benchmark::kMicrosecond);

void BM_Unary(benchmark::State& state, const char* op) {
  OneNode n(op, "");
  n.input("x", {1, 64, 56, state.range(0)});
  run(state, n, 0);
}
BENCHMARK_CAPTURE(BM_Unary, Sigmoid, "Sigmoid")->Arg(56)->Arg(55)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Unary, HardSwish, "HardSwish")->Arg(56)->Arg(55)->Unit(benchmark::kMicrosecond);

void BM_Softmax(benchmark::State& state) {
  OneNode n("Softmax", "");
  n.input("x", {4, 128, state.range(0)});
  run(state, n, 0);
}
BENCHMARK(BM_Softmax)->Arg(128)->Arg(127)->Unit(benchmark::kMicrosecond);

void BM_LayerNorm(benchmark::State& state) {
  OneNode n("LayerNormalization", "");
  n.input("x", {128, state.range(0)}).weight("g", {state.range(0)}).weight("b", {state.range(0)});
  run(state, n, 0);
}
BENCHMARK(BM_LayerNorm)->Arg(256)->Arg(255)->Unit(benchmark::kMicrosecond);

void BM_Attention(benchmark::State& state) {
  const int64_t S = state.range(0);
  OneNode n("MultiHeadAttention", kMsDomain);
  n.input("q", {1, S, 256}).input("k", {1, S, 256}).input("v", {1, S, 256}).attr("num_heads", Attribute::of_int(4));
  run(state, n, 4.0 * S * S * 256);
}
BENCHMARK(BM_Attention)->Arg(128)->Arg(127)->Unit(benchmark::kMicrosecond);

// Data movement (Transpose, Concat, Slice, Gather): the last arg 1 runs the reference kernel
// instead, so each pair of lines is the fast kernel's speedup over the reference.
void run_or_reference(benchmark::State& state, OneNode& n, bool reference) {
  SessionOptions o;
  o.num_threads = 1;
  o.reference_kernels = reference;
  Session s(n.model, o);
  s.run(n.feeds);
  for (auto _ : state) benchmark::DoNotOptimize(s.run(n.feeds));
}

OneNode& int64_weight(OneNode& n, const std::string& name, std::vector<int64_t> v) {
  n.node().inputs.push_back(name);
  n.model->graph.initializers[name] = Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())});
  return n;
}

void BM_TransposeHeads(benchmark::State& state) {  // attention: [1,S,12,64] -> [1,12,S,64]
  OneNode n("Transpose", "");
  n.input("x", {1, 384, 12, 64}).attr("perm", Attribute::of_ints({0, 2, 1, 3}));
  run_or_reference(state, n, state.range(0));
}
BENCHMARK(BM_TransposeHeads)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_TransposeNchwToNhwc(benchmark::State& state) {
  OneNode n("Transpose", "");
  n.input("x", {1, 64, 56, 55}).attr("perm", Attribute::of_ints({0, 2, 3, 1}));
  run_or_reference(state, n, state.range(0));
}
BENCHMARK(BM_TransposeNchwToNhwc)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_Concat(benchmark::State& state) {  // channels of two feature maps
  OneNode n("Concat", "");
  n.input("a", {1, 64, 56, 56}).input("b", {1, 32, 56, 56}).attr("axis", Attribute::of_int(1));
  run_or_reference(state, n, state.range(0));
}
BENCHMARK(BM_Concat)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_SliceStep2(benchmark::State& state) {  // a space-to-depth style phase
  OneNode n("Slice", "");
  n.input("x", {1, 64, 112, 112});
  int64_weight(n, "s", {0, 1});
  int64_weight(n, "e", {112, 112});
  int64_weight(n, "a", {2, 3});
  int64_weight(n, "st", {2, 2});
  run_or_reference(state, n, state.range(0));
}
BENCHMARK(BM_SliceStep2)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_GatherEmbedding(benchmark::State& state) {  // token ids into a 30522 x 768 table
  OneNode n("Gather", "");
  n.weight("table", {30522, 768});
  std::vector<int64_t> ids(384);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i * 7919 % 30522);
  n.node().inputs.push_back("ids");
  n.model->graph.inputs.push_back({"ids", TypeInfo::tensor(DType::Int64, {1, 384})});
  n.feeds.emplace_back(Tensor::from_vector<int64_t>(ids, {1, 384}));
  run_or_reference(state, n, state.range(0));
}
BENCHMARK(BM_GatherEmbedding)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Recurrent ops, sequence 50, batch 1, input size = hidden size; args = hidden size, 1 = reference
// kernel instead, threads. Each pair of lines is the fast kernel's speedup over the reference.
void run_recurrent(benchmark::State& state, const std::string& op, int64_t gates) {
  const int64_t h = state.range(0), threads = state.range(2);
  OneNode n(op, "");
  n.input("x", {50, 1, h}).weight("w", {1, gates * h, h}).weight("r", {1, gates * h, h}).weight("b", {1, 2 * gates * h});
  n.attr("hidden_size", Attribute::of_int(h));
  SessionOptions o;
  o.num_threads = static_cast<int>(threads);
  o.reference_kernels = state.range(1);
  Session s(n.model, o);
  s.run(n.feeds);
  for (auto _ : state) benchmark::DoNotOptimize(s.run(n.feeds));
  // Multiply-adds of the input projection and the recurrence: 2 * gates * h * (h + h) * 50 FLOPs.
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * gates * h * h * 50 * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}
void BM_Lstm(benchmark::State& state) { run_recurrent(state, "LSTM", 4); }
void BM_Gru(benchmark::State& state) { run_recurrent(state, "GRU", 3); }
BENCHMARK(BM_Lstm)
    ->ArgsProduct({{64, 128, 256}, {0, 1}, {1}})
    ->Args({256, 0, 2})
    ->Args({512, 0, 1})
    ->Args({512, 0, 2})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Gru)->ArgsProduct({{64, 128, 256}, {0, 1}, {1}})->Args({256, 0, 2})->Unit(benchmark::kMicrosecond);

}  // namespace
