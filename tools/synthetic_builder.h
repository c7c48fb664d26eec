// A small graph builder for the synthetic benchmark/acceptance models (make_mobilenet_v2.cc,
// make_bert_like.cc): seeded weights, one node per call, unique names.
#pragma once
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::tools {

class SyntheticBuilder {
 public:
  explicit SyntheticBuilder(uint32_t seed) : rng_(seed) {}

  Model& model() { return m_; }

  // Normal(mean, stddev) weights.
  std::string weight(const Shape& s, float stddev, float mean = 0.f) {
    Tensor t(DType::Float32, s);
    std::normal_distribution<float> d(mean, stddev);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng_);
    return initializer(t, "w");
  }
  // Uniform(lo, hi) weights (BatchNormalization variances must be positive).
  std::string uniform(const Shape& s, float lo, float hi) {
    Tensor t(DType::Float32, s);
    std::uniform_real_distribution<float> d(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng_);
    return initializer(t, "u");
  }
  std::string scalar(float v) { return initializer(Tensor::scalar<float>(v), "c"); }
  std::string ints(const std::vector<int64_t>& v) {
    return initializer(Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}), "i");
  }
  std::string initializer(const Tensor& t, const std::string& prefix) {
    std::string n = fresh(prefix);
    m_.graph.initializers[n] = t;
    return n;
  }
  std::string node(const std::string& op, std::vector<std::string> in, std::map<std::string, Attribute> attrs = {}) {
    Node n;
    n.op_type = op;
    n.outputs = {fresh("t")};
    n.name = n.outputs[0] + "_" + op;
    n.inputs = std::move(in);
    n.attrs = std::move(attrs);
    m_.graph.nodes.push_back(n);
    return n.outputs[0];
  }
  // Renames the last node's output (to give graph outputs readable names).
  void name_last_output(const std::string& name) { m_.graph.nodes.back().outputs[0] = name; }

  size_t parameter_bytes() const {
    size_t b = 0;
    for (const auto& [k, t] : m_.graph.initializers) b += t.nbytes();
    return b;
  }

 private:
  std::string fresh(const std::string& p) { return p + std::to_string(counter_++); }
  Model m_;
  std::mt19937 rng_;
  int counter_ = 0;
};

}  // namespace ms::tools
