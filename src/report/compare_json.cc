#include <cmath>

#include "report/compare_report.h"

namespace ms::report {

namespace {

using nlohmann::json;

// JSON has no infinities: non-finite figures are written as the strings "inf", "-inf", "nan".
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json metrics_json(const analysis::TensorMetrics& m) {
  json j;
  j["comparable"] = m.comparable;
  j["shape"] = m.shape;
  j["ref_shape"] = m.ref_shape;
  if (!m.comparable) return j;
  j["elements"] = m.count;
  j["cosine"] = number(m.cosine);
  j["max_abs"] = number(m.max_abs);
  j["mean_abs"] = number(m.mean_abs);
  j["mse"] = number(m.mse);
  j["psnr_db"] = number(m.psnr);
  j["max_rel"] = number(m.max_rel);
  j["nonfinite_mismatches"] = m.nonfinite_mismatches;
  j["tolerance_violations"] = m.tolerance_violations;
  j["top1"] = m.top1 ? json(*m.top1) : json(nullptr);
  j["top5"] = m.top5 ? json(*m.top5) : json(nullptr);
  return j;
}

json summary_json(const analysis::MetricSummary& s, const analysis::CompareResult& r) {
  json j;
  j["pass"] = s.pass();
  j["samples"] = s.samples;
  j["failing_samples"] = s.failing_samples;
  j["metrics"] = metrics_json(s.mean);
  if (r.samples > 1) {
    j["worst"] = metrics_json(s.worst);
    j["worst_sample"] = r.sample_labels.at(s.worst_sample);
  }
  return j;
}

json layer_json(const analysis::CompareResult& r, size_t i) {
  const auto& l = r.layers[i];
  json j;
  j["index"] = i;
  j["tensor"] = l.pair.name;
  j["ref_tensor"] = l.pair.ref_name;
  j["paired_by"] = std::string(analysis::paired_by_name(l.pair.by));
  j["node"] = l.node;
  j["ref_node"] = l.ref_node;
  if (!l.skipped.empty())
    j["skipped"] = l.skipped;
  else
    j.update(summary_json(l.metrics, r));
  return j;
}

}  // namespace

json compare_json(const analysis::CompareResult& r) {
  json j;
  j["model"] = r.model_file;
  j["reference"] = r.ref_file;
  j["backend"] = r.backend;
  j["ref_backend"] = r.ref_backend.empty() ? json(nullptr) : json(r.ref_backend);
  j["inputs"] = r.inputs;
  j["samples"] = r.samples;
  j["tolerance"] = {{"atol", r.tolerance.atol ? json(*r.tolerance.atol) : json(nullptr)},
                    {"rtol", r.tolerance.rtol ? json(*r.tolerance.rtol) : json(nullptr)},
                    {"min_cosine", r.tolerance.min_cosine ? json(*r.tolerance.min_cosine) : json(nullptr)}};
  j["pass"] = r.pass();
  j["outputs"] = json::array();
  for (const auto& o : r.outputs) {
    json e{{"name", o.name}, {"reference", o.ref_name}};
    e.update(summary_json(o.metrics, r));
    j["outputs"].push_back(e);
  }
  if (r.accuracy)
    j["accuracy"] = {{"output", r.accuracy->output},
                     {"rows", r.accuracy->rows},
                     {"model_top1", r.accuracy->model_top1},
                     {"reference_top1", r.accuracy->ref_top1}};
  if (r.layerwise) {
    j["layers"] = json::array();
    for (size_t i = 0; i < r.layers.size(); ++i) j["layers"].push_back(layer_json(r, i));
  }
  if (r.bisect) {
    if (r.divergence) {
      const auto& d = *r.divergence;
      json e;
      e["layer"] = d.layer;
      // The one node to look at in each model; "nodes"/"ref_nodes" hold several when it is ambiguous.
      e["node"] = d.nodes.size() == 1 ? d.nodes[0] : r.layers[d.layer].node;
      e["ref_node"] = d.ref_nodes.size() == 1 ? d.ref_nodes[0] : r.layers[d.layer].ref_node;
      e["nodes"] = d.nodes;
      e["ref_nodes"] = d.ref_nodes;
      e["region"] = d.region;
      e["ref_region"] = d.ref_region;
      e["inputs"] = json::array();
      for (size_t i : d.input_layers) e["inputs"].push_back(layer_json(r, i));
      e["output"] = layer_json(r, d.layer);
      j["first_divergence"] = e;
    } else {
      j["first_divergence"] = nullptr;
    }
  }
  j["marking_changes"] = json::object();
  for (const auto& [output, change] : r.marking_changes) j["marking_changes"][output] = number(change);
  return j;
}

}  // namespace ms::report
