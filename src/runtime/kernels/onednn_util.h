// Shared plumbing of the oneDNN kernels: the CPU engine, a stream per calling thread, plain
// (row-major) memory descriptors, and output tensors whose memory is left uninitialised (every
// kernel writes all of it, so zeroing it first would be a wasted pass over memory).
#pragma once
#include <optional>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace ms::rt {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();

dnnl::memory::dims to_dims(const Shape& s);
// The row-major format tag of a rank (a, ab, abc, ...); rank 1..6.
dnnl::memory::format_tag plain_tag(size_t rank);
// oneDNN's type for an 8-bit integer dtype (u8, s8); nullopt for any other.
std::optional<dnnl::memory::data_type> int8_data_type(DType t);
dnnl::memory::desc plain_f32_desc(const Shape& s);
// The channel-blocked layout the oneDNN kernels pass between each other (rank 4 only): channels in
// blocks of 16 (AVX-512) or 8, the last block zero-padded. Tensors in it keep their logical shape;
// their buffer holds blocked_f32_desc(shape).get_size() bytes.
dnnl::memory::desc blocked_f32_desc(const Shape& s);
// The same layout with elements of type `type` (a half-precision kernel's input).
dnnl::memory::desc blocked_desc(const Shape& s, dnnl::memory::data_type type);
// A memory object viewing a tensor's buffer (no copy).
dnnl::memory view_memory(const dnnl::memory::desc& md, const Tensor& t);

// A tensor with uninitialised, 64-byte aligned storage of `bytes` (default: its logical size).
Tensor uninit_tensor(DType dtype, Shape shape, size_t bytes = 0);

// Output i of a kernel: its planned slot in `memory` when one holds `bytes` (default: the logical
// size), else a fresh uninit_tensor.
class KernelMemory;
Tensor output_tensor(KernelMemory& memory, size_t i, DType dtype, Shape shape, size_t bytes = 0);

// A flat uint8 tensor over `bytes` bytes that `owner` keeps alive.
Tensor owned_bytes(std::shared_ptr<void> owner, size_t bytes);

// Uninitialised bytes for a oneDNN memory of descriptor `md` (temporaries of a reorder).
Tensor byte_buffer(const dnnl::memory::desc& md);

// Copies `from` (described by from_md) into `to` (to_md), converting the layout.
void reorder(const dnnl::memory::desc& from_md, const void* from, const dnnl::memory::desc& to_md, void* to);

// Constant weights reordered once into an implementation's layout, in huge-page regions the
// session's weights share (weight_buffer, runtime/memory/large_buffer.h).
struct PackedWeights {
  dnnl::memory memory;  // views `storage`
  Tensor storage;
  explicit operator bool() const { return bool(memory); }
};
PackedWeights pack_weights(const dnnl::memory::desc& from_md, const void* from, const dnnl::memory::desc& to_md);

}  // namespace ms::rt
