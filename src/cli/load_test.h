// `ms benchmark --concurrency N --duration S`: N clients send requests back to back to one shared
// Session for S seconds (a session is safe to share: a run that finds the activation arena taken
// uses heap memory, and kernels guard their per-shape plans). What a server sees: requests per
// second and the latency distribution under that load.
#pragma once
#include <vector>

#include "core/value.h"
#include "runtime/session.h"

namespace ms::cli {

struct LoadTestOptions {
  int concurrency = 1;
  double duration_s = 10;
};

struct LoadTestResult {
  size_t requests = 0;
  double seconds = 0;  // from the first request to the last completion
  double qps = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, mean_ms = 0, max_ms = 0;
};

// Runs the clients; a failed run stops the test and its error is rethrown.
LoadTestResult run_load_test(const Session& session, const std::vector<Value>& feeds, const LoadTestOptions& o);

// Each tensor feed repeated `batch` times along axis 0 (a batch of identical samples); an input
// whose declared first dimension is fixed is an error naming it.
std::vector<Value> batch_feeds(const Session& session, const std::vector<Value>& feeds, int64_t batch);

}  // namespace ms::cli
