// Writes a synthetic MobileNetV2 (1.0, 224) ONNX model as torchvision's export looks: every conv is
// Conv + BatchNormalization (seeded, non-trivial statistics) followed by Clip(0, 6) except the
// linear bottleneck projections; depthwise 3x3 convolutions (group = channels); residual Adds where
// stride is 1 and channels match; GlobalAveragePool, Flatten, Gemm 1280 -> 1000. 3.5 M parameters.
// The optimizer's acceptance model (README, `ms optimize`) and a benchmark input for `ms benchmark`:
//   ms_make_mobilenet_v2 mobilenet_v2.onnx
#include <cmath>
#include <iostream>

#include "formats/model_io.h"
#include "synthetic_builder.h"

using namespace ms;
using ms::tools::SyntheticBuilder;

namespace {

struct MobileNetBuilder : SyntheticBuilder {
  MobileNetBuilder() : SyntheticBuilder(20240601) {}

  std::string conv_bn(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride, int64_t group, bool relu6) {
    const int64_t p = k / 2;
    std::string w = weight({cout, cin / group, k, k}, std::sqrt(2.0f / float(cin / group * k * k)));
    std::string y = node("Conv", {x, w},
                         {{"group", Attribute::of_int(group)}, {"kernel_shape", Attribute::of_ints({k, k})},
                          {"strides", Attribute::of_ints({stride, stride})}, {"pads", Attribute::of_ints({p, p, p, p})},
                          {"dilations", Attribute::of_ints({1, 1})}});
    y = node("BatchNormalization", {y, uniform({cout}, 0.5f, 1.5f), weight({cout}, 0.1f), weight({cout}, 0.1f),
                                    uniform({cout}, 0.5f, 2.0f)},
             {{"epsilon", Attribute::of_float(1e-5f)}, {"momentum", Attribute::of_float(0.9f)}});
    return relu6 ? node("Clip", {y, zero_, six_}) : y;
  }

  std::string inverted_residual(const std::string& x, int64_t cin, int64_t cout, int64_t stride, int64_t expand) {
    const int64_t hidden = cin * expand;
    std::string y = x;
    if (expand != 1) y = conv_bn(y, cin, hidden, 1, 1, 1, true);
    y = conv_bn(y, hidden, hidden, 3, stride, hidden, true);  // depthwise
    y = conv_bn(y, hidden, cout, 1, 1, 1, false);              // linear bottleneck
    return (stride == 1 && cin == cout) ? node("Add", {x, y}) : y;
  }

  std::string zero_ = scalar(0.f), six_ = scalar(6.f);
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ms_make_mobilenet_v2 OUT.onnx\n";
    return 2;
  }
  MobileNetBuilder b;
  Model& m = b.model();
  m.opsets[""] = 17;
  m.producer_name = "ms_make_mobilenet_v2";
  m.graph.name = "mobilenet_v2";
  m.graph.inputs = {{"input", TypeInfo::tensor(DType::Float32, Shape{1, 3, 224, 224})}};
  std::string x = b.conv_bn("input", 3, 32, 3, 2, 1, true);
  // (expansion t, output channels c, repeats n, first stride s): the MobileNetV2 paper's table 2.
  const int64_t settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t cin = 32;
  for (const auto& s : settings)
    for (int64_t i = 0; i < s[2]; ++i) {
      x = b.inverted_residual(x, cin, s[1], i == 0 ? s[3] : 1, s[0]);
      cin = s[1];
    }
  x = b.conv_bn(x, cin, 1280, 1, 1, 1, true);
  x = b.node("GlobalAveragePool", {x});
  x = b.node("Flatten", {x}, {{"axis", Attribute::of_int(1)}});
  x = b.node("Gemm", {x, b.weight({1000, 1280}, 0.01f), b.weight({1000}, 0.01f)},
             {{"alpha", Attribute::of_float(1.f)}, {"beta", Attribute::of_float(1.f)}, {"transB", Attribute::of_int(1)}});
  b.name_last_output("output");
  m.graph.outputs = {{"output", TypeInfo::tensor(DType::Float32, Shape{1, 1000})}};
  save_model(m, argv[1], ModelFormat::Onnx);
  std::cout << "wrote " << argv[1] << ": " << m.graph.nodes.size() << " nodes, " << b.parameter_bytes() << " parameter bytes\n";
  return 0;
}
