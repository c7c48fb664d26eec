#include "runtime/kernels/parallel.h"

#include <omp.h>

#include <algorithm>

namespace ms::rt {

void parallel_chunks(int64_t n, const std::function<void(int64_t, int64_t)>& f, int64_t cost_per_item) {
  // Below ~32K elements a fork/join costs more than it saves.
  constexpr int64_t kMinWorkPerThread = 1 << 15;
  const int64_t work = n * std::max<int64_t>(cost_per_item, 1);
  const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), std::max<int64_t>(1, work / kMinWorkPerThread)));
  if (threads <= 1 || n < 2) {
    if (n > 0) f(0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    if (begin < end) f(begin, end);
  }
}

int max_threads() { return omp_get_max_threads(); }

void parallel_team(int threads, const std::function<void(int, int)>& f) {
  threads = std::max(1, std::min(threads, omp_get_max_threads()));
  if (threads == 1) {
    f(0, 1);
    return;
  }
#pragma omp parallel num_threads(threads)
  f(omp_get_thread_num(), omp_get_num_threads());
}

void team_barrier() {
#pragma omp barrier
}

}  // namespace ms::rt
