#include "quant/bias_correction.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ms::quant {
namespace {

bool correctable(const Graph& g, const Node& n, const QuantWeightSpec& s) {
  if (s.bias_input < 0 || s.reduce_axis < 0 || s.activation_channel_axis < 0 || s.bias_scale == 0) return false;
  if (n.inputs.empty() || n.inputs[0].empty() || g.initializers.count(n.inputs[0])) return false;
  if (int(n.inputs.size()) > s.bias_input && !n.inputs[s.bias_input].empty()) {
    auto b = g.initializers.find(n.inputs[s.bias_input]);
    if (b == g.initializers.end() || b->second.dtype() != DType::Float32) return false;  // computed bias: leave it
  }
  return true;
}

}  // namespace

std::map<std::string, int> bias_correction_inputs(const Model& m, const QuantOptions& opts) {
  std::map<std::string, int> r;
  for (const auto& site : weight_sites(m, opts)) {
    const Node& n = m.graph.nodes[site.node];
    if (correctable(m.graph, n, site.spec)) r.emplace(n.inputs[0], site.spec.activation_channel_axis);
  }
  return r;
}

std::set<std::string> bias_corrected_weights(const Model& m, const QuantOptions& opts) {
  std::set<std::string> r;
  for (const auto& site : weight_sites(m, opts))
    if (correctable(m.graph, m.graph.nodes[site.node], site.spec)) r.insert(weight_content_key(m.graph.initializers.at(site.weight)));
  return r;
}

std::vector<double> expected_output_shift(const Tensor& w, const Tensor& wq, const QuantWeightSpec& spec,
                                          const std::vector<double>& input_mean) {
  const int out_axis = spec.channel_axis, red_axis = spec.reduce_axis;
  const int64_t outs = w.dim(out_axis), reduce = w.dim(red_axis);
  const int groups = std::max(1, spec.groups);
  if (int64_t(input_mean.size()) != reduce * groups)
    fail("bias correction: the weight sums {} x {} input channels, the input has {}", reduce, groups, input_mean.size());
  std::vector<double> shift(size_t(outs), 0.0);
  // Strides of the two axes; every other axis (kernel taps) is summed over.
  std::vector<int64_t> stride(size_t(w.rank()), 1);
  for (int d = w.rank() - 2; d >= 0; --d) stride[d] = stride[d + 1] * w.dim(d + 1);
  const float* a = w.data<float>();
  const float* b = wq.data<float>();
  const int64_t outs_per_group = std::max<int64_t>(1, outs / groups);
  for (int64_t k = 0; k < w.numel(); ++k) {
    const int64_t m = (k / stride[out_axis]) % outs, r = (k / stride[red_axis]) % reduce;
    const int64_t channel = (m / outs_per_group) * reduce + r;
    shift[size_t(m)] += (double(b[k]) - double(a[k])) * input_mean[size_t(channel)];
  }
  return shift;
}

std::vector<BiasCorrection> correct_biases(Model& m, const QuantOptions& opts,
                                           const std::map<std::string, std::vector<double>>& means) {
  std::vector<BiasCorrection> done;
  Graph& g = m.graph;
  std::set<std::string> used;
  for (const auto& [k, v] : g.initializers) used.insert(k);
  for (const auto& n : g.nodes)
    for (const auto& s : n.outputs) used.insert(s);
  auto fresh = [&](const std::string& base) {
    std::string s = base;
    for (int k = 1; used.count(s); ++k) s = base + "_" + std::to_string(k);
    used.insert(s);
    return s;
  };
  for (const auto& site : weight_sites(m, opts)) {
    Node& n = g.nodes[site.node];
    if (!correctable(g, n, site.spec)) continue;
    auto mean = means.find(n.inputs[0]);
    if (mean == means.end()) continue;
    const Tensor& w = g.initializers.at(site.weight);
    const Tensor wq = dequantize_weight(quantize_site_weight(w, site.spec, opts));
    const std::vector<double> shift = expected_output_shift(w, wq, site.spec, mean->second);
    const int64_t outs = int64_t(shift.size());
    std::vector<float> bias(size_t(outs), 0.0f);
    const bool has_bias = int(n.inputs.size()) > site.spec.bias_input && !n.inputs[site.spec.bias_input].empty();
    if (has_bias) {
      const Tensor& b = g.initializers.at(n.inputs[site.spec.bias_input]);
      // A bias of another shape (a Gemm C per row) is not a per-channel bias: leave it alone.
      if (b.numel() == outs) std::copy(b.data<float>(), b.data<float>() + outs, bias.begin());
      else if (b.numel() == 1) std::fill(bias.begin(), bias.end(), b.data<float>()[0]);
      else continue;
    }
    double worst = 0;
    for (int64_t c = 0; c < outs; ++c) {
      bias[size_t(c)] -= float(shift[size_t(c)] / site.spec.bias_scale);
      worst = std::max(worst, std::fabs(shift[size_t(c)]));
    }
    // A new initializer: the old bias may be shared with a node that is not corrected.
    const std::string name = fresh((has_bias ? n.inputs[site.spec.bias_input] : site.weight) + "_bias_corrected");
    g.initializers[name] = Tensor::from_vector<float>(bias, {outs});
    if (int(n.inputs.size()) <= site.spec.bias_input) n.inputs.resize(size_t(site.spec.bias_input) + 1);
    n.inputs[site.spec.bias_input] = name;
    done.push_back({n.name, worst});
  }
  return done;
}

}  // namespace ms::quant
