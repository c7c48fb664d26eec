// Shared helpers for reference kernels and inference: dtype dispatch, axes, strides, broadcasting.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/op.h"

namespace ms {

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type of `dt`. Families restrict what a kernel accepts;
// an unlisted dtype is an Unsupported error naming `what` (usually the node label).
template <class F>
decltype(auto) dispatch_all_numeric(DType dt, const std::string& what, F&& f) {
  switch (dt) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<float16_t>{});
    case DType::BFloat16: return f(TypeTag<bfloat16_t>{});
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::UInt16: return f(TypeTag<uint16_t>{});
    case DType::UInt32: return f(TypeTag<uint32_t>{});
    case DType::UInt64: return f(TypeTag<uint64_t>{});
    default: fail_unsupported("{}: dtype {} is not supported", what, dtype_name(dt));
  }
}

template <class F>
decltype(auto) dispatch_float(DType dt, const std::string& what, F&& f) {
  switch (dt) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16: return f(TypeTag<float16_t>{});
    case DType::BFloat16: return f(TypeTag<bfloat16_t>{});
    default: fail_unsupported("{}: dtype {} is not supported (float types only)", what, dtype_name(dt));
  }
}

// Numeric dtypes plus bool; plus string; integers only.
template <class F>
decltype(auto) dispatch_numeric_or_bool(DType dt, const std::string& what, F&& f) {
  if (dt == DType::Bool) return f(TypeTag<bool>{});
  return dispatch_all_numeric(dt, what, std::forward<F>(f));
}

template <class F>
decltype(auto) dispatch_any(DType dt, const std::string& what, F&& f) {
  if (dt == DType::String) return f(TypeTag<std::string>{});
  return dispatch_numeric_or_bool(dt, what, std::forward<F>(f));
}

template <class F>
decltype(auto) dispatch_integer(DType dt, const std::string& what, F&& f) {
  switch (dt) {
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::UInt16: return f(TypeTag<uint16_t>{});
    case DType::UInt32: return f(TypeTag<uint32_t>{});
    case DType::UInt64: return f(TypeTag<uint64_t>{});
    default: fail_unsupported("{}: dtype {} is not supported (integer types only)", what, dtype_name(dt));
  }
}

// Any dtype including bool and string: for data-movement ops (Gather, Concat, Transpose, ...)
// that only copy elements. Dispatches on element size so one instantiation serves many dtypes;
// strings get their own instantiation.
template <class F>
decltype(auto) dispatch_by_size(DType dt, F&& f) {
  if (dt == DType::String) return f(TypeTag<std::string>{});
  switch (dtype_size(dt)) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    default: fail_unsupported("dtype {} is not supported", dtype_name(dt));
  }
}

// Raw element pointer typed by size class (pairs with dispatch_by_size).
template <class T>
const T* raw_as(const Tensor& t) { return static_cast<const T*>(t.raw()); }
template <class T>
T* raw_as(Tensor& t) { return static_cast<T*>(t.raw()); }

// Normalises axis into [0, rank) (accepting [-rank, rank)); error names the node.
int64_t normalize_axis(int64_t axis, int64_t rank, const Node& node);
// Row-major strides (in elements).
std::vector<int64_t> strides_of(const Shape& s);
// numpy multidirectional broadcast; error names the node when incompatible.
Shape broadcast_shapes(const std::vector<Shape>& shapes, const Node& node);
// For each output index of `out`, the linear offset into an input of shape `in` broadcast to it.
// Returns a vector of size numel(out). Fine for reference kernels.
std::vector<int64_t> broadcast_offsets(const Shape& in, const Shape& out);

// Common inference functions.
void infer_same_as_input0(InferContext& ctx);  // dtype and shape of input 0
void infer_broadcast(InferContext& ctx);        // dtype of input 0, broadcast shape of all inputs
void infer_broadcast_bool(InferContext& ctx);   // comparison ops: bool, broadcast shape
std::vector<Dim> broadcast_dims(const std::vector<std::vector<Dim>>& shapes, const Node& node);

// Elementwise unary/binary kernel builders over a float functor (float-typed ops).
// f is called with double for float64 and float otherwise.
}  // namespace ms
