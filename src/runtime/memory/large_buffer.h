// Long-lived runtime buffers (prepacked weights, the activation arena).
//
// A ResNet-50 reads about 100 MB of packed weights per inference at batch 1; on 4 KiB pages that
// is ~25k TLB entries, far past the second-level TLB, so every weight panel a convolution touches
// starts with a page walk. Buffers of 1 MiB and more are therefore placed on 2 MiB boundaries and
// offered to the kernel as transparent huge pages (MADV_HUGEPAGE: THP is "madvise" on Debian).
#pragma once
#include <cstddef>
#include <memory>

namespace ms::rt {

// 64-byte aligned, uninitialised; huge-page backed where the size makes it worth it.
std::shared_ptr<void> large_buffer(size_t bytes);

}  // namespace ms::rt
