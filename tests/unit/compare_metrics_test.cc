// compare's metrics against values worked out by hand on small tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/metrics.h"

namespace ms::analysis {
namespace {

Tensor vec(std::vector<float> v) {
  auto n = static_cast<int64_t>(v.size());
  return Tensor::from_vector<float>(v, {n});
}

TEST(CompareMetrics, HandComputedValues) {
  // a = [1,2,3], ref = [1,2,4]: dot 17, |a|^2 14, |ref|^2 21; one error of 1 on an element of 4.
  auto m = compare_tensors(vec({1, 2, 3}), vec({1, 2, 4}), {});
  EXPECT_NEAR(m.cosine, 17.0 / std::sqrt(14.0 * 21.0), 1e-12);
  EXPECT_DOUBLE_EQ(m.max_abs, 1.0);
  EXPECT_EQ(m.max_abs_index, 2);
  EXPECT_NEAR(m.mean_abs, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(m.mse, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(m.psnr, 10 * std::log10(16.0 / (1.0 / 3.0)), 1e-9);  // peak = max |ref| = 4
  EXPECT_NEAR(m.max_rel, 0.25, 1e-12);
  EXPECT_EQ(m.count, 3);
  EXPECT_TRUE(m.comparable);
}

TEST(CompareMetrics, CosineOfOppositeOrthogonalAndZeroTensors) {
  EXPECT_NEAR(compare_tensors(vec({1, -2}), vec({-1, 2}), {}).cosine, -1.0, 1e-12);
  EXPECT_NEAR(compare_tensors(vec({1, 0}), vec({0, 3}), {}).cosine, 0.0, 1e-12);
  EXPECT_EQ(compare_tensors(vec({0, 0}), vec({0, 0}), {}).cosine, 1.0);
  EXPECT_EQ(compare_tensors(vec({0, 0}), vec({0, 1}), {}).cosine, 0.0);
  // Scaling does not move the cosine but does move the errors.
  auto m = compare_tensors(vec({2, 4, 6}), vec({1, 2, 3}), {});
  EXPECT_NEAR(m.cosine, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(m.max_abs, 3.0);
  EXPECT_NEAR(m.max_rel, 1.0, 1e-12);
}

TEST(CompareMetrics, IdenticalTensorsHaveInfinitePsnrAndNoError) {
  auto m = compare_tensors(vec({0.5f, -1, 7}), vec({0.5f, -1, 7}), {});
  EXPECT_TRUE(std::isinf(m.psnr) && m.psnr > 0);
  EXPECT_EQ(m.max_abs, 0);
  EXPECT_EQ(m.mse, 0);
  EXPECT_EQ(m.max_rel, 0);
}

TEST(CompareMetrics, ElementwiseToleranceCountsViolations) {
  Tolerance tol{0.1, 0.1, std::nullopt};
  // |d| <= 0.1 + 0.1*|ref|: ref 1 allows 0.2, ref 10 allows 1.1.
  auto m = compare_tensors(vec({1.15f, 1.3f, 11.0f, 11.2f}), vec({1, 1, 10, 10}), tol);
  EXPECT_EQ(m.tolerance_violations, 2);
  EXPECT_FALSE(within_tolerance(m, tol));
  EXPECT_TRUE(within_tolerance(compare_tensors(vec({1.15f, 10.5f}), vec({1, 10}), tol), tol));
}

TEST(CompareMetrics, MinimumCosineVerdict) {
  Tolerance tol{std::nullopt, std::nullopt, 0.99};
  EXPECT_TRUE(within_tolerance(compare_tensors(vec({1, 2, 3}), vec({1, 2, 3.1f}), {}), tol));
  EXPECT_FALSE(within_tolerance(compare_tensors(vec({1, 2, 3}), vec({3, 2, 1}), {}), tol));  // cosine 10/14
}

TEST(CompareMetrics, NonFiniteValues) {
  float nan = std::nanf(""), inf = INFINITY;
  auto same = compare_tensors(vec({nan, inf, 1}), vec({nan, inf, 1}), {});
  EXPECT_EQ(same.nonfinite_mismatches, 0);
  EXPECT_TRUE(within_tolerance(same, {}));
  auto diff = compare_tensors(vec({nan, -inf, 1}), vec({2, inf, 1}), {});
  EXPECT_EQ(diff.nonfinite_mismatches, 2);
  EXPECT_FALSE(within_tolerance(diff, {}));
  EXPECT_EQ(diff.max_abs, 0);  // the finite pair agrees
}

TEST(CompareMetrics, ElementCountMismatchIsNotComparable) {
  auto m = compare_tensors(vec({1, 2, 3}), vec({1, 2}), {});
  EXPECT_FALSE(m.comparable);
  EXPECT_FALSE(within_tolerance(m, {}));
  // Same elements in another shape compare element by element.
  auto r = compare_tensors(Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}), vec({1, 2, 3, 4}), {});
  EXPECT_TRUE(r.comparable);
  EXPECT_FALSE(r.same_shape);
  EXPECT_EQ(r.max_abs, 0);
}

TEST(CompareMetrics, IntegerTensorsCompareAsNumbers) {
  auto m = compare_tensors(Tensor::from_vector<int64_t>({1, 5}, {2}), Tensor::from_vector<int32_t>({1, 3}, {2}), {});
  EXPECT_DOUBLE_EQ(m.max_abs, 2);
  EXPECT_NEAR(m.mse, 2.0, 1e-12);
}

TEST(CompareMetrics, TopKAgreementPerRow) {
  // Two rows of 7 classes. Row 0: same argmax (class 2). Row 1: ref argmax 6, ours 0, and 6 is our
  // 3rd largest: top-1 disagrees, top-5 agrees.
  Tensor ref = Tensor::from_vector<float>({0, 1, 9, 2, 3, 4, 5, /**/ 1, 0, 0, 0, 0, 0, 9}, {2, 7});
  Tensor mine = Tensor::from_vector<float>({0, 1, 8, 2, 3, 4, 5, /**/ 9, 8, 0, 0, 0, 0, 7}, {2, 7});
  TensorMetrics m = compare_tensors(mine, ref, {});
  add_top_k_agreement(mine, ref, m);
  ASSERT_TRUE(m.top1 && m.top5);
  EXPECT_DOUBLE_EQ(*m.top1, 0.5);
  EXPECT_DOUBLE_EQ(*m.top5, 1.0);
  // Row 1 again, with class 6 pushed out of our top 5.
  Tensor worse = Tensor::from_vector<float>({0, 1, 8, 2, 3, 4, 5, /**/ 9, 8, 7, 6, 5, 4, 0}, {2, 7});
  TensorMetrics w = compare_tensors(worse, ref, {});
  add_top_k_agreement(worse, ref, w);
  EXPECT_DOUBLE_EQ(*w.top5, 0.5);
}

TEST(CompareMetrics, TopKWithNaNScoresRanksThemLast) {
  float nan = std::nanf("");
  Tensor ref = Tensor::from_vector<float>({0, 1, 2, 3, 4, 5, 6}, {1, 7});
  Tensor mine = Tensor::from_vector<float>({nan, 1, 2, 3, nan, 5, 6}, {1, 7});
  TensorMetrics m = compare_tensors(mine, ref, {});
  add_top_k_agreement(mine, ref, m);
  EXPECT_DOUBLE_EQ(*m.top1, 1.0);
  EXPECT_EQ(m.nonfinite_mismatches, 2);
}

TEST(CompareMetrics, ClassificationLayout) {
  EXPECT_TRUE(classification_layout(Tensor(DType::Float32, {1, 1000})));
  EXPECT_EQ(classification_layout(Tensor(DType::Float32, {4, 1, 10}))->rows, 4);
  EXPECT_FALSE(classification_layout(Tensor(DType::Float32, {1, 8, 4, 4})));  // a feature map
  EXPECT_FALSE(classification_layout(Tensor(DType::Int64, {1, 10})));
  EXPECT_FALSE(classification_layout(Tensor(DType::Float32, {1, 1})));
  // Five classes or fewer: top-5 would always agree, so only top-1 is given.
  Tensor a = Tensor::from_vector<float>({1, 2, 3}, {1, 3});
  TensorMetrics m = compare_tensors(a, a, {});
  add_top_k_agreement(a, a, m);
  EXPECT_TRUE(m.top1.has_value());
  EXPECT_FALSE(m.top5.has_value());
}

}  // namespace
}  // namespace ms::analysis
