// Shared by the pass tests (passes_*_test.cc): a small graph builder, running passes, and the
// numeric check that an optimized model computes what the original does (the original, run with
// the reference kernels, is the independent oracle).
#pragma once
#include <gtest/gtest.h>

#include <random>

#include "core/printer.h"
#include "passes/equivalence.h"
#include "passes/pass_list.h"
#include "passes/pipelines.h"

namespace ms::test {

class TestGraph {
 public:
  explicit TestGraph(const std::string& name = "g") {
    m.opsets[""] = 17;
    m.graph.name = name;
  }
  TestGraph& input(const std::string& name, const Shape& shape, DType dt = DType::Float32) {
    m.graph.inputs.push_back({name, TypeInfo::tensor(dt, shape)});
    return *this;
  }
  TestGraph& output(const std::string& name) {
    m.graph.outputs.push_back({name, {}});
    return *this;
  }
  // Seeded uniform [lo, hi) float32 initializer.
  TestGraph& weight(const std::string& name, const Shape& shape, float lo = -1.f, float hi = 1.f) {
    Tensor t(DType::Float32, shape);
    std::uniform_real_distribution<float> u(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng_);
    m.graph.initializers[name] = t;
    return *this;
  }
  TestGraph& init(const std::string& name, Tensor t) {
    m.graph.initializers[name] = std::move(t);
    return *this;
  }
  TestGraph& ints(const std::string& name, const std::vector<int64_t>& v) {
    return init(name, Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}));
  }
  TestGraph& scalar(const std::string& name, float v) { return init(name, Tensor::scalar<float>(v)); }
  TestGraph& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                  std::map<std::string, Attribute> attrs = {}, const std::string& domain = "") {
    Node n;
    n.op_type = op;
    n.domain = domain;
    n.name = "n_" + out.at(0);
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attrs = std::move(attrs);
    m.graph.nodes.push_back(std::move(n));
    return *this;
  }
  Model m;

 private:
  std::mt19937 rng_{7};
};

inline Attribute ints_attr(std::vector<int64_t> v) { return Attribute::of_ints(std::move(v)); }

// Runs `passes` in order (each through the pass system's Rewriter), as the optimizer would.
inline Model apply_passes(Model m, std::vector<std::unique_ptr<passes::Pass>> list, passes::PassContext ctx = {},
                          std::vector<passes::PassStats>* stats = nullptr) {
  GraphInferOptions io;
  io.input_shapes = ctx.input_shapes;
  passes::Rewriter rw(m, io);
  for (auto& p : list) {
    passes::PassStats s;
    p->run(rw, ctx, s);
    if (stats) stats->push_back(s);
  }
  return m;
}

// One pass followed by dead-code elimination (so the golden text shows no stale weights).
inline Model apply_pass(Model m, std::unique_ptr<passes::Pass> p, passes::PassContext ctx = {}, passes::PassStats* stats = nullptr) {
  std::vector<std::unique_ptr<passes::Pass>> list;
  list.push_back(std::move(p));
  list.push_back(passes::make_eliminate_dead_code());
  std::vector<passes::PassStats> all;
  Model r = apply_passes(std::move(m), std::move(list), ctx, &all);
  if (stats) *stats = all[0];
  return r;
}

// The node lines of the text form (initializers and header left out).
inline std::string node_lines(const Model& m) {
  std::string text = graph_to_text(m.graph), r;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    if (line.rfind("  init ", 0) != 0 && line.rfind("graph ", 0) != 0) r += line.substr(2) + "\n";
    pos = end + 1;
  }
  return r;
}

inline void expect_same_outputs(const Model& original, const Model& optimized, double tol = 1e-5, uint32_t seed = 1) {
  auto feeds = passes::seeded_inputs(original, seed, {});
  auto diffs = passes::compare_outputs(original, optimized, feeds);
  ASSERT_EQ(diffs.size(), original.graph.outputs.size());
  for (const auto& d : diffs) {
    EXPECT_EQ(d.problem, "") << d.name;
    EXPECT_LE(d.rel_error, tol) << d.name;
  }
}

inline size_t count_ops(const Model& m, const std::string& op) {
  size_t c = 0;
  for (const auto& n : m.graph.nodes) c += n.op_type == op;
  return c;
}

}  // namespace ms::test
