// Builds the bundled demo model (a small image classifier with seeded weights) and an input:
//   x[1,3,32,32] -> Conv3x3(8)+Relu -> MaxPool2 -> Conv3x3(16)+Relu -> GlobalAveragePool -> Flatten
//   -> Gemm(10) -> Softmax -> probs[1,10]
#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"

using namespace ms;

namespace {

Tensor he_init(Shape shape, int64_t fan_in, std::mt19937& rng) {
  Tensor t(DType::Float32, std::move(shape));
  std::normal_distribution<float> d(0.0f, std::sqrt(2.0f / static_cast<float>(fan_in)));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

Node node(const std::string& name, const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ms_make_demo OUTPUT_DIR\n";
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  std::mt19937 rng(2024);
  Model m;
  m.producer_name = "mstools";
  m.opsets[""] = 17;
  Graph& g = m.graph;
  g.name = "demo_cnn";
  g.inputs = {{"image", TypeInfo::tensor(DType::Float32, Shape{1, 3, 32, 32})}};
  g.outputs = {{"probs", TypeInfo::tensor(DType::Float32, Shape{1, 10})}};
  g.initializers["conv1.w"] = he_init({8, 3, 3, 3}, 27, rng);
  g.initializers["conv1.b"] = Tensor(DType::Float32, {8});
  g.initializers["conv2.w"] = he_init({16, 8, 3, 3}, 72, rng);
  g.initializers["conv2.b"] = Tensor(DType::Float32, {16});
  g.initializers["fc.w"] = he_init({10, 16}, 16, rng);
  g.initializers["fc.b"] = Tensor(DType::Float32, {10});

  Node c1 = node("conv1", "Conv", {"image", "conv1.w", "conv1.b"}, {"c1"});
  c1.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node p1 = node("pool1", "MaxPool", {"r1"}, {"p1"});
  p1.attrs["kernel_shape"] = Attribute::of_ints({2, 2});
  p1.attrs["strides"] = Attribute::of_ints({2, 2});
  Node c2 = node("conv2", "Conv", {"p1", "conv2.w", "conv2.b"}, {"c2"});
  c2.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node fc = node("fc", "Gemm", {"flat", "fc.w", "fc.b"}, {"logits"});
  fc.attrs["transB"] = Attribute::of_int(1);
  g.nodes = {c1,
             node("relu1", "Relu", {"c1"}, {"r1"}),
             p1,
             c2,
             node("relu2", "Relu", {"c2"}, {"r2"}),
             node("gap", "GlobalAveragePool", {"r2"}, {"gap"}),
             node("flatten", "Flatten", {"gap"}, {"flat"}),
             fc,
             node("softmax", "Softmax", {"logits"}, {"probs"})};
  save_model(m, (dir / "demo_cnn.onnx").string(), ModelFormat::Onnx);

  Tensor x(DType::Float32, {1, 3, 32, 32});
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
  io::write_npy((dir / "demo_input.npy").string(), x);
  return 0;
}
