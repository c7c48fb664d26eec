// Models for the compare tests: a small CNN in which one node can be broken on purpose, and the
// transformations compare must see through (ONNX and MindIR files, --optimize basic).
#pragma once
#include <random>

#include "core/graph.h"
#include "formats/model_io.h"
#include "passes/basic_passes.h"
#include "test_util.h"

namespace ms::test {

// x[1,3,12,12] -> conv_a(3->8) -> bn_a -> relu_a -> conv_b(8->8) -> sub (relu_a - conv_b) -> relu_b
//   -> gap -> flatten -> fc Gemm(8x8, transB=1, square so a wrong transB still runs) -> softmax
// conv_a's weight is computed by a Mul of two constants, so --optimize basic has something to fold;
// conv_a + bn_a + relu_a is what `ms optimize general` fuses into one node.
inline Model compare_cnn() {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 0.4f);
  auto random = [&](Shape s) {
    Tensor t(DType::Float32, std::move(s));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
    return t;
  };
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "compare_cnn";
  m.graph.inputs = {tensor_info("x", DType::Float32, {1, 3, 12, 12})};
  m.graph.outputs = {tensor_info("probs", DType::Float32, {1, 8})};
  auto& init = m.graph.initializers;
  init["wa_raw"] = random({8, 3, 3, 3});
  init["wa_scale"] = Tensor::scalar<float>(0.5f);
  init["ba"] = random({8});
  init["wb"] = random({8, 8, 3, 3});
  init["bb"] = random({8});
  init["bn_scale"] = random({8});
  init["bn_bias"] = random({8});
  init["bn_mean"] = random({8});
  init["bn_var"] = Tensor::from_vector<float>(std::vector<float>(8, 0.7f), {8});
  init["wfc"] = random({8, 8});
  init["bfc"] = random({8});
  Node conv_a = make_node("Conv", {"x", "wa", "ba"}, {"ca"}, "conv_a");
  conv_a.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node conv_b = make_node("Conv", {"ra", "wb", "bb"}, {"cb"}, "conv_b");
  conv_b.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node fc = make_node("Gemm", {"flat", "wfc", "bfc"}, {"logits"}, "fc");
  fc.attrs["transB"] = Attribute::of_int(1);
  m.graph.nodes = {make_node("Mul", {"wa_raw", "wa_scale"}, {"wa"}, "scale_wa"),
                   conv_a,
                   make_node("BatchNormalization", {"ca", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"na"}, "bn_a"),
                   make_node("Relu", {"na"}, {"ra"}, "relu_a"),
                   conv_b,
                   make_node("Sub", {"ra", "cb"}, {"d"}, "sub"),
                   make_node("Relu", {"d"}, {"rb"}, "relu_b"),
                   make_node("GlobalAveragePool", {"rb"}, {"gap"}, "gap"),
                   make_node("Flatten", {"gap"}, {"flat"}, "flatten"),
                   fc,
                   make_node("Softmax", {"logits"}, {"probs"}, "softmax")};
  return m;
}

inline Node& node_named(Model& m, const std::string& name) {
  for (auto& n : m.graph.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

enum class Fault { PerturbedWeights, WrongAttribute, SwappedInputs, PerturbedFusedWeights };

// The faulty copy, and the name of the node the fault is in.
inline std::pair<Model, std::string> break_one_node(const Model& original, Fault f) {
  Model m = original;
  switch (f) {
    case Fault::PerturbedWeights: {
      Tensor w = m.graph.initializers.at("wb").clone();
      for (int64_t i = 0; i < w.numel(); i += 3) w.data<float>()[i] *= -1.5f;
      m.graph.initializers["wb"] = w;
      return {m, "conv_b"};
    }
    case Fault::PerturbedFusedWeights: {
      // conv_a's bias: the weight itself is an output of scale_wa, which would then be the culprit.
      Tensor b = m.graph.initializers.at("ba").clone();
      for (int64_t i = 0; i < b.numel(); i += 2) b.data<float>()[i] += 3.0f;
      m.graph.initializers["ba"] = b;
      return {m, "conv_a"};
    }
    case Fault::WrongAttribute:
      node_named(m, "fc").attrs["transB"] = Attribute::of_int(0);
      return {m, "fc"};
    case Fault::SwappedInputs:
      std::swap(node_named(m, "sub").inputs[0], node_named(m, "sub").inputs[1]);
      return {m, "sub"};
  }
  return {m, ""};
}

// Writes `m` in `fmt` and reads it back, as a user's converted file would be.
inline Model through_file(const Model& m, const std::filesystem::path& path, ModelFormat fmt) {
  save_model(m, path.string(), fmt);
  return load_model(path.string());
}

inline Model optimized_basic(const Model& m) {
  Model o = m;
  passes::run_basic_pipeline(o);
  return o;
}

}  // namespace ms::test
