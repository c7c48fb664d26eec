// A dense tensor: dtype, shape, and shared storage. Storage either owns an aligned buffer or views
// memory that something else keeps alive (a memory-mapped weight file, a protobuf's raw_data).
// Copies of a Tensor share storage; kernels treat their inputs as read-only and allocate outputs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"

namespace ms {

using Shape = std::vector<int64_t>;

int64_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);  // "[1,3,224,224]"

class Storage {
 public:
  virtual ~Storage() = default;
  virtual void* data() = 0;
  virtual size_t size() const = 0;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates zero-initialised storage (strings are empty).
  Tensor(DType dtype, Shape shape);
  // A tensor viewing `data` (not copied); `keep_alive` owns the memory.
  static Tensor view(DType dtype, Shape shape, const void* data, std::shared_ptr<void> keep_alive);
  // A rank-0 or 1-D tensor filled from values (convenience for kernels and tests).
  template <class T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape);
  template <class T>
  static Tensor scalar(T value) { return from_vector<T>({value}, {}); }

  bool defined() const { return dtype_ != DType::Undefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[i < 0 ? i + rank() : i]; }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T>
  T* data() {
    check_type<T>();
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    check_type<T>();
    return static_cast<const T*>(data_);
  }
  // String tensors keep std::string elements: data<std::string>() is valid for DType::String.

  // Same storage, new shape (element count must match).
  Tensor reshaped(Shape shape) const;
  // Same storage and shape read as another dtype of the same element size (bit reinterpretation).
  Tensor bitcast(DType dtype) const;
  // Deep copy.
  Tensor clone() const;
  // Element i converted to double / int64 (any numeric dtype); for attributes, indices, tests.
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  // All elements as int64 (for shape/axes/indices inputs of any integer dtype).
  std::vector<int64_t> to_int64_vector() const;
  std::vector<double> to_double_vector() const;

 private:
  template <class T>
  void check_type() const;

  DType dtype_ = DType::Undefined;
  Shape shape_;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

template <class T>
void Tensor::check_type() const {
  if constexpr (std::is_same_v<T, std::string>) {
    if (dtype_ != DType::String) fail("tensor of {} accessed as string", dtype_name(dtype_));
  } else if constexpr (!std::is_same_v<T, void>) {
    if (dtype_size(dtype_) != sizeof(T) || DTypeOf<T>::value != dtype_)
      fail("tensor of {} accessed as {}", dtype_name(dtype_), dtype_name(DTypeOf<T>::value));
  }
}

template <class T>
Tensor Tensor::from_vector(const std::vector<T>& values, Shape shape) {
  DType dt;
  if constexpr (std::is_same_v<T, std::string>)
    dt = DType::String;
  else
    dt = DTypeOf<T>::value;
  Tensor t(dt, std::move(shape));
  if (static_cast<size_t>(t.numel()) != values.size())
    fail("from_vector: {} values for shape {}", values.size(), shape_str(t.shape()));
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace ms
