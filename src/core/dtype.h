// Element types. The numeric values are ONNX's TensorProto.DataType codes so that the
// ONNX importer/exporter can map them directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace ms {

enum class DType : int32_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
  // 4-bit integers (ONNX IR 10): files pack two per byte; in memory each element takes one byte
  // (the value sign- or zero-extended) so that kernels index them like int8/uint8.
  UInt4 = 21,
  Int4 = 22,
};

size_t dtype_size(DType t);          // bytes per element; String reports sizeof(std::string)
std::string_view dtype_name(DType t);  // "float32", "int64", ...
DType dtype_from_name(std::string_view name);  // inverse of dtype_name; Undefined when unknown
bool dtype_is_float(DType t);    // float16/bfloat16/float32/float64
bool dtype_is_integer(DType t);  // signed or unsigned integers (not bool)
bool dtype_is_signed(DType t);
bool dtype_is_valid(int32_t code);

// IEEE half and bfloat16 stored as raw bits. Arithmetic goes through float: kernels templated
// on T write `T(float_expression)` and read `float(x)`.
struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  explicit float16_t(float f);
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, float>>>
  explicit float16_t(U v) : float16_t(static_cast<float>(v)) {}
  operator float() const;
};
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  explicit bfloat16_t(float f);
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, float>>>
  explicit bfloat16_t(U v) : bfloat16_t(static_cast<float>(v)) {}
  operator float() const;
};

float half_bits_to_float(uint16_t h);
uint16_t float_to_half_bits(float f);

template <class T>
struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Float64; };
template <> struct DTypeOf<float16_t> { static constexpr DType value = DType::Float16; };
template <> struct DTypeOf<bfloat16_t> { static constexpr DType value = DType::BFloat16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::Int16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::UInt16; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::UInt32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::UInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };

}  // namespace ms
