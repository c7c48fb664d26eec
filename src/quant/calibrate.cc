#include "quant/calibrate.h"

#include <memory>
#include <set>

#include "analysis/tensor_capture.h"

namespace ms::quant {

std::map<std::string, Range> calibrate(const Model& m, const std::vector<std::string>& names,
                                       const analysis::InputSamples& samples, const CalibOptions& opts) {
  std::map<std::string, Range> ranges;
  if (names.empty()) return ranges;
  auto exposed = std::make_shared<const Model>(analysis::expose_tensors(m, names));
  Session session(exposed, opts.session);
  std::map<std::string, size_t> index;  // tensor name -> position among the exposed model's outputs
  for (size_t i = 0; i < exposed->graph.outputs.size(); ++i) index.emplace(exposed->graph.outputs[i].name, i);
  std::map<std::string, Observer> observers;
  std::set<std::string> not_float;
  for (const auto& n : names) observers.emplace(n, Observer(opts.method, opts.percentile));
  for (size_t s = 0; s < samples.count(); ++s) {
    std::vector<Value> outs;
    try {
      outs = session.run(samples.sample(s));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("calibration sample {}: {}", samples.label(s), e.what()));
    }
    for (auto& [name, obs] : observers) {
      const Value& v = outs.at(index.at(name));
      if (!v.is_tensor() || v.tensor.dtype() != DType::Float32) {
        not_float.insert(name);
        continue;
      }
      obs.observe(v.tensor);
    }
    if (opts.progress) opts.progress(s + 1, samples.count());
  }
  for (const auto& [name, obs] : observers)
    if (!not_float.count(name) && !obs.empty()) ranges[name] = obs.range();
  return ranges;
}

}  // namespace ms::quant
