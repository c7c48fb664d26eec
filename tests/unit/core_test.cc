#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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

// float32 bits -> bfloat16 bits under round-to-nearest-even, worked out by hand from the low 16 bits
// (above 0x8000 rounds up, below down, exactly 0x8000 to the even result). The first rows are the
// inputs of ONNX's test_cast_FLOAT_to_BFLOAT16, whose 1.12 data holds the truncated bits instead.
TEST(DType, BFloat16RoundsToNearestEvenAndKeepsNaN) {
  const std::pair<uint32_t, uint16_t> cases[] = {
      {0x3ef535b8u, 0x3ef5u}, {0x3ef5eeb0u, 0x3ef6u}, {0x3effd6b2u, 0x3f00u}, {0x3f51b0e5u, 0x3f52u},
      {0x3ef0ccccu, 0x3ef1u}, {0x3f51040cu, 0x3f51u}, {0x3e57eed1u, 0x3e58u}, {0x3f391039u, 0x3f39u},
      {0xbef5eeb0u, 0xbef6u},                          // negative: magnitude rounds the same way
      {0x3f818000u, 0x3f82u}, {0x3f808000u, 0x3f80u},  // ties to the even mantissa, up and down
      {0x7f7fffffu, 0x7f80u},                          // FLT_MAX rounds to +inf
      {0x7f800000u, 0x7f80u}, {0xff800000u, 0xff80u},  // infinities unchanged
  };
  for (auto [in, want] : cases) {
    float f;
    std::memcpy(&f, &in, 4);
    EXPECT_EQ(bfloat16_t(f).bits, want) << std::hex << in;
  }
  // NaNs whose payload lies only in the dropped bits must not become infinities.
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    float f;
    std::memcpy(&f, &nan, 4);
    EXPECT_TRUE(std::isnan(float(bfloat16_t(f)))) << std::hex << nan;
  }
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
