// op_flops: the FLOPs `ms profile` reports, against counts worked out by hand. Integer convolutions
// and products count the same multiply-adds as their float forms.
#include <gtest/gtest.h>

#include "ops/op.h"
#include "ops/op_cost.h"
#include "test_util.h"

namespace ms {
namespace {

double flops(const std::string& domain, const std::string& op, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  Node n = test::make_node(op, {}, {}, "n");
  n.domain = domain;
  const OpDef* def = OpRegistry::global().find(domain, op);
  if (!def) ADD_FAILURE() << op << " is not registered";
  return def ? op_flops(n, *def, in, out) : -1;
}

// x [1,3,8,8] * W [4,3,3,3] -> y [1,4,8,8]: 256 outputs of 27 multiply-adds each.
constexpr double kConvFlops = 2.0 * 256 * 27;
// [5,8] x [8,6]: 30 outputs of 8 multiply-adds each.
constexpr double kMatMulFlops = 2.0 * 30 * 8;

TEST(OpCost, ConvolutionsFloatAndInteger) {
  const Shape x{1, 3, 8, 8}, w{4, 3, 3, 3}, y{1, 4, 8, 8};
  EXPECT_EQ(flops("", "Conv", {x, w}, {y}), kConvFlops);
  EXPECT_EQ(flops("", "ConvInteger", {x, w}, {y}), kConvFlops);
  // X, x_scale, x_zero_point, W, w_scale, w_zero_point, ...
  EXPECT_EQ(flops("", "QLinearConv", {x, {}, {}, w, {}, {}, {}, {}}, {y}), kConvFlops);
  EXPECT_EQ(flops("com.mstools", "QConvFloatOut", {x, {}, {}, w, {}, {}}, {y}), kConvFlops);
}

TEST(OpCost, MatrixProductsFloatAndInteger) {
  const Shape a{5, 8}, b{8, 6}, y{5, 6};
  EXPECT_EQ(flops("", "MatMul", {a, b}, {y}), kMatMulFlops);
  EXPECT_EQ(flops("", "MatMulInteger", {a, b}, {y}), kMatMulFlops);
  EXPECT_EQ(flops("", "QLinearMatMul", {a, {}, {}, b, {}, {}, {}, {}}, {y}), kMatMulFlops);
}

}  // namespace
}  // namespace ms
