// ms benchmark: latency of repeated inference (min/median/mean/p99), peak memory, load and
// optimize time, the share of the run on reference kernels, and optionally the accuracy of the
// outputs against reference files (mean relative error in percent, exit 1 above
// --accuracyThreshold), a per-op time table (--timeProfiling), a load test (--concurrency,
// --duration) and batched throughput (--batch).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <iostream>

#include <nlohmann/json.hpp>

#include "analysis/profile.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/feeds.h"
#include "cli/load_test.h"
#include "cli/session_model.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"

namespace ms::cli {
namespace {

struct Latency {
  double min_ms = 0, median_ms = 0, mean_ms = 0, p99_ms = 0, max_ms = 0;
};

Latency summarize(std::vector<double> ms) {
  Latency l;
  if (ms.empty()) return l;
  std::sort(ms.begin(), ms.end());
  l.min_ms = ms.front();
  l.max_ms = ms.back();
  const size_t n = ms.size();
  l.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  double sum = 0;
  for (double v : ms) sum += v;
  l.mean_ms = sum / static_cast<double>(n);
  // Nearest-rank percentile: the smallest sample with at least 99% of samples at or below it.
  l.p99_ms = ms[static_cast<size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1];
  return l;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

// Mean over elements of |out - ref| / |ref| in percent; where |ref| is below 1e-6 the absolute
// error counts instead, so exact zeros in the reference do not divide by zero.
double mean_relative_error_pct(const Tensor& out, const Tensor& ref, const std::string& what) {
  if (out.shape() != ref.shape())
    fail("{}: the model's output has shape {} but the reference file has {}", what, shape_str(out.shape()),
         shape_str(ref.shape()));
  const auto o = out.to_double_vector(), r = ref.to_double_vector();
  if (o.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    const double err = std::abs(o[i] - r[i]);
    sum += std::abs(r[i]) > 1e-6 ? err / std::abs(r[i]) : err;
  }
  return 100.0 * sum / static_cast<double>(o.size());
}

// Above this share of the op time on reference kernels the latency says more about the fallback
// than about the model, and the user is told so.
constexpr double kReferenceShareWarning = 0.05;

}  // namespace

int cmd_benchmark(const Args& args) {
  CLI::App app("Latency and peak memory of repeated inference; optional accuracy check against reference outputs",
               "benchmark");
  std::string model_file, in_data, ref_files, format = "text";
  SessionModelFlags model_flags;
  int loops = 100, warmup = 10, concurrency = 0;
  int64_t batch = 1;
  double duration = 10;
  double threshold = 0.5;
  bool time_profiling = false;
  SessionOptions opts;
  opts.num_threads = 2;
  app.add_option("--modelFile", model_file, "model to run (.onnx, .mindir)")->required();
  app.add_option("--inDataFile", in_data, "input files (.pb, .npy, .bin), comma-separated; default: seeded random inputs");
  add_session_model_flags(app, model_flags);
  app.add_option("--benchmarkDataFile", ref_files, "reference output files, comma-separated, in graph output order");
  app.add_option("--accuracyThreshold", threshold, "largest mean relative error in percent (default 0.5)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--loopCount", loops, "timed runs (default 100)")->check(CLI::Range(1, 1000000));
  app.add_option("--warmUpLoopCount", warmup, "untimed runs first (default 10)")->check(CLI::Range(0, 1000000));
  app.add_option("--numThreads", opts.num_threads, "threads (default 2)")->check(CLI::Range(1, 1024));
  app.add_option("--concurrency", concurrency,
                 "load test after the timed runs: N requests in flight on one shared session; QPS and p50/p90/p99")
      ->check(CLI::Range(1, 1024));
  app.add_option("--duration", duration, "seconds the load test runs (default 10)")->check(CLI::Range(0.001, 86400.0));
  app.add_option("--batch", batch, "repeat each one-sample input B times along axis 0 (throughput per sample)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_flag("--timeProfiling", time_profiling, "also print per-op and per-op-type time, share, FLOPs, GFLOP/s");
  app.add_flag("--reference", opts.reference_kernels, "run only the reference kernels (the oracle)");
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return run_command(app, args, [&] {
    const SessionModel prepared = load_session_model(model_file, model_flags, opts.reference_kernels ? "none" : "cpu");
    use_compute_precision(prepared, opts);
    const auto session_start = std::chrono::steady_clock::now();
    Session session(prepared.model, opts);
    const double session_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - session_start).count();
    auto feeds = read_feeds(session, in_data);
    if (batch > 1) feeds = batch_feeds(session, feeds, batch);
    if (app.count("--duration") && !concurrency) fail("--duration sets the length of the load test: give --concurrency N");
    std::vector<Tensor> refs;
    const auto ref_list = split_list(ref_files);
    if (!ref_list.empty()) {
      if (ref_list.size() != session.outputs().size())
        fail("the model has {} outputs but --benchmarkDataFile gives {} files", session.outputs().size(), ref_list.size());
      for (size_t i = 0; i < ref_list.size(); ++i) {
        Value v = io::read_tensor_file(ref_list[i], session.outputs()[i].type, session.outputs()[i].name);
        if (!v.is_tensor()) fail("{}: a reference output must be a tensor", ref_list[i]);
        refs.push_back(v.tensor);
      }
    }
    std::vector<Value> outputs;
    for (int i = 0; i < warmup; ++i) outputs = session.run(feeds);
    std::vector<double> times;
    std::vector<RunProfile> profiles;
    for (int i = 0; i < loops; ++i) {
      RunProfile prof;
      const auto t0 = std::chrono::steady_clock::now();
      outputs = session.run(feeds, time_profiling ? &prof : nullptr);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (time_profiling) profiles.push_back(std::move(prof));
    }
    const Latency lat = summarize(times);
    // Where the time goes, kernel by kernel: the timed runs' profiles, else a tenth as many runs
    // more, profiled (profiling costs a clock read per node, so the timed runs stay unprofiled;
    // several runs, because one run of a sub-millisecond model is mostly noise).
    if (profiles.empty())
      for (int i = 0; i < std::clamp(loops / 10, 1, 10); ++i) {
        profiles.emplace_back();
        session.run(feeds, &profiles.back());
      }
    const ProfileSummary prof = summarize_profile(session.model(), profiles);  // the graph it ran (int8 rewrite)
    std::optional<LoadTestResult> load;
    if (concurrency) load = run_load_test(session, feeds, {concurrency, duration});
    nlohmann::json j = {{"model", model_file}, {"threads", opts.num_threads}, {"loops", loops}, {"warmup_loops", warmup},
                        {"min_ms", lat.min_ms}, {"median_ms", lat.median_ms}, {"mean_ms", lat.mean_ms},
                        {"p99_ms", lat.p99_ms}, {"max_ms", lat.max_ms}, {"peak_rss_mb", peak_rss_mb()},
                        {"arena_mb", static_cast<double>(session.arena_bytes()) / (1024.0 * 1024.0)},
                        {"kernels", opts.reference_kernels ? "reference" : "fast"}, {"optimize", prepared.level},
                        {"precision", dtype_name(opts.compute_precision)},
                        {"load_ms", prepared.load_ms}, {"optimize_ms", prepared.optimize_ms},
                        {"session_create_ms", session_ms}, {"reference_kernel_share", prof.reference_share}};
    if (batch > 1) {
      j["batch"] = batch;
      j["samples_per_s"] = lat.median_ms > 0 ? 1000.0 * static_cast<double>(batch) / lat.median_ms : 0.0;
    }
    if (load)
      j["load_test"] = {{"concurrency", concurrency}, {"session", "one shared session"}, {"duration_s", load->seconds},
                        {"requests", load->requests}, {"qps", load->qps},
                        {"samples_per_s", load->qps * static_cast<double>(batch)}, {"p50_ms", load->p50_ms},
                        {"p90_ms", load->p90_ms}, {"p99_ms", load->p99_ms}, {"mean_ms", load->mean_ms},
                        {"max_ms", load->max_ms}, {"peak_rss_mb", peak_rss_mb()}};
    bool accuracy_ok = true;
    if (!refs.empty()) {
      double total = 0;
      for (size_t i = 0; i < refs.size(); ++i) {
        if (!outputs[i].is_tensor()) fail("output {} is not a tensor", i);
        const double e = mean_relative_error_pct(outputs[i].tensor, refs[i], ref_list[i]);
        j["outputs"].push_back({{"name", session.outputs()[i].name}, {"mean_relative_error_pct", e}});
        total += e;
      }
      const double mean = total / static_cast<double>(refs.size());
      accuracy_ok = mean <= threshold;
      j["mean_relative_error_pct"] = mean;
      j["accuracy_threshold_pct"] = threshold;
      j["accuracy_ok"] = accuracy_ok;
    }
    if (format == "json") {
      if (time_profiling) j["profile"] = profile_json(prof);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("{}: {} loops ({} warm-up), {} thread(s), {} kernels\n", model_file, loops, warmup,
                               opts.num_threads, opts.reference_kernels ? "reference" : "fast");
      std::cout << fmt::format("latency ms: min {:.3f}  median {:.3f}  mean {:.3f}  p99 {:.3f}  max {:.3f}\n", lat.min_ms,
                               lat.median_ms, lat.mean_ms, lat.p99_ms, lat.max_ms);
      std::cout << session_model_summary(prepared) << fmt::format(", session {:.1f} ms\n", session_ms);
      std::cout << fmt::format("reference kernels: {:.1f}% of the op time ({} nodes)\n", 100 * prof.reference_share,
                               prof.reference_nodes);
      std::cout << fmt::format("peak memory (RSS): {:.1f} MB; activation arena {:.1f} MB\n", peak_rss_mb(),
                               static_cast<double>(session.arena_bytes()) / (1024.0 * 1024.0));
      if (!refs.empty())
        for (const auto& o : j["outputs"])
          std::cout << fmt::format("output '{}': mean relative error {:.6f}%\n", o["name"].get<std::string>(),
                                   o["mean_relative_error_pct"].get<double>());
      if (!refs.empty())
        std::cout << fmt::format("accuracy: mean relative error {:.6f}% {} threshold {}%\n",
                                 j["mean_relative_error_pct"].get<double>(), accuracy_ok ? "<=" : ">", threshold);
      if (batch > 1)
        std::cout << fmt::format("batch {}: {:.1f} samples/s at the median latency\n", batch, j["samples_per_s"].get<double>());
      if (load)
        std::cout << fmt::format("load test: {} requests in flight on one shared session, {:.1f} s: {} requests, "
                                 "{:.1f} QPS{}; latency ms p50 {:.3f}  p90 {:.3f}  p99 {:.3f}  max {:.3f}; peak RSS {:.1f} MB\n",
                                 concurrency, load->seconds, load->requests, load->qps,
                                 batch > 1 ? fmt::format(" ({:.1f} samples/s)", load->qps * static_cast<double>(batch)) : "",
                                 load->p50_ms, load->p90_ms, load->p99_ms, load->max_ms, peak_rss_mb());
      if (time_profiling) std::cout << "\n" << profile_text(prof, 30);
    }
    if (!opts.reference_kernels && prof.reference_share > kReferenceShareWarning)
      std::cerr << fmt::format("ms benchmark: warning: {:.1f}% of the run is on reference kernels (unoptimized C++); "
                               "`ms profile` lists the nodes marked \"reference\"\n",
                               100 * prof.reference_share);
    return accuracy_ok ? 0 : 1;
  });
}

}  // namespace ms::cli
