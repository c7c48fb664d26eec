#include "quant/calibrate.h"

#include <algorithm>
#include <memory>
#include <set>

#include "passes/pipelines.h"

namespace ms::quant {
namespace {

__attribute__((target_clones("avx512f", "avx2", "default"))) double row_sum(const float* p, int64_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += double(p[i]);
  return s;
}

// sum[j] += the `n` values at p[i * block + j], for each lane j < block: one channel block of a
// blocked tensor (lanes are channels, i runs over positions).
__attribute__((target_clones("avx512f", "avx2", "default"))) void lane_sums(const float* __restrict p, int64_t n, int64_t block,
                                                                            double* __restrict sum) {
  for (int64_t i = 0; i < n; ++i)
#pragma omp simd
    for (int64_t j = 0; j < block; ++j) sum[j] += double(p[i * block + j]);
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
  // t [N, C, H, W] in the channel-blocked layout (channels in blocks of `block`, the last one
  // zero-padded), axis 1: the same sums as add() of its plain copy, up to the order of the additions.
  void add_blocked(const Tensor& t, int block) {
    const int64_t n = t.dim(0), c = t.dim(1), plane = t.dim(2) * t.dim(3), blocks = (c + block - 1) / block;
    if (sum.empty()) sum.assign(size_t(c), 0.0);
    if (int64_t(sum.size()) != c) fail("channel mean: channel count changed between samples ({} then {})", sum.size(), c);
    std::vector<double> lanes(size_t(n * blocks * block), 0.0);
    const float* x = t.data<float>();
#pragma omp parallel for schedule(static) if (n * blocks * plane * block > (1 << 16))
    for (int64_t r = 0; r < n * blocks; ++r) lane_sums(x + r * plane * block, plane, block, lanes.data() + r * block);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t ch = 0; ch < c; ++ch) sum[size_t(ch)] += lanes[size_t((i * blocks + ch / block) * block + ch % block)];
    per_channel += double(n * plane);
  }
};

// Every value a graph of m (main graph or body) takes as input or produces.
std::set<std::string> produced_values(const Model& m) {
  std::set<std::string> r;
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& v : g.inputs) r.insert(v.name);
    for (const auto& n : g.nodes) r.insert(n.outputs.begin(), n.outputs.end());
  });
  return r;
}

}  // namespace

std::shared_ptr<const Model> fused_for_calibration(const Model& m, const std::set<std::string>& watched) {
  auto as_written = std::make_shared<const Model>(m);
  Model fused = m;
  passes::OptimizeOptions o;
  for (const auto& name : passes::all_pass_names())
    if (name != "fuse_activation") o.disabled.insert(name);
  try {
    if (passes::optimize_model(fused, o).failed_pass.size()) return as_written;
  } catch (const Error&) {
    return as_written;
  }
  const std::set<std::string> before = produced_values(m), after = produced_values(fused);
  for (const auto& name : watched)
    if (before.count(name) && !after.count(name)) return as_written;
  return std::make_shared<const Model>(std::move(fused));
}

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
  // The float model with activations and residual adds fused into their convolutions and matrix
  // products, as `ms benchmark` runs it: an unfused Relu between two convolutions makes both run on
  // the plain layout, not the channel-blocked one (about twice the time on a ResNet). Only when every
  // watched value survives the fusion; else the model as written. Not the int8 rewrite of a partly
  // quantized model either: it could fuse a calibrated tensor away.
  SessionOptions session_opts = opts.session;
  session_opts.int8_kernels = false;
  Session session(fused_for_calibration(m, watch.names), session_opts);
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
  // Values that travel channel-blocked are read so where every reader can (channel means over axis
  // 1, convolution windows): no reorder to the plain layout. Observers take them plain.
  for (const auto& n : watch.names) {
    if (observers.count(n)) continue;
    if (auto c = means.find(n); c != means.end() && c->second.axis != 1) continue;
    if (hessians && hessians->names().count(n) && !hessians->reads_blocked(n)) continue;
    watch.blocked_names.insert(n);
  }
  watch.see_blocked = [&](const std::string& name, const Tensor& t, int block) {
    seen.insert(name);
    if (hessians) hessians->see_blocked(name, t, block);
    if (not_float.count(name)) return;
    if (auto c = means.find(name); c != means.end()) c->second.add_blocked(t, block);
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
