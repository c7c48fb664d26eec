// Data-free weight quantization (quant/sum_preserving_rounding.h, zero_input_probe.h): the rounding
// that keeps each scale group's sum, checked element by element against its definition, and the
// all-zeros probe bias correction uses without calibration data.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "quant/quant_params.h"
#include "quant/sum_preserving_rounding.h"
#include "quant/zero_input_probe.h"
#include "test_util.h"

namespace ms {
namespace {

Tensor random_weight(Shape shape, uint32_t seed) {
  Tensor w(DType::Float32, shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0, 1);
  for (int64_t k = 0; k < w.numel(); ++k) w.data<float>()[k] = d(g) + (k % 7 == 0 ? 3.0f : 0.0f);
  return w;
}

// For every group: the integer sum is round(sum of w / s) (within rounding of the sum itself),
// every element is within one step of w / s and moved at most one step from nearest, and only as
// many elements moved as the sum needed, each the nearest to its rounding boundary.
void expect_sums_kept(const quant::QuantizedWeight& nearest, const quant::QuantizedWeight& kept, const Tensor& w,
                      const std::vector<std::vector<int64_t>>& groups, const std::vector<float>& scales, int qmax) {
  const auto* qn = static_cast<const int8_t*>(nearest.q.raw());
  const auto* qk = static_cast<const int8_t*>(kept.q.raw());
  const float* x = w.data<float>();
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const float s = scales[gi];
    double exact = 0;
    int64_t sum_nearest = 0, sum_kept = 0, moved = 0;
    double largest_unmoved = -1, smallest_moved = 2;
    for (int64_t k : groups[gi]) {
      exact += double(x[k]) / s;
      sum_nearest += qn[k], sum_kept += qk[k];
      EXPECT_LE(std::abs(qk[k]), qmax);
      EXPECT_LE(std::fabs(double(x[k]) / s - qk[k]), 1.0 + 1e-6);
      EXPECT_LE(std::abs(qk[k] - qn[k]), 1);
      moved += qk[k] != qn[k];
    }
    EXPECT_LE(std::fabs(exact - double(sum_kept)), 0.5 + 1e-6) << "group " << gi;
    EXPECT_EQ(moved, std::abs(sum_kept - sum_nearest)) << "group " << gi;
    const int step = sum_kept > sum_nearest ? 1 : -1;
    for (int64_t k : groups[gi]) {
      const double towards = step * (double(x[k]) / s - qn[k]);
      if (qk[k] != qn[k]) smallest_moved = std::min(smallest_moved, towards);
      else if (std::abs(qn[k] + step) <= qmax) largest_unmoved = std::max(largest_unmoved, towards);
    }
    if (moved > 0) {
      EXPECT_GE(smallest_moved, largest_unmoved - 1e-9) << "group " << gi;
    }
  }
}

// Per-channel groups: channel c holds elements index(c, k) for k < len, with scale c.
void expect_channel_sums_kept(const Tensor& w, int axis, int64_t channels, int64_t len,
                              const std::function<int64_t(int64_t, int64_t)>& index) {
  const auto nearest = quant::quantize_weight(w, axis);
  auto kept = quant::quantize_weight(w, axis);
  quant::keep_scale_group_sums(kept, w);
  std::vector<std::vector<int64_t>> groups(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k = 0; k < len; ++k) groups[size_t(c)].push_back(index(c, k));
  const std::vector<float> scales(nearest.scale.data<float>(), nearest.scale.data<float>() + channels);
  expect_sums_kept(nearest, kept, w, groups, scales, 127);
}

TEST(KeepSum, PerChannelConvWeightKeepsEveryChannelSum) {
  const Tensor w = random_weight({8, 6, 3, 3}, 1);
  expect_channel_sums_kept(w, 0, 8, 54, [](int64_t c, int64_t k) { return c * 54 + k; });
  const auto nearest = quant::quantize_weight(w, 0);
  auto kept = quant::quantize_weight(w, 0);
  quant::keep_scale_group_sums(kept, w);
  int64_t moved = 0;
  for (int64_t k = 0; k < w.numel(); ++k) moved += kept.q.data<int8_t>()[k] != nearest.q.data<int8_t>()[k];
  EXPECT_GT(moved, 0);  // 8 channels of 54 weights: some sums are off by a step or more
}

TEST(KeepSum, MatMulChannelsAlongTheLastAxisAndBlocks) {
  // MatMul weight [K, N] with one scale per column: each column keeps its sum.
  expect_channel_sums_kept(random_weight({40, 5}, 2), 1, 5, 40, [](int64_t n, int64_t k) { return k * 5 + n; });

  // Blocked int4 along axis 1 of [3, 20], blocks of 8 (the last one short): each block keeps its sum.
  const Tensor b = random_weight({3, 20}, 3);
  const auto bn = quant::quantize_weight_blocked(b, 1, 8, 4);
  auto bk = quant::quantize_weight_blocked(b, 1, 8, 4);
  quant::keep_scale_group_sums(bk, b);
  std::vector<std::vector<int64_t>> bgroups;
  std::vector<float> bscales;
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t blk = 0; blk < 3; ++blk) {
      bgroups.emplace_back();
      for (int64_t a = blk * 8; a < std::min<int64_t>(20, blk * 8 + 8); ++a) bgroups.back().push_back(r * 20 + a);
      bscales.push_back(bn.scale.data<float>()[r * 3 + blk]);
    }
  expect_sums_kept(bn, bk, b, bgroups, bscales, 7);
}

