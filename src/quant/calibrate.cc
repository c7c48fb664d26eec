#include "quant/calibrate.h"

#include <algorithm>
#include <memory>
#include <set>

namespace ms::quant {
namespace {

__attribute__((target_clones("avx512f", "avx2", "default"))) double row_sum(const float* p, int64_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += double(p[i]);
  return s;
}

// Running per-channel sums of a float tensor along `axis`.
struct ChannelMean {
  int axis = 1;
  std::vector<double> sum;
  double per_channel = 0;  // values added per channel so far
  void add(const Tensor& t) {
    const int ax = axis < 0 ? t.rank() + axis : axis;
    if (ax < 0 || ax >= t.rank()) fail("channel mean: tensor of shape {} has no axis {}", shape_str(t.shape()), axis);
    const int64_t c = t.dim(ax);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; ++d) outer *= t.dim(d);
    for (int d = ax + 1; d < t.rank(); ++d) inner *= t.dim(d);
    if (sum.empty()) sum.assign(size_t(c), 0.0);
    if (int64_t(sum.size()) != c) fail("channel mean: channel count changed between samples ({} then {})", sum.size(), c);
    const float* x = t.data<float>();
    // Rows (one channel of one outer index) in parallel, each a vectorized double sum.
    std::vector<double> row(size_t(outer * c));
#pragma omp parallel for schedule(static) if (outer * c * inner > (1 << 16))
    for (int64_t r = 0; r < outer * c; ++r) row[size_t(r)] = row_sum(x + r * inner, inner);
    for (int64_t r = 0; r < outer * c; ++r) sum[size_t(r % c)] += row[size_t(r)];
    per_channel += double(outer * inner);
  }
};

}  // namespace

CalibStats calibrate_stats(const Model& m, const std::vector<std::string>& names, const std::map<std::string, int>& mean_axes,
                           const analysis::InputSamples& samples, const CalibOptions& opts,
                           HessianCollector* hessians) {
  CalibStats stats;
  std::map<std::string, Observer> observers;
  std::map<std::string, ChannelMean> means;
  for (const auto& n : names) observers.emplace(n, Observer(opts.method, opts.percentile));
  for (const auto& [n, axis] : mean_axes) means[n].axis = axis;
  ValueWatch watch;
  for (const auto& [n, o] : observers) watch.names.insert(n);
  for (const auto& [n, mean] : means) watch.names.insert(n);
  if (hessians) watch.names.insert(hessians->names().begin(), hessians->names().end());
  if (watch.names.empty()) return stats;
  // The float model as written: the int8 rewrite of a partly quantized model could fuse a
  // calibrated tensor away.
  SessionOptions session_opts = opts.session;
  session_opts.int8_kernels = false;
  Session session(std::make_shared<const Model>(m), session_opts);
  // Each tensor is observed the moment its node produces it, while it is still in cache and in the
  // activation arena (exposing it as a graph output would keep it alive, in the plain layout, to
  // the end of the run). A tensor missing from a sample or not float32 in it is left out.
  std::set<std::string> not_float, seen;
  watch.see = [&](const std::string& name, const Tensor& t) {
    seen.insert(name);
    if (hessians) hessians->see(name, t);
    if (t.dtype() != DType::Float32) {
      not_float.insert(name);
      return;
    }
    if (not_float.count(name)) return;
    if (auto o = observers.find(name); o != observers.end()) o->second.observe(t);
    if (auto c = means.find(name); c != means.end()) c->second.add(t);
  };
  if (hessians) hessians->expect_samples(samples.count());
  for (size_t s = 0; s < samples.count(); ++s) {
    seen.clear();
    try {
      session.run(samples.sample(s), nullptr, &watch);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("calibration sample {}: {}", samples.label(s), e.what()));
    }
    for (const auto& n : watch.names)
      if (!seen.count(n)) not_float.insert(n);
    if (hessians) hessians->end_sample();
    if (opts.progress) opts.progress(s + 1, samples.count());
  }
  if (hessians) hessians->finish();  // the last queued vectors: part of calibration's cost
  for (const auto& [name, obs] : observers) {
    if (not_float.count(name) || obs.empty()) continue;
    ActivationStats a;
    a.range = obs.range();
    a.observed = obs.observed();
    a.overflow = obs.overflow(a.range);
    stats.activations[name] = a;
  }
  for (auto& [name, mean] : means) {
    if (not_float.count(name) || mean.per_channel == 0) continue;
    for (double& v : mean.sum) v /= mean.per_channel;
    stats.channel_means[name] = std::move(mean.sum);
  }
  return stats;
}

std::map<std::string, Range> calibrate(const Model& m, const std::vector<std::string>& names,
                                       const analysis::InputSamples& samples, const CalibOptions& opts) {
  std::map<std::string, Range> ranges;
  for (const auto& [n, a] : calibrate_stats(m, names, {}, samples, opts).activations) ranges[n] = a.range;
  return ranges;
}

}  // namespace ms::quant
