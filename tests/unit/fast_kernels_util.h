// Shared by the fast_kernels_*_test.cc files: builds small models, runs them once with the fast
// kernels and once with the reference kernels (the oracle), and checks that the fast kernel really
// ran (a silent fallback to the reference would make the comparison vacuous).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/ms_domain.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms::test {

inline Tensor random_tensor(const Shape& shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  Tensor t(DType::Float32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

inline Attribute ints(std::vector<int64_t> v) { return Attribute::of_ints(std::move(v)); }

// A model of `nodes`, graph inputs `inputs` (fed in order), constant `weights`, and `outputs`.
struct ModelSpec {
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::map<std::string, Tensor> weights;
  std::vector<std::string> outputs;
  int opset = 17;
};

inline std::shared_ptr<const Model> build_model(const ModelSpec& s) {
  auto m = std::make_shared<Model>();
  m->opsets = {{"", s.opset}, {kMsDomain, kMsDomainVersion}};
  for (const auto& [name, t] : s.inputs) m->graph.inputs.push_back(tensor_info(name, t.dtype(), t.shape()));
  m->graph.initializers = s.weights;
  m->graph.nodes = s.nodes;
  for (const auto& o : s.outputs) m->graph.outputs.push_back({o, TypeInfo::tensor_unknown_shape(DType::Float32)});
  return m;
}

// The shape of output "y" of node `n` alone on `s`'s first input, from the reference kernels: for
// inputs (such as a residual) that must have the node's output shape.
inline Shape reference_output_shape(const ModelSpec& s, const Node& n) {
  ModelSpec probe = s;
  probe.nodes = {n};
  probe.outputs = {"y"};
  SessionOptions o;
  o.reference_kernels = true;
  std::vector<Value> feeds{s.inputs[0].second};
  return Session(build_model(probe), o).run(feeds)[0].tensor.shape();
}

inline void expect_close(const Tensor& got, const Tensor& want, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto g = got.to_double_vector(), w = want.to_double_vector();
  size_t bad = 0;
  double worst = 0;
  int64_t worst_at = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const double err = std::abs(g[i] - w[i]);
    if (!(err <= atol + rtol * std::abs(w[i]))) {
      ++bad;
      if (!(err <= worst)) worst = err, worst_at = static_cast<int64_t>(i);
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << g.size() << " elements off, worst at " << worst_at << " (got "
                     << (worst_at >= 0 ? g[worst_at] : 0) << ", want " << (worst_at >= 0 ? w[worst_at] : 0) << ")";
}

// Runs the model on both paths and compares every output. Every node whose op type is in
// `must_be_fast` has to have run on a fast kernel.
inline void check_against_reference(const ModelSpec& s, const std::set<std::string>& must_be_fast, double rtol = 1e-4,
                                    double atol = 1e-5, int threads = 2) {
  auto model = build_model(s);
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  SessionOptions ref_opts;
  ref_opts.reference_kernels = true;
  SessionOptions fast_opts;
  fast_opts.num_threads = threads;
  const auto want = Session(model, ref_opts).run(feeds);
  Session fast(model, fast_opts);
  RunProfile prof;
  const auto got = fast.run(feeds, &prof);
  for (const auto& r : prof.nodes) {
    const Node& n = fast.model().graph.nodes[r.node_index];  // the graph the session ran
    if (must_be_fast.count(n.op_type)) {
      EXPECT_NE(r.kernel, "reference") << n.label() << " did not run a fast kernel";
    }
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i].tensor, want[i].tensor, rtol, atol, s.outputs[i]);
}

}  // namespace ms::test
