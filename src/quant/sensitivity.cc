#include "quant/sensitivity.h"

#include <algorithm>
#include <map>

namespace ms::quant {

std::vector<LayerSensitivity> rank_layers(const std::vector<std::string>& layers, const BuildQuantized& build,
                                          const AccuracyProbe& probe, const std::function<void(size_t, size_t)>& progress) {
  std::vector<LayerSensitivity> r;
  const std::set<std::string> all(layers.begin(), layers.end());
  for (size_t i = 0; i < layers.size(); ++i) {
    std::set<std::string> others = all;
    others.erase(layers[i]);
    r.push_back({layers[i], probe.score(build(others)).loss});
    if (progress) progress(i + 1, layers.size());
  }
  std::stable_sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.loss > b.loss; });
  return r;
}

FallbackResult fit_loss_budget(const std::vector<LayerSensitivity>& ranking, double budget, const BuildQuantized& build,
                               const AccuracyProbe& probe) {
  FallbackResult r;
  std::map<size_t, AccuracyScore> measured;  // prefix length -> score
  auto measure = [&](size_t k) -> const AccuracyScore& {
    auto it = measured.find(k);
    if (it != measured.end()) return it->second;
    std::set<std::string> keep;
    for (size_t i = 0; i < k; ++i) keep.insert(ranking[i].node);
    const AccuracyScore s = probe.score(build(keep));
    r.steps.push_back({k, s});
    return measured.emplace(k, s).first->second;
  };
  r.all_quantized = measure(0);
  size_t fit = 0;
  if (r.all_quantized.loss > budget) {
    // Grow the prefix geometrically until it fits (or everything is float), then bisect the gap.
    size_t lo = 0, hi = 0;
    bool found = false;
    for (size_t k = 1;; k = std::min(k * 2, ranking.size())) {
      if (measure(k).loss <= budget) {
        hi = k, found = true;
        break;
      }
      lo = k;
      if (k == ranking.size()) break;
    }
    if (found) {
      while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        (measure(mid).loss <= budget ? hi : lo) = mid;
      }
      fit = hi;
    } else {
      fit = ranking.size();
    }
  }
  for (size_t i = 0; i < fit; ++i) r.reverted.push_back(ranking[i].node);
  r.final_score = measure(fit);
  r.met = r.final_score.loss <= budget;
  return r;
}

}  // namespace ms::quant
