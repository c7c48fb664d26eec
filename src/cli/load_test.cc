#include "cli/load_test.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"

namespace ms::cli {
namespace {

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

LoadTestResult run_load_test(const Session& session, const std::vector<Value>& feeds, const LoadTestOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto deadline = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.duration_s));
  std::vector<std::vector<double>> latencies(static_cast<size_t>(o.concurrency));
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mu;
  std::vector<std::thread> clients;
  for (int c = 0; c < o.concurrency; ++c)
    clients.emplace_back([&, c] {
      try {
        while (!stop.load(std::memory_order_relaxed) && clock::now() < deadline) {
          const auto t0 = clock::now();
          session.run(feeds);
          latencies[static_cast<size_t>(c)].push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
        stop = true;
      }
    });
  for (auto& t : clients) t.join();
  if (error) std::rethrow_exception(error);
  LoadTestResult r;
  r.seconds = std::chrono::duration<double>(clock::now() - start).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  r.requests = all.size();
  r.qps = r.seconds > 0 ? static_cast<double>(r.requests) / r.seconds : 0;
  r.p50_ms = percentile(all, 0.50);
  r.p90_ms = percentile(all, 0.90);
  r.p99_ms = percentile(all, 0.99);
  r.max_ms = all.empty() ? 0 : all.back();
  double sum = 0;
  for (double v : all) sum += v;
  r.mean_ms = all.empty() ? 0 : sum / static_cast<double>(all.size());
  return r;
}

std::vector<Value> batch_feeds(const Session& session, const std::vector<Value>& feeds, int64_t batch) {
  std::vector<Value> out;
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Value& v = feeds[i];
    const ValueInfo& info = session.inputs()[i];
    if (!v.is_tensor() || v.tensor.rank() == 0) {
      out.push_back(v);
      continue;
    }
    const auto& shape = info.type.shape;
    if (shape && !shape->empty() && (*shape)[0].is_static() && (*shape)[0].value != batch)
      fail("--batch {}: input '{}' has a fixed first dimension {} ({}); export the model with a dynamic batch "
           "dimension, or fix it with --inputShape",
           batch, info.name, (*shape)[0].value, info.type.str());
    const Tensor& t = v.tensor;
    if (t.dim(0) == batch) {  // random inputs made at a batch size --inputShape fixed
      out.push_back(v);
      continue;
    }
    if (t.dim(0) != 1) fail("--batch {}: input '{}' holds a batch of {} already; give one sample", batch, info.name, t.dim(0));
    if (t.dtype() == DType::String) fail("--batch: input '{}' is a string tensor", info.name);
    Shape s = t.shape();
    s[0] = batch;
    Tensor b(t.dtype(), s);
    for (int64_t k = 0; k < batch; ++k)
      std::memcpy(static_cast<char*>(b.raw()) + k * t.nbytes(), t.raw(), t.nbytes());
    out.emplace_back(b);
  }
  return out;
}

}  // namespace ms::cli
