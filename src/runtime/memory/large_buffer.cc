#include "runtime/memory/large_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace ms::rt {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Below this the rounding to whole huge pages would cost more resident memory than it saves.
constexpr size_t kHugeFrom = size_t{1} << 20;

}  // namespace

std::shared_ptr<void> large_buffer(size_t bytes) {
  const bool huge = bytes >= kHugeFrom;
  const size_t align = huge ? kHugePage : 64;
  const size_t rounded = bytes ? (bytes + align - 1) / align * align : align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
  if (huge) ::madvise(p, rounded, MADV_HUGEPAGE);  // advisory: without THP the buffer still works
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace ms::rt
