// Identity split (quant/identity_split.h): a square 1×1 convolution whose diagonal dominates its
// rows is rewritten as Conv(x, W − diag(d)) + d ⊙ x, which the reference kernels run to the float
// model's outputs; convolutions the identity does not hold for, or whose diagonal is not the
// outlier, are left alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "quant/identity_split.h"
#include "quant/quant_params.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

// x [1, C, 4, 5] -> Conv 1x1 (W [C, C/group, kh, 1], bias) -> y.
Model pointwise_model(int64_t c, float diagonal, int64_t group = 1, int64_t stride = 1, int64_t kh = 1) {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, c, 4, 5})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {})};
  Tensor w(DType::Float32, {c, c / group, kh, 1}), b(DType::Float32, {c});
  std::mt19937 g(3);
  std::normal_distribution<float> d(0, 0.1f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  if (group == 1 && kh == 1)
    for (int64_t i = 0; i < c; ++i) w.data<float>()[i * c + i] += diagonal * (i % 2 ? 1.0f : -1.0f);
  for (int64_t i = 0; i < c; ++i) b.data<float>()[i] = d(g);
  m.graph.initializers["W"] = w;
  m.graph.initializers["B"] = b;
  Node n = test::make_node("Conv", {"x", "W", "B"}, {"y"}, "conv");
  n.attrs["group"] = Attribute::of_int(group);
  n.attrs["strides"] = Attribute::of_ints({stride, stride});
  m.graph.nodes = {n};
  return m;
}

Tensor run(const Model& m, const Tensor& x) {
  SessionOptions so;
  so.reference_kernels = true;
  return Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})[0].tensor;
}

quant::QuantOptions weight_only() {
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  return o;
}

TEST(IdentitySplit, DominantDiagonalLeavesTheConvolutionWithTheSameOutputs) {
  const Model fp = pointwise_model(16, 2.0f);
  Model m = fp;
  ASSERT_EQ(quant::split_identity_from_convs(m, weight_only()), 1u);
  ASSERT_EQ(m.graph.nodes.size(), 3u);
  EXPECT_EQ(m.graph.nodes[1].op_type, "Mul");
  EXPECT_EQ(m.graph.nodes[2].op_type, "Add");
  EXPECT_EQ(m.graph.nodes[2].outputs[0], "y");
  EXPECT_EQ(m.graph.initializers.count("W"), 0u);  // nothing else read it
  const Tensor& off = m.graph.initializers.at(m.graph.nodes[0].inputs[1]);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(off.data<float>()[i * 16 + i], 0.0f);
  Tensor x(DType::Float32, {1, 16, 4, 5});
  std::mt19937 g(9);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(g);
  const Tensor a = run(fp, x), b = run(m, x);
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(b.data<float>()[i], a.data<float>()[i], 1e-5f);

  // The point of it: the off-diagonal rows round on a finer step.
  const auto whole = quant::dequantize_weight(quant::quantize_weight(fp.graph.initializers.at("W"), 0));
  const auto rest = quant::dequantize_weight(quant::quantize_weight(off, 0));
  double e_whole = 0, e_rest = 0;
  for (int64_t i = 0; i < 256; ++i) {
    if (i % 17 == 0) continue;  // the diagonal: exact once split
    e_whole += std::pow(whole.data<float>()[i] - fp.graph.initializers.at("W").data<float>()[i], 2);
    e_rest += std::pow(rest.data<float>()[i] - off.data<float>()[i], 2);
  }
  EXPECT_LT(e_rest, 0.1 * e_whole);
}

TEST(IdentitySplit, LeavesAloneWhatTheIdentityDoesNotHoldFor) {
  for (const Model& fp : {pointwise_model(16, 0.0f),           // no dominant diagonal
                          pointwise_model(16, 2.0f, 1, 2),     // strided
                          pointwise_model(16, 2.0f, 4),        // grouped
                          pointwise_model(16, 2.0f, 1, 1, 3)}) {  // not 1x1
    Model m = fp;
    EXPECT_EQ(quant::split_identity_from_convs(m, weight_only()), 0u);
    EXPECT_EQ(m.graph.nodes.size(), 1u);
  }
  Model skipped = pointwise_model(16, 2.0f);
  auto o = weight_only();
  o.skip_nodes.insert("conv");
  EXPECT_EQ(quant::split_identity_from_convs(skipped, o), 0u);
}

}  // namespace
}  // namespace ms
