// Writes a synthetic ResNet-50-like ONNX model (the real ResNet-50 layer shapes: 7x7 stem, 16
// bottleneck blocks of 1x1/3x3/1x1 convolutions with BatchNormalization and residual Adds, global
// average pool, 1000-way Gemm; ~25.5 M float32 parameters, ~100 MB) with the project's own IR and
// ONNX exporter. Used for the MindIR conversion benchmark in the README:
//   ms_make_resnet_like resnet50_like.onnx && time ms convert --fmk ONNX --modelFile resnet50_like.onnx --outputFile r50
// An optional second argument sets the input's height and width (default 224), for quicker runs;
// --dynamic-batch names the leading dim "batch_size" on input and output, as torch.onnx.export with
// dynamic_axes={"input": {0: "batch_size"}, "output": {0: "batch_size"}} writes it (seed 001 §3.1);
// --dynamic-shape also leaves height and width symbolic (detection-style exports, seed 003 §3.3).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "formats/model_io.h"
#include "synthetic_builder.h"

using namespace ms;

namespace {

std::string filled(tools::SyntheticBuilder& b, int64_t n, float v) {
  Tensor t(DType::Float32, Shape{n});
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = v;
  return b.initializer(t, "c");
}

// Conv (same padding) + BatchNormalization with identity statistics, optionally + Relu.
std::string conv_bn(tools::SyntheticBuilder& b, const std::string& x, int64_t cin, int64_t cout, int64_t k,
                    int64_t stride, bool relu) {
  int64_t p = k / 2;
  std::string w = b.weight({cout, cin, k, k}, 0.05f);
  std::string y = b.node("Conv", {x, w}, {{"kernel_shape", Attribute::of_ints({k, k})}, {"strides", Attribute::of_ints({stride, stride})},
                                          {"pads", Attribute::of_ints({p, p, p, p})}});
  y = b.node("BatchNormalization", {y, filled(b, cout, 1.f), filled(b, cout, 0.f), filled(b, cout, 0.f), filled(b, cout, 1.f)});
  return relu ? b.node("Relu", {y}) : y;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool dynamic_shape = std::erase(args, "--dynamic-shape") > 0;
  const bool dynamic_batch = std::erase(args, "--dynamic-batch") > 0 || dynamic_shape;
  const int64_t side = args.size() == 2 ? std::atoll(args[1].c_str()) : 224;
  if (args.empty() || args.size() > 2 || side < 32) {
    std::cerr << "usage: ms_make_resnet_like OUT.onnx [INPUT_SIDE >= 32, default 224] [--dynamic-batch | --dynamic-shape]\n";
    return 2;
  }
  const Dim batch = dynamic_batch ? Dim::symbol("batch_size") : Dim::fixed(1);
  const Dim height = dynamic_shape ? Dim::symbol("height") : Dim::fixed(side);
  const Dim width = dynamic_shape ? Dim::symbol("width") : Dim::fixed(side);
  tools::SyntheticBuilder b(123);
  Model& m = b.model();
  m.opsets[""] = 17;
  m.graph.name = "resnet50_like";
  m.graph.inputs = {{"input", TypeInfo::tensor(DType::Float32, std::vector<Dim>{batch, Dim::fixed(3), height, width})}};
  std::string x = conv_bn(b, "input", 3, 64, 7, 2, true);
  x = b.node("MaxPool", {x}, {{"kernel_shape", Attribute::of_ints({3, 3})}, {"strides", Attribute::of_ints({2, 2})},
                              {"pads", Attribute::of_ints({1, 1, 1, 1})}});
  int64_t cin = 64;
  const int blocks[4] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    int64_t mid = 64 << stage, cout = mid * 4;
    for (int i = 0; i < blocks[stage]; ++i) {
      int64_t stride = (i == 0 && stage > 0) ? 2 : 1;
      std::string y = conv_bn(b, x, cin, mid, 1, 1, true);
      y = conv_bn(b, y, mid, mid, 3, stride, true);
      y = conv_bn(b, y, mid, cout, 1, 1, false);
      std::string sc = (i == 0) ? conv_bn(b, x, cin, cout, 1, stride, false) : x;
      x = b.node("Relu", {b.node("Add", {y, sc})});
      cin = cout;
    }
  }
  x = b.node("GlobalAveragePool", {x});
  x = b.node("Flatten", {x});
  std::string fc = b.weight({1000, 2048}, 0.02f);
  x = b.node("Gemm", {x, fc, filled(b, 1000, 0.f)}, {{"transB", Attribute::of_int(1)}});
  b.name_last_output("output");
  m.graph.outputs = {{"output", TypeInfo::tensor(DType::Float32, std::vector<Dim>{batch, Dim::fixed(1000)})}};
  save_model(m, args[0], ModelFormat::Onnx);
  std::cout << "wrote " << args[0] << ": " << m.graph.nodes.size() << " nodes, " << b.parameter_bytes() << " parameter bytes\n";
  return 0;
}
