#include "quant/identity_split.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "quant/fresh_names.h"

namespace ms::quant {
namespace {

// Square 1×1 convolution that a diagonal can leave exactly: [C, C, 1, ...] weight, one group,
// strides 1, no padding.
bool square_pointwise(const Node& n, const Tensor& w) {
  if (n.op_type != "Conv" || w.rank() < 3 || w.dtype() != DType::Float32 || w.dim(0) != w.dim(1)) return false;
  for (int d = 2; d < w.rank(); ++d)
    if (w.dim(d) != 1) return false;
  auto all = [&](const char* key, int64_t v) {
    const Attribute* a = n.attr(key);
    return !a || std::all_of(a->ints.begin(), a->ints.end(), [v](int64_t x) { return x == v; });
  };
  // With a 1×1 window at stride 1 every auto_pad value means no padding.
  const Attribute* group = n.attr("group");
  return (!group || group->i == 1) && all("strides", 1) && all("pads", 0);
}

// Relative int8 error of the rows of a [c, c] weight rounded to nearest, each on the step its largest
// element sets; `without_diagonal`: the diagonal stays exact and does not count towards that step.
double rows_error(const float* w, int64_t c, bool without_diagonal) {
  double err = 0, norm = 0;
  for (int64_t i = 0; i < c; ++i) {
    double mx = 0;
    for (int64_t j = 0; j < c; ++j)
      if (!without_diagonal || j != i) mx = std::max(mx, std::fabs(double(w[i * c + j])));
    const double step = mx / 127;
    for (int64_t j = 0; j < c; ++j) {
      const double v = w[i * c + j];
      norm += v * v;
      if (without_diagonal && j == i) continue;
      const double q = step > 0 ? std::nearbyint(v / step) * step : 0.0;
      err += (q - v) * (q - v);
    }
  }
  return norm > 0 ? std::sqrt(err / norm) : 0.0;
}

}  // namespace

size_t split_identity_from_convs(Model& m, const QuantOptions& opts) {
  Names names(m.graph);
  size_t split = 0;
  std::set<std::string> replaced;
  for_each_graph(m.graph, [&](Graph& g) {
    auto sites = weight_sites(g, opts);
    // Back to front: inserting nodes after a site leaves the earlier sites' indices alone.
    std::sort(sites.begin(), sites.end(), [](const WeightSite& a, const WeightSite& b) { return a.node > b.node; });
    for (const auto& site : sites) {
      const Node conv = g.nodes[site.node];
      const Tensor& w = g.initializers.at(site.weight);
      if (!square_pointwise(conv, w)) continue;
      const int64_t c = w.dim(0);
      if (rows_error(w.data<float>(), c, true) > kIdentitySplitGain * rows_error(w.data<float>(), c, false)) continue;
      Tensor off = w.clone();
      Shape dshape(size_t(w.rank()), 1);
      dshape[1] = c;
      Tensor diagonal(DType::Float32, dshape);
      for (int64_t i = 0; i < c; ++i) {
        diagonal.data<float>()[i] = off.data<float>()[i * c + i];
        off.data<float>()[i * c + i] = 0.0f;
      }
      const std::string off_name = names.fresh(site.weight + "_off_diagonal");
      const std::string d_name = names.fresh(site.weight + "_diagonal");
      const std::string scaled = names.fresh(conv.inputs[0] + "_times_diagonal");
      const std::string conv_out = names.fresh(conv.outputs[0] + "_off_diagonal");
      replaced.insert(site.weight);
      g.initializers[off_name] = std::move(off);
      g.initializers[d_name] = std::move(diagonal);
      Node& n = g.nodes[site.node];
      n.inputs[size_t(site.spec.input)] = off_name;
      n.outputs[0] = conv_out;
      Node mul;
      mul.name = names.fresh(conv.name + "_identity");
      mul.op_type = "Mul";
      mul.inputs = {conv.inputs[0], d_name};
      mul.outputs = {scaled};
      Node add;
      add.name = names.fresh(conv.name + "_identity_add");
      add.op_type = "Add";
      add.inputs = {conv_out, scaled};
      add.outputs = {conv.outputs[0]};
      g.nodes.insert(g.nodes.begin() + std::ptrdiff_t(site.node) + 1, {std::move(mul), std::move(add)});
      ++split;
    }
  });
  // The whole weights go unless something else reads them (a body may read an outer name).
  std::set<std::string> read;
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& n : g.nodes) read.insert(n.inputs.begin(), n.inputs.end());
    for (const auto& o : g.outputs) read.insert(o.name);
  });
  for_each_graph(m.graph, [&](Graph& g) {
    for (const auto& name : replaced)
      if (!read.count(name)) g.initializers.erase(name);
  });
  return split;
}

}  // namespace ms::quant