// A constant input: a 1x1 convolution's response to it is exact up to half a step a channel with
// the sums kept, and rounding to nearest is further off on average.
TEST(KeepSum, ConstantInputResponseIsKept) {
  const Tensor w = random_weight({64, 96, 1, 1}, 4);
  const auto nearest = quant::quantize_weight(w, 0);
  auto kept = quant::quantize_weight(w, 0);
  quant::keep_scale_group_sums(kept, w);
  const Tensor wn = quant::dequantize_weight(nearest), wk = quant::dequantize_weight(kept);
  double err_nearest = 0, err_kept = 0;
  for (int64_t c = 0; c < 64; ++c) {
    double exact = 0, n = 0, k = 0;
    for (int64_t i = 0; i < 96; ++i) {
      exact += w.data<float>()[c * 96 + i];
      n += wn.data<float>()[c * 96 + i];
      k += wk.data<float>()[c * 96 + i];
    }
    const double s = nearest.scale.data<float>()[c];
    EXPECT_LE(std::fabs(k - exact), 0.5 * s + 1e-5);
    err_nearest += std::fabs(n - exact) / s, err_kept += std::fabs(k - exact) / s;
  }
  EXPECT_LT(err_kept, 0.5 * err_nearest);
}

TEST(ZeroInputProbe, ZerosOfTheInputShapesOrNothingForIntegerInputs) {
  Graph g;
  g.inputs = {{"image", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3), Dim::symbol("H"), Dim{}})},
              {"scale", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::fixed(2)})}};
  auto probe = quant::zero_input_probe(g);
  ASSERT_TRUE(probe.has_value());
  ASSERT_EQ(probe->count(), 1u);
  const auto sample = probe->sample(0);
  ASSERT_EQ(sample.size(), 2u);
  EXPECT_EQ(sample[0].tensor.shape(), (Shape{1, 3, quant::kProbeDim, quant::kProbeDim}));
  EXPECT_EQ(sample[1].tensor.shape(), (Shape{2}));
  for (const auto& v : sample)
    for (int64_t k = 0; k < v.tensor.numel(); ++k) ASSERT_EQ(v.tensor.data<float>()[k], 0.0f);

  g.inputs.push_back({"sample_rate", TypeInfo::tensor(DType::Int64, std::vector<Dim>{})});
  EXPECT_FALSE(quant::zero_input_probe(g).has_value());
}

}  // namespace
}  // namespace ms
