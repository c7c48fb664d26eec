#include "runtime/kernels/onednn_util.h"

#include <cstdlib>
#include <new>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/memory/large_buffer.h"

namespace ms::rt {

dnnl::engine& cpu_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& cpu_stream() {
  // oneDNN streams are not meant to be shared between threads that submit concurrently.
  thread_local dnnl::stream s(cpu_engine());
  return s;
}

dnnl::memory::dims to_dims(const Shape& s) { return dnnl::memory::dims(s.begin(), s.end()); }

std::optional<dnnl::memory::data_type> int8_data_type(DType t) {
  if (t == DType::UInt8) return dnnl::memory::data_type::u8;
  if (t == DType::Int8) return dnnl::memory::data_type::s8;
  return std::nullopt;
}

dnnl::memory::format_tag plain_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  switch (rank) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return tag::abc;
    case 4: return tag::abcd;
    case 5: return tag::abcde;
    case 6: return tag::abcdef;
    default: fail("internal: no plain oneDNN layout for rank {}", rank);
  }
}

dnnl::memory::desc plain_f32_desc(const Shape& s) {
  return dnnl::memory::desc(to_dims(s), dnnl::memory::data_type::f32, plain_tag(s.size()));
}

dnnl::memory view_memory(const dnnl::memory::desc& md, const Tensor& t) {
  return dnnl::memory(md, cpu_engine(), const_cast<void*>(t.raw()));
}

dnnl::memory::desc blocked_f32_desc(const Shape& s) { return blocked_desc(s, dnnl::memory::data_type::f32); }

dnnl::memory::desc blocked_desc(const Shape& s, dnnl::memory::data_type type) {
  if (s.size() != 4) fail("internal: the blocked layout is for rank-4 tensors, not {}", shape_str(s));
  static const bool wide = __builtin_cpu_supports("avx512f");
  using tag = dnnl::memory::format_tag;
  return dnnl::memory::desc(to_dims(s), type, wide ? tag::nChw16c : tag::nChw8c);
}

void reorder(const dnnl::memory::desc& from_md, const void* from, const dnnl::memory::desc& to_md, void* to) {
  dnnl::memory src(from_md, cpu_engine(), const_cast<void*>(from)), dst(to_md, cpu_engine(), to);
  dnnl::reorder(src, dst).execute(cpu_stream(), src, dst);
  cpu_stream().wait();
}

PackedWeights pack_weights(const dnnl::memory::desc& from_md, const void* from, const dnnl::memory::desc& to_md) {
  PackedWeights packed;
  packed.storage = owned_bytes(weight_buffer(to_md.get_size()), to_md.get_size());
  packed.memory = view_memory(to_md, packed.storage);
  reorder(from_md, from, to_md, packed.storage.raw());
  return packed;
}

Tensor byte_buffer(const dnnl::memory::desc& md) {
  return uninit_tensor(DType::UInt8, {static_cast<int64_t>(md.get_size())});
}

Tensor owned_bytes(std::shared_ptr<void> owner, size_t bytes) {
  void* p = owner.get();
  return Tensor::view(DType::UInt8, {static_cast<int64_t>(bytes)}, p, std::move(owner));
}

// Per-run temporaries and outputs: small ones from the heap, where glibc reuses freed blocks from
// run to run, large ones from the pool of recycled regions (large_buffer.h).
Tensor uninit_tensor(DType dtype, Shape shape, size_t bytes) {
  if (!bytes) bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  std::shared_ptr<void> owner = recycled_buffer((bytes + 63) / 64 * 64);
  void* p = owner.get();
  return Tensor::view(dtype, std::move(shape), p, std::move(owner));
}

Tensor output_tensor(KernelMemory& memory, size_t i, DType dtype, Shape shape, size_t bytes) {
  if (!bytes) bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  Tensor t = memory.output(i, dtype, shape, bytes);
  return t.defined() ? t : uninit_tensor(dtype, std::move(shape), bytes);
}

}  // namespace ms::rt
