#include "core/tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>

namespace ms {

int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) fail("negative dimension {} in shape {}", d, shape_str(s));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) fail("shape {} overflows", shape_str(s));
    n *= d;
  }
  return n;
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

namespace {
// Upper bound on one allocation: a corrupt shape must not take the machine down.
constexpr size_t kMaxTensorBytes = size_t{32} << 30;

struct AlignedBuffer {
  void* p = nullptr;
  explicit AlignedBuffer(size_t n) {
    size_t bytes = ((n + 63) / 64) * 64;
    if (bytes == 0) bytes = 64;
    p = std::aligned_alloc(64, bytes);
    if (!p) fail("out of memory allocating {} bytes", n);
    std::memset(p, 0, bytes);
  }
  ~AlignedBuffer() { std::free(p); }
};
}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  if (!dtype_is_valid(static_cast<int32_t>(dtype))) fail("invalid dtype code {}", static_cast<int>(dtype));
  int64_t n = shape_numel(shape_);
  if (dtype == DType::String) {
    auto v = std::make_shared<std::vector<std::string>>(static_cast<size_t>(n));
    data_ = v->data();
    storage_ = v;
    return;
  }
  size_t bytes = static_cast<size_t>(n) * dtype_size(dtype);
  if (n > 0 && bytes / static_cast<size_t>(n) != dtype_size(dtype)) fail("tensor size overflows");
  if (bytes > kMaxTensorBytes) fail("tensor of shape {} needs {} bytes, over the limit", shape_str(shape_), bytes);
  auto buf = std::make_shared<AlignedBuffer>(bytes);
  data_ = buf->p;
  storage_ = buf;
}

Tensor Tensor::view(DType dtype, Shape shape, const void* data, std::shared_ptr<void> keep_alive) {
  if (dtype == DType::String) fail("string tensors cannot view raw memory");
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  shape_numel(t.shape_);
  t.data_ = const_cast<void*>(data);
  t.storage_ = std::move(keep_alive);
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_numel(shape) != numel())
    fail("cannot reshape {} elements of {} into {}", numel(), shape_str(shape_), shape_str(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::bitcast(DType dtype) const {
  if (dtype_size(dtype) != dtype_size(dtype_) || dtype == DType::String || dtype_ == DType::String)
    fail("cannot reinterpret {} as {}", dtype_name(dtype_), dtype_name(dtype));
  Tensor t = *this;
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::String) {
    const auto* src = static_cast<const std::string*>(data_);
    auto* dst = static_cast<std::string*>(t.data_);
    for (int64_t i = 0; i < numel(); ++i) dst[i] = src[i];
  } else if (nbytes()) {
    std::memcpy(t.data_, data_, nbytes());
  }
  return t;
}

double Tensor::as_double(int64_t i) const {
  const void* p = data_;
  switch (dtype_) {
    case DType::Float32: return static_cast<const float*>(p)[i];
    case DType::Float64: return static_cast<const double*>(p)[i];
    case DType::Float16: return static_cast<const float16_t*>(p)[i];
    case DType::BFloat16: return static_cast<const bfloat16_t*>(p)[i];
    case DType::Int8: case DType::Int4: return static_cast<const int8_t*>(p)[i];
    case DType::Int16: return static_cast<const int16_t*>(p)[i];
    case DType::Int32: return static_cast<const int32_t*>(p)[i];
    case DType::Int64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case DType::UInt8: case DType::UInt4: return static_cast<const uint8_t*>(p)[i];
    case DType::UInt16: return static_cast<const uint16_t*>(p)[i];
    case DType::UInt32: return static_cast<const uint32_t*>(p)[i];
    case DType::UInt64: return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
    case DType::Bool: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    default: fail("tensor of {} has no numeric value", dtype_name(dtype_));
  }
}

int64_t Tensor::as_int64(int64_t i) const {
  const void* p = data_;
  switch (dtype_) {
    case DType::Int8: case DType::Int4: return static_cast<const int8_t*>(p)[i];
    case DType::Int16: return static_cast<const int16_t*>(p)[i];
    case DType::Int32: return static_cast<const int32_t*>(p)[i];
    case DType::Int64: return static_cast<const int64_t*>(p)[i];
    case DType::UInt8: case DType::UInt4: return static_cast<const uint8_t*>(p)[i];
    case DType::UInt16: return static_cast<const uint16_t*>(p)[i];
    case DType::UInt32: return static_cast<const uint32_t*>(p)[i];
    case DType::UInt64: return static_cast<int64_t>(static_cast<const uint64_t*>(p)[i]);
    case DType::Bool: return static_cast<const bool*>(p)[i] ? 1 : 0;
    default: return static_cast<int64_t>(as_double(i));
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[i] = as_int64(i);
  return v;
}

std::vector<double> Tensor::to_double_vector() const {
  std::vector<double> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[i] = as_double(i);
  return v;
}

}  // namespace ms
