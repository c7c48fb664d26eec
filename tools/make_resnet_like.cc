// Writes a synthetic ResNet-50-like ONNX model (the real ResNet-50 layer shapes: 7x7 stem, 16
// bottleneck blocks of 1x1/3x3/1x1 convolutions with BatchNormalization and residual Adds, global
// average pool, 1000-way Gemm; ~25.5 M float32 parameters, ~100 MB) with the project's own IR and
// ONNX exporter. Used for the MindIR conversion benchmark in the README:
//   ms_make_resnet_like resnet50_like.onnx && time ms convert --fmk ONNX --modelFile resnet50_like.onnx --outputFile r50
#include <iostream>
#include <random>

#include "formats/model_io.h"

using namespace ms;

namespace {

struct Builder {
  Model m;
  std::mt19937 rng{123};
  int counter = 0;

  std::string name(const std::string& p) { return p + std::to_string(counter++); }
  std::string weight(const Shape& s, float scale) {
    Tensor t(DType::Float32, s);
    std::normal_distribution<float> d(0.f, scale);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
    std::string n = name("w");
    m.graph.initializers[n] = t;
    return n;
  }
  std::string constant(const Shape& s, float v) {
    Tensor t(DType::Float32, s);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = v;
    std::string n = name("c");
    m.graph.initializers[n] = t;
    return n;
  }
  std::string node(const std::string& op, std::vector<std::string> in, std::map<std::string, Attribute> attrs = {}) {
    Node n;
    n.op_type = op;
    n.outputs = {name("t")};
    n.name = n.outputs[0] + "_" + op;
    n.inputs = std::move(in);
    n.attrs = std::move(attrs);
    m.graph.nodes.push_back(n);
    return n.outputs[0];
  }
  std::string conv_bn(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride, bool relu) {
    int64_t p = k / 2;
    std::string w = weight({cout, cin, k, k}, 0.05f);
    std::string y = node("Conv", {x, w}, {{"kernel_shape", Attribute::of_ints({k, k})}, {"strides", Attribute::of_ints({stride, stride})},
                                          {"pads", Attribute::of_ints({p, p, p, p})}});
    y = node("BatchNormalization", {y, constant({cout}, 1.f), constant({cout}, 0.f), constant({cout}, 0.f), constant({cout}, 1.f)});
    return relu ? node("Relu", {y}) : y;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ms_make_resnet_like OUT.onnx\n";
    return 2;
  }
  Builder b;
  b.m.opsets[""] = 17;
  b.m.graph.name = "resnet50_like";
  b.m.graph.inputs = {{"input", TypeInfo::tensor(DType::Float32, Shape{1, 3, 224, 224})}};
  std::string x = b.conv_bn("input", 3, 64, 7, 2, true);
  x = b.node("MaxPool", {x}, {{"kernel_shape", Attribute::of_ints({3, 3})}, {"strides", Attribute::of_ints({2, 2})},
                              {"pads", Attribute::of_ints({1, 1, 1, 1})}});
  int64_t cin = 64;
  const int blocks[4] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    int64_t mid = 64 << stage, cout = mid * 4;
    for (int i = 0; i < blocks[stage]; ++i) {
      int64_t stride = (i == 0 && stage > 0) ? 2 : 1;
      std::string y = b.conv_bn(x, cin, mid, 1, 1, true);
      y = b.conv_bn(y, mid, mid, 3, stride, true);
      y = b.conv_bn(y, mid, cout, 1, 1, false);
      std::string sc = (i == 0) ? b.conv_bn(x, cin, cout, 1, stride, false) : x;
      x = b.node("Relu", {b.node("Add", {y, sc})});
      cin = cout;
    }
  }
  x = b.node("GlobalAveragePool", {x});
  x = b.node("Flatten", {x});
  std::string fc = b.weight({1000, 2048}, 0.02f);
  x = b.node("Gemm", {x, fc, b.constant({1000}, 0.f)}, {{"transB", Attribute::of_int(1)}});
  b.m.graph.nodes.back().outputs[0] = "output";
  b.m.graph.outputs = {{"output", TypeInfo::tensor(DType::Float32, Shape{1, 1000})}};
  save_model(b.m, argv[1], ModelFormat::Onnx);
  size_t bytes = 0;
  for (const auto& [k, t] : b.m.graph.initializers) bytes += t.nbytes();
  std::cout << "wrote " << argv[1] << ": " << b.m.graph.nodes.size() << " nodes, " << bytes << " parameter bytes\n";
  return 0;
}
