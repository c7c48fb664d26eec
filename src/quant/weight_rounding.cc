#include "quant/weight_rounding.h"

#include <cmath>
#include <optional>

#include "quant/gptq.h"

namespace ms::quant {
namespace {

// With one calibration sample: how far GPTQ may grow the weight error over nearest's (PaddleOCR
// det's convolutions reach 1-3x and gain from it; openWakeWord's mel filterbank, fitted to a few
// tones, reached 4.3x and lost 0.007 of output cosine on other audio).
constexpr double kWeightErrorGrowth = 3.0;

// sum (q * scale - w)²: what rounding changed in the weights themselves.
double weight_error(const std::vector<float>& w, const std::vector<int8_t>& q, const std::vector<float>& scale) {
  double e = 0;
  for (size_t k = 0; k < w.size(); ++k) e += std::pow(double(q[k]) * scale[k] - w[k], 2);
  return e;
}

// One block of a weight as GPTQ sees it: rows x cols, with its scales and its nearest rounding.
struct Block {
  std::vector<float> w, scale;
  std::vector<int8_t> nearest;
  int64_t rows, cols;
  int qmax;
};

// GPTQ's damping (a prior that every direction carries some input) is what keeps it from moving
// error into directions the calibration vectors do not reach (narrowband audio through a DFT front
// end) but other inputs will. Chosen by holding out: fitted to the even calibration samples and
// scored on the odd ones, the damping whose rounding beats nearest there by most; none (nearest)
// when no damping does.
std::optional<double> damping_that_holds_out(const Block& blk, const InputHessian& h, int64_t slice, int64_t b, bool centered) {
  const std::vector<double> fit = h.block(0, slice, b, centered), check = h.block(1, slice, b, centered);
  double best = output_error(blk.w, blk.nearest, blk.scale, blk.rows, blk.cols, check);
  std::optional<double> chosen;
  for (double damp : {0.01, 0.1, 1.0}) {
    const auto r = gptq_round(blk.w, blk.rows, blk.cols, blk.scale, blk.qmax, fit, hessian_coupling(h.vectors(0, slice), blk.cols), damp);
    const double e = output_error(blk.w, r, blk.scale, blk.rows, blk.cols, check);
    if (e < best) best = e, chosen = damp;
  }
  return chosen;
}

// With one calibration sample nothing can be held out: the damping grows tenfold until the weight
// error stays within kWeightErrorGrowth times nearest's. Returns that rounding, or nothing (nearest)
// past the last step.
std::vector<int8_t> rounding_within_weight_error(const Block& blk, const std::vector<double>& all, double vectors) {
  const double limit = kWeightErrorGrowth * weight_error(blk.w, blk.nearest, blk.scale);
  for (double damp : {0.01, 0.1, 1.0, 10.0}) {
    auto r = gptq_round(blk.w, blk.rows, blk.cols, blk.scale, blk.qmax, all, hessian_coupling(vectors, blk.cols), damp);
    if (weight_error(blk.w, r, blk.scale) <= limit) return r;
  }
  return {};
}

// Rounds `w` (quantized to nearest as `qw`) against `h`: w viewed as rows x D, D the reduction
// axis (with the trailing axes when the spec sums over them), each slice's rows against its H.
void round_weight(const Tensor& w, const QuantWeightSpec& spec, const InputHessian& h, bool centered, QuantizedWeight& qw,
                  RoundedWeights& sum) {
  const int ra = spec.reduce_axis;
  if (ra < 0 || ra >= w.rank()) return;
  int64_t outer = 1, dim = 1, inner = 1;
  for (int d = 0; d < ra; ++d) outer *= w.dim(d);
  for (int d = ra; d < w.rank(); ++d) (d == ra || spec.reduce_trailing ? dim : inner) *= w.dim(d);
  if (dim != h.dim || outer % h.slices != 0) return;
  const int qmax = qw.q.dtype() == DType::Int4 ? 7 : 127;
  const float* wd = w.data<float>();
  auto* q = static_cast<int8_t*>(qw.q.raw());  // int4 values take one byte each too
  const int64_t outer_per_slice = outer / h.slices, rows = outer_per_slice * inner;
  for (int64_t slice = 0; slice < h.slices; ++slice) {
    if (h.vectors(-1, slice) == 0) continue;  // never reached (a branch calibration did not take)
    // Element (row r, column c) of the slice: o = slice * outer_per_slice + r / inner, i = r % inner.
    auto flat = [&](int64_t r, int64_t c) { return ((slice * outer_per_slice + r / inner) * dim + c) * inner + r % inner; };
    for (int64_t b = 0; b < h.blocks(); ++b) {
      const int64_t b0 = h.block_begin(b), n = h.block_size(b);
      Block blk{std::vector<float>(size_t(rows * n)), std::vector<float>(size_t(rows * n)), std::vector<int8_t>(size_t(rows * n)), rows, n, qmax};
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < n; ++c) {
          const int64_t k = flat(r, b0 + c);
          blk.w[size_t(r * n + c)] = wd[k];
          blk.scale[size_t(r * n + c)] = qw.scale.data<float>()[scale_index(qw, k)];
          blk.nearest[size_t(r * n + c)] = q[k];
        }
      const std::vector<double> all = h.block(-1, slice, b, centered);
      const double e_near = output_error(blk.w, blk.nearest, blk.scale, rows, n, all);
      sum.error_nearest += e_near;
      std::vector<int8_t> rounded;
      if (h.vectors(0, slice) == 0 || h.vectors(1, slice) == 0)
        rounded = rounding_within_weight_error(blk, all, h.vectors(-1, slice));
      else if (const auto damp = damping_that_holds_out(blk, h, slice, b, centered))
        rounded = gptq_round(blk.w, rows, n, blk.scale, qmax, all, hessian_coupling(h.vectors(-1, slice), n), *damp);
      const double e_round = rounded.empty() ? e_near : output_error(blk.w, rounded, blk.scale, rows, n, all);
      // GPTQ is greedy: where it loses to nearest on all the calibration vectors, keep nearest.
      if (!(e_round < e_near)) {
        sum.error_rounded += e_near;
        continue;
      }
      sum.error_rounded += e_round;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < n; ++c) q[flat(r, b0 + c)] = rounded[size_t(r * n + c)];
    }
  }
}

}  // namespace

