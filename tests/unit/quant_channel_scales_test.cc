// move_channel_scales_after_ops: a weight-only model whose per-channel weight scales move into a
// Mul after the op computes what the per-channel DequantizeLinear form computes (the float model
// run on the dequantized weights is the independent reference), and so does its MindIR round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "formats/model_io.h"
#include "quant/channel_scales.h"
#include "quant/quantizer.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

Tensor random_tensor(Shape shape, uint32_t seed, float scale = 1) {
  Tensor t(DType::Float32, shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(g) * scale;
  return t;
}

// One node `op` reading x [1,3,6,6] (Conv) or [5,K] (Gemm/MatMul), its weight W and optional bias B.
Model one_op_model(const std::string& op, Tensor w, std::optional<Tensor> bias, Shape x_shape) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "one_op";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, x_shape)};
  m.graph.outputs = {ValueInfo{"y", TypeInfo::tensor_unknown_shape(DType::Float32)}};
  m.graph.initializers["W"] = std::move(w);
  std::vector<std::string> in{"x", "W"};
  if (bias) m.graph.initializers["B"] = *bias, in.push_back("B");
  m.graph.nodes = {test::make_node(op, in, {"y"}, "op")};
  if (op == "Conv") m.graph.nodes[0].attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  return m;
}

Tensor run_ref(const Model& m, const Tensor& x) {
  SessionOptions so;
  so.reference_kernels = true;
  return Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})[0].tensor;
}

void expect_close(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i)
    ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5 * (1 + std::fabs(b.data<float>()[i]))) << "element " << i;
}

int count_ops(const Model& m, const std::string& op) {
  int k = 0;
  for (const auto& n : m.graph.nodes) k += n.op_type == op;
  return k;
}

// Weight-quantizes `fp`, moves the scales, and checks the moved model (and its MindIR round trip)
// against the per-channel model. Returns the number of weights moved.
size_t check_moved(const Model& fp, const Tensor& x) {
  Model q = fp;
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  quant::quantize_model(q, o, {});
  Model moved = q;
  const size_t n = quant::move_channel_scales_after_ops(moved);
  const Tensor expected = run_ref(q, x);
  expect_close(run_ref(moved, x), expected);
  EXPECT_GT(std::fabs(expected.data<float>()[0]), 0.f);
  const auto dir = test::temp_dir("channel_scales");
  const std::string file = save_model(moved, (dir / "m.mindir").string(), ModelFormat::MindIR);
  expect_close(run_ref(load_model(file), x), expected);
  std::filesystem::remove_all(dir);
  if (n) {
    EXPECT_EQ(count_ops(moved, "Mul"), 1);
    for (const auto& node : moved.graph.nodes)
      if (node.op_type == "DequantizeLinear") EXPECT_EQ(moved.graph.initializers.at(node.inputs[1]).numel(), 1);
  }
  return n;
}

TEST(ChannelScales, ConvWithBiasMovesAndComputesTheSame) {
  Tensor w = random_tensor({4, 3, 3, 3}, 1);
  for (int64_t i = 27; i < 54; ++i) w.data<float>()[i] *= 20;  // channel ranges differ
  const Model fp = one_op_model("Conv", w, Tensor::from_vector<float>({0.5f, -2.f, 3.f, 0.f}, {4}), {1, 3, 6, 6});
  EXPECT_EQ(check_moved(fp, random_tensor({1, 3, 6, 6}, 2)), 1u);
}

TEST(ChannelScales, GemmTransposedWithBiasAndMatMulMove) {
  Model gemm = one_op_model("Gemm", random_tensor({6, 8}, 3), random_tensor({6}, 4), {5, 8});
  gemm.graph.nodes[0].attrs["transB"] = Attribute::of_int(1);
  gemm.graph.nodes[0].attrs["beta"] = Attribute::of_float(0.5f);
  EXPECT_EQ(check_moved(gemm, random_tensor({5, 8}, 5)), 1u);
  const Model matmul = one_op_model("MatMul", random_tensor({8, 6}, 6), std::nullopt, {5, 8});
  EXPECT_EQ(check_moved(matmul, random_tensor({5, 8}, 7)), 1u);
}

TEST(ChannelScales, NearZeroChannelWithBiasKeepsItsForm) {
  // A channel of denormal weights (PaddleOCR v4 rec has one) has a scale near 1e-41: its bias
  // divided by it overflows float32.
  Tensor w = random_tensor({3, 3, 3, 3}, 8);
  for (int64_t i = 0; i < 27; ++i) w.data<float>()[i] = i % 2 ? 1e-39f : -1e-39f;
  const Model fp = one_op_model("Conv", w, Tensor::from_vector<float>({1.f, 1.f, 1.f}, {3}), {1, 3, 6, 6});
  EXPECT_EQ(check_moved(fp, random_tensor({1, 3, 6, 6}, 9)), 0u);
}

TEST(ChannelScales, LongChannelsKeepMindSporesPerChannelParameters) {
  // 256 * 3 * 3 = 2304 weights a channel: two channels' parameters are under 5% of the int8 bytes.
  const Model fp = one_op_model("Conv", random_tensor({2, 256, 3, 3}, 10), std::nullopt, {1, 256, 6, 6});
  EXPECT_EQ(check_moved(fp, random_tensor({1, 256, 6, 6}, 11)), 0u);
}

}  // namespace
}  // namespace ms
