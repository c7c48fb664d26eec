#include "runtime/memory/large_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <mutex>
#include <new>

namespace ms::rt {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Below this the rounding to whole huge pages would cost more resident memory than it saves.
constexpr size_t kHugeFrom = size_t{1} << 20;
constexpr size_t kRegion = size_t{16} << 20;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Mapped, not malloc'ed: unmapping gives the pages back at once, where glibc would keep freed
// blocks of this size in its heap (the autotuner's timing buffers stayed resident that way).
std::shared_ptr<char> mapped_region(size_t bytes, bool huge) {
  if (!huge) {
    const size_t rounded = round_up(std::max<size_t>(bytes, 1), 4096);
    void* p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return std::shared_ptr<char>(static_cast<char*>(p), [rounded](char* q) { ::munmap(q, rounded); });
  }
  const size_t rounded = round_up(bytes, kHugePage);
  // Over-map by one huge page and trim, so that the region starts on a huge-page boundary.
  void* raw = ::mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = round_up(base, kHugePage);
  if (start > base) ::munmap(raw, start - base);
  if (const size_t tail = kHugePage - (start - base)) ::munmap(reinterpret_cast<void*>(start + rounded), tail);
  ::madvise(reinterpret_cast<void*>(start), rounded, MADV_HUGEPAGE);  // advisory: without THP it still works
  return std::shared_ptr<char>(reinterpret_cast<char*>(start), [rounded](char* q) { ::munmap(q, rounded); });
}

}  // namespace

std::shared_ptr<void> large_buffer(size_t bytes) {
  if (bytes >= kHugeFrom) return mapped_region(bytes, true);
  void* p = std::aligned_alloc(64, bytes ? round_up(bytes, 64) : 64);
  if (!p) throw std::bad_alloc();
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

namespace {

// Freed run buffers by size (whole huge pages), most recently freed first; over the cap the
// least recently freed are unmapped.
constexpr size_t kRecycledBytes = size_t{1} << 30;

class RecyclePool {
 public:
  std::shared_ptr<void> get(size_t bytes) {
    const size_t rounded = round_up(bytes, kHugePage);
    std::shared_ptr<char> region;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // The smallest free region that fits without wasting more than a quarter of itself.
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->bytes >= rounded && it->bytes <= rounded + rounded / 4 && (best == free_.end() || it->bytes < best->bytes))
          best = it;
      if (best != free_.end()) {
        region = std::move(best->region);
        cached_ -= best->bytes;
        free_.erase(best);
      }
    }
    if (!region) region = mapped_region(rounded, true);
    const size_t size = region ? rounded : 0;
    char* p = region.get();
    // The returned pointer's deleter hands the region back instead of unmapping it.
    return std::shared_ptr<void>(p, [this, region = std::move(region), size](void*) mutable { put(std::move(region), size); });
  }

 private:
  struct Free {
    std::shared_ptr<char> region;
    size_t bytes;
  };
  void put(std::shared_ptr<char> region, size_t bytes) {
    std::list<Free> evicted;  // unmapped outside the lock
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_front({std::move(region), bytes});
    cached_ += bytes;
    while (cached_ > kRecycledBytes) {
      cached_ -= free_.back().bytes;
      evicted.splice(evicted.end(), free_, std::prev(free_.end()));
    }
  }
  std::mutex mu_;
  std::list<Free> free_;
  size_t cached_ = 0;
};

}  // namespace

std::shared_ptr<void> recycled_buffer(size_t bytes) {
  if (bytes < kHugeFrom) return large_buffer(bytes);
  static RecyclePool* pool = new RecyclePool;  // never destroyed: buffers may outlive static teardown
  return pool->get(bytes);
}

std::shared_ptr<void> mapped_buffer(size_t bytes) { return mapped_region(bytes, bytes >= kHugeFrom); }

std::shared_ptr<void> weight_buffer(size_t bytes) {
  bytes = bytes ? round_up(bytes, 64) : 64;
  if (bytes > kRegion / 4) return mapped_region(bytes, true);
  static std::mutex mu;
  static std::weak_ptr<char> current;  // weak: a region dies with its last slice
  static size_t used = 0;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<char> region = current.lock();
  if (!region || used + bytes > kRegion) {
    region = mapped_region(kRegion, true);
    current = region;
    used = 0;
  }
  char* p = region.get() + used;
  used += bytes;
  return std::shared_ptr<void>(region, p);  // shares ownership of the whole region
}

}  // namespace ms::rt
