// The one threading runtime of the fast kernels: OpenMP, which oneDNN (built with OMP here) uses
// too, so both share one thread pool sized by SessionOptions::num_threads.
#pragma once
#include <cstdint>
#include <functional>

namespace ms::rt {

// Calls f(begin, end) on disjoint chunks covering [0, n), spread over the threads. `cost_per_item`
// (roughly, elements touched per item) keeps small jobs on the calling thread.
void parallel_chunks(int64_t n, const std::function<void(int64_t, int64_t)>& f, int64_t cost_per_item = 1);

// Threads the runtime may use (SessionOptions::num_threads).
int max_threads();

// Calls f(thread, threads) once on each of `threads` threads (at most max_threads()), for kernels
// whose threads advance in lockstep and meet at team_barrier() between dependent phases.
void parallel_team(int threads, const std::function<void(int, int)>& f);
// Inside parallel_team: waits until every thread of the team has reached it.
void team_barrier();

}  // namespace ms::rt
