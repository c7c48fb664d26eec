#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/graph.h"
#include "core/tensor.h"
#include "ops/kernel_util.h"

namespace ms {
namespace {

TEST(DType, HalfRoundTripsExactValues) {
  // Values exactly representable in binary16, including subnormals and limits.
  for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f, 0.333251953125f}) {
    EXPECT_EQ(float(float16_t(v)), v) << v;
  }
  EXPECT_TRUE(std::isinf(float(float16_t(1e6f))));
  EXPECT_TRUE(std::isnan(float(float16_t(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(DType, HalfRoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
  EXPECT_EQ(float(float16_t(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  // 1 + 3*2^-11 lies halfway between 1+2^-10 and 1+2^-9: ties go to 1 + 2^-9.
  EXPECT_EQ(float(float16_t(1.0f + 3 * std::ldexp(1.0f, -11))), 1.0f + std::ldexp(1.0f, -9));
}

TEST(DType, BFloat16KeepsTheHigh16Bits) {
  EXPECT_EQ(float(bfloat16_t(1.0f)), 1.0f);
  EXPECT_EQ(float(bfloat16_t(-3.0f)), -3.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: rounds to even (1.0).
  EXPECT_EQ(float(bfloat16_t(1.0f + std::ldexp(1.0f, -8))), 1.0f);
}

TEST(DType, NamesRoundTrip) {
  for (int code = 1; code <= 16; ++code) {
    if (!dtype_is_valid(code)) continue;
    DType t = static_cast<DType>(code);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_size(DType::Float16), 2u);
  EXPECT_EQ(dtype_size(DType::Int64), 8u);
}

TEST(Tensor, ReshapeSharesStorageCloneDoesNot) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.raw(), t.raw());
  Tensor c = t.clone();
  EXPECT_NE(c.raw(), t.raw());
  c.data<float>()[0] = 9;
  EXPECT_EQ(t.data<float>()[0], 1);
  EXPECT_THROW(t.reshaped({4, 2}), Error);
}

TEST(Tensor, WrongTypedAccessIsAnError) {
  Tensor t(DType::Int32, {2});
  EXPECT_THROW(t.data<float>(), Error);
  EXPECT_NO_THROW(t.data<int32_t>());
}

TEST(Tensor, NegativeDimensionIsRejected) { EXPECT_THROW(Tensor(DType::Float32, {2, -1}), Error); }

TEST(Tensor, StringTensorsHoldStrings) {
  Tensor t = Tensor::from_vector<std::string>({"a", "bc"}, {2});
  Tensor c = t.clone();
  EXPECT_EQ(c.data<std::string>()[1], "bc");
}

TEST(Broadcast, NumpyRules) {
  Node n;
  n.op_type = "Add";
  EXPECT_EQ(broadcast_shapes({{2, 1, 4}, {3, 1}}, n), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({{}, {5}}, n), (Shape{5}));
  EXPECT_THROW(broadcast_shapes({{2, 3}, {4}}, n), Error);
  // offsets of a [3,1] input broadcast to [2,3,2]: row index repeats, column stride 0.
  auto off = broadcast_offsets({3, 1}, {2, 3, 2});
  std::vector<int64_t> want = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2};
  EXPECT_EQ(off, want);
}

TEST(TypeInfo, PrintsSymbolicDims) {
  TypeInfo t = TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3), Dim{}});
  EXPECT_EQ(t.str(), "float32[N,3,?]");
  EXPECT_FALSE(t.has_static_shape());
}

}  // namespace
}  // namespace ms
