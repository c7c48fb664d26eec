#include "runtime/kernels/onednn_autotune.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/memory/large_buffer.h"

namespace ms::rt {
namespace {

constexpr int kRounds = 4;  // the first round also warms caches and JIT code

bool autotune_enabled() {
  const char* v = std::getenv("MS_AUTOTUNE");
  return !(v && std::strcmp(v, "0") == 0);
}

// In a model the weights of a layer were pushed out of the core's caches by the other layers'
// since its last run; timed back to back they would stay cached, which flatters the
// implementations with larger (Winograd-transformed) weights. Writing a buffer a few times the
// size of a core's L2 cache before each run puts every candidate in the model's situation.
constexpr size_t kEvictBytes = size_t(16) << 20;
void evict_core_caches(char* buffer) {
  static char value = 0;
  std::memset(buffer, ++value, kEvictBytes);
}

std::mutex forced_mu;
std::string forced_impl;

}  // namespace

void force_implementation(const std::string& impl) {
  std::lock_guard<std::mutex> lock(forced_mu);
  forced_impl = impl;
}

size_t fastest_candidate(const std::string& key, const std::vector<TimedCandidate>& candidates) {
  {
    std::lock_guard<std::mutex> lock(forced_mu);
    if (!forced_impl.empty()) {
      for (size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i].impl.find(forced_impl) != std::string::npos) return i;
      return 0;
    }
  }
  if (candidates.size() < 2 || !autotune_enabled()) return 0;
  static std::mutex mu;
  static std::map<std::string, size_t> decided;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = decided.find(key); it != decided.end() && it->second < candidates.size()) return it->second;
  }
  std::vector<double> best(candidates.size(), std::numeric_limits<double>::infinity());
  {
    // Mapped for this tuning only: a static buffer would stay resident.
    const std::shared_ptr<void> evict = mapped_buffer(kEvictBytes);
    for (int round = 0; round < kRounds; ++round)
      for (size_t i = 0; i < candidates.size(); ++i) {
        evict_core_caches(static_cast<char*>(evict.get()));
        const auto t0 = std::chrono::steady_clock::now();
        candidates[i].run();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (round > 0) best[i] = std::min(best[i], ms);
      }
  }
  const size_t pick = std::min_element(best.begin(), best.end()) - best.begin();
  std::lock_guard<std::mutex> lock(mu);
  decided[key] = pick;
  return pick;
}

}  // namespace ms::rt
