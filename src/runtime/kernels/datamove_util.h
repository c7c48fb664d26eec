// Shared by the data-movement fast kernels (Transpose, Concat, Slice, Gather): they move elements
// without looking at them, so they work on any fixed-size dtype by its byte size. String tensors
// (elements are std::string objects, not bytes) stay on the reference kernels.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/tensor.h"

namespace ms::rt {

// True when the kernel can move elements of `dt` as raw bytes.
inline bool movable_dtype(DType dt) { return dt != DType::String && dt != DType::Undefined; }

// Calls f(T{}) with an unsigned integer T of `esize` bytes, so per-element loops are typed; returns
// false for other sizes (none today; the caller then copies with memcpy).
template <class F>
bool dispatch_elem_size(size_t esize, F&& f) {
  switch (esize) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    default: return false;
  }
}

// Copies `count` elements of `esize` bytes, src stepping `src_stride` elements, dst contiguous.
inline void strided_gather(unsigned char* dst, const unsigned char* src, int64_t count, int64_t src_stride, size_t esize) {
  if (src_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(count) * esize);
    return;
  }
  // Copied into locals: byte stores may alias anything, so values read through the lambda object
  // would be reloaded on every element.
  const bool typed = dispatch_elem_size(esize, [dst, src, count, src_stride](auto tag) {
    using T = decltype(tag);
    T* d = reinterpret_cast<T*>(dst);
    const unsigned char* s = src;
    const int64_t n = count, stride = static_cast<int64_t>(sizeof(T)) * src_stride;
    for (int64_t i = 0; i < n; ++i, s += stride) {
      T v;
      std::memcpy(&v, s, sizeof(T));
      d[i] = v;
    }
  });
  if (!typed)
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(dst + static_cast<size_t>(i) * esize, src + static_cast<size_t>(i * src_stride) * esize, esize);
}

}  // namespace ms::rt