RoundedWeights round_weights_to_inputs(const Model& m, const QuantOptions& opts, const std::map<WeightKey, InputHessian>& hessians,
                                       const std::set<std::string>& bias_corrected) {
  RoundedWeights sum;
  auto rounded = std::make_shared<std::map<std::string, QuantizedWeight>>();
  QuantOptions nearest = opts;
  nearest.rounded.reset();
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& site : weight_sites(g, opts)) {
      const Node& n = g.nodes[site.node];
      std::vector<int> inputs{site.spec.input};
      inputs.insert(inputs.end(), site.spec.more_weights.begin(), site.spec.more_weights.end());
      for (int i : inputs) {
        if (i >= int(n.inputs.size())) continue;
        auto w = g.initializers.find(n.inputs[i]);
        if (w == g.initializers.end() || w->second.dtype() != DType::Float32) continue;
        const std::string key = weight_content_key(w->second);
        auto h = hessians.find(key);
        if (rounded->count(key)) continue;
        if (h == hessians.end() || h->second.dim == 0) continue;
        QuantizedWeight qw = quantize_site_weight(w->second, site.spec, nearest);
        RoundedWeights one;
        round_weight(w->second, site.spec, h->second, bias_corrected.count(key) > 0, qw, one);
        sum.error_nearest += one.error_nearest, sum.error_rounded += one.error_rounded;
        sum.errors[key] = {one.error_nearest, one.error_rounded};
        rounded->emplace(key, std::move(qw));
      }
    }
  });
  sum.weights = std::move(rounded);
  return sum;
}

}  // namespace ms::quant
