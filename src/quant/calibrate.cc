#include "quant/calibrate.h"

#include <algorithm>
#include <memory>
#include <set>

#include "analysis/tensor_capture.h"

namespace ms::quant {
namespace {

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
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < c; ++k) {
        double s = 0;
        const float* p = x + (o * c + k) * inner;
        for (int64_t i = 0; i < inner; ++i) s += p[i];
        sum[size_t(k)] += s;
      }
    per_channel += double(outer * inner);
  }
};

}  // namespace

CalibStats calibrate_stats(const Model& m, const std::vector<std::string>& names, const std::map<std::string, int>& mean_axes,
                           const analysis::InputSamples& samples, const CalibOptions& opts) {
  CalibStats stats;
  std::vector<std::string> exposed_names = names;
  for (const auto& [n, axis] : mean_axes)
    if (std::find(exposed_names.begin(), exposed_names.end(), n) == exposed_names.end()) exposed_names.push_back(n);
  if (exposed_names.empty()) return stats;
  auto exposed = std::make_shared<const Model>(analysis::expose_tensors(m, exposed_names));
  Session session(exposed, opts.session);
  std::map<std::string, size_t> index;  // tensor name -> position among the exposed model's outputs
  for (size_t i = 0; i < exposed->graph.outputs.size(); ++i) index.emplace(exposed->graph.outputs[i].name, i);
  std::map<std::string, Observer> observers;
  std::map<std::string, ChannelMean> means;
  std::set<std::string> not_float;
  for (const auto& n : names) observers.emplace(n, Observer(opts.method, opts.percentile));
  for (const auto& [n, axis] : mean_axes) means[n].axis = axis;
  for (size_t s = 0; s < samples.count(); ++s) {
    std::vector<Value> outs;
    try {
      outs = session.run(samples.sample(s));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("calibration sample {}: {}", samples.label(s), e.what()));
    }
    auto float_value = [&](const std::string& name) -> const Tensor* {
      const Value& v = outs.at(index.at(name));
      if (!v.is_tensor() || v.tensor.dtype() != DType::Float32) {
        not_float.insert(name);
        return nullptr;
      }
      return &v.tensor;
    };
    for (auto& [name, obs] : observers)
      if (const Tensor* t = float_value(name)) obs.observe(*t);
    for (auto& [name, mean] : means)
      if (const Tensor* t = float_value(name)) mean.add(*t);
    if (opts.progress) opts.progress(s + 1, samples.count());
  }
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
