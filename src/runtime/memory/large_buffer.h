// Long-lived runtime buffers: the activation arena and prepacked weights.
//
// A ResNet-50 reads about 100 MB of packed weights per inference at batch 1; on 4 KiB pages that
// is ~25k TLB entries, far past the second-level TLB, so every weight panel a convolution touches
// starts with a page walk. Large buffers are therefore placed on 2 MiB boundaries and offered to
// the kernel as transparent huge pages (MADV_HUGEPAGE: THP is "madvise" on Debian). Packed weights
// are carved one after another out of shared 16 MiB regions, so that rounding each to whole huge
// pages does not add up to tens of MB of resident memory.
#pragma once
#include <cstddef>
#include <memory>

namespace ms::rt {

// 64-byte aligned, uninitialised; on huge pages from 1 MiB up (rounded up to whole huge pages).
std::shared_ptr<void> large_buffer(size_t bytes);

// 64-byte aligned, uninitialised storage for constant data kept as long as a session (packed
// weights): a slice of a shared huge-page region, which lives while any slice of it does.
std::shared_ptr<void> weight_buffer(size_t bytes);

// 64-byte aligned, uninitialised storage for a buffer that lives for one run (a kernel's output off
// the arena, a graph output). From 1 MiB up it is a huge-page region kept for reuse when freed:
// glibc maps blocks this large afresh on every allocation and unmaps them on free, so each run
// faulted its outputs in again page by page (IS-Net at 1024x1024: about 45k page faults a run, at
// about 10 us each in a VM, a fifth of the run). Freed regions wait in a process-wide pool of at
// most kRecycledBytes for an allocation of about their size, as ONNX Runtime's arena keeps its own.
std::shared_ptr<void> recycled_buffer(size_t bytes);

// Page-aligned, zero-filled, mapped on its own: its memory goes back to the system as soon as it is
// freed, where glibc keeps freed heap blocks resident (for big short-lived buffers).
std::shared_ptr<void> mapped_buffer(size_t bytes);

}  // namespace ms::rt
