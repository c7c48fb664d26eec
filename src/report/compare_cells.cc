#include "report/compare_cells.h"

#include <fmt/format.h>

#include <cmath>

namespace ms::report {

std::vector<std::string> concat(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::string format_metric(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

std::string format_cosine(double v) { return std::isfinite(v) ? fmt::format("{:.7f}", v) : format_metric(v); }

std::string tolerance_text(const analysis::Tolerance& t) {
  std::vector<std::string> parts;
  if (t.elementwise())
    parts.push_back(fmt::format("|a - ref| <= {} + {} * |ref| everywhere", format_metric(t.atol.value_or(0)),
                                format_metric(t.rtol.value_or(0))));
  if (t.min_cosine) parts.push_back(fmt::format("cosine >= {}", format_metric(*t.min_cosine)));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, " and "));
}

std::string verdict_text(const analysis::MetricSummary& m) {
  const auto& w = m.worst;
  if (!w.comparable)
    return fmt::format("FAIL: shape {} vs {} (element counts differ)", shape_str(w.shape), shape_str(w.ref_shape));
  std::string v = m.pass() ? "ok" : "FAIL";
  if (m.samples > 1 && !m.pass()) v += fmt::format(" ({} of {} samples)", m.failing_samples, m.samples);
  if (w.nonfinite_mismatches) v += fmt::format(" ({} NaN/inf mismatches)", w.nonfinite_mismatches);
  if (!w.same_shape) v += fmt::format(" (shape {} vs {})", shape_str(w.shape), shape_str(w.ref_shape));
  return v;
}

std::vector<std::string> metric_headers(size_t samples, bool classes) {
  std::vector<std::string> h{"cosine", "max_abs", "mean_abs", "mse", "psnr_db", "max_rel"};
  if (classes) h.insert(h.end(), {"top1", "top5"});
  if (samples > 1) {
    for (auto& s : h) s = "mean " + s;
    h.push_back("min cosine");
  }
  h.push_back("verdict");
  return h;
}

std::vector<std::string> metric_cells(const analysis::MetricSummary& m, size_t samples, bool classes) {
  const auto& a = m.mean;
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : std::string("-"); };
  if (!m.worst.comparable) {
    std::vector<std::string> cells(metric_headers(samples, classes).size() - 1, "-");
    cells.push_back(verdict_text(m));
    return cells;
  }
  std::vector<std::string> c{format_cosine(a.cosine), format_metric(a.max_abs), format_metric(a.mean_abs),
                             format_metric(a.mse),    format_metric(a.psnr),    format_metric(a.max_rel)};
  if (classes) c.insert(c.end(), {opt(a.top1), opt(a.top5)});
  if (samples > 1) c.push_back(format_cosine(m.worst.cosine));
  c.push_back(verdict_text(m));
  return c;
}

std::vector<std::string> divergence_spans(const analysis::Divergence& d) {
  std::vector<std::string> lines;
  for (const auto& [who, region, named] : {std::tuple{"model", &d.region, &d.nodes}, {"reference", &d.ref_region, &d.ref_nodes}})
    if (region->size() > named->size())
      lines.push_back(fmt::format("between them the {} computes: {}", who, fmt::join(*region, ", ")));
  return lines;
}

std::vector<size_t> all_layers(const analysis::CompareResult& r) {
  std::vector<size_t> all(r.layers.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

std::string divergence_nodes(const analysis::Divergence& d) {
  std::string mine = fmt::format("{}", fmt::join(d.nodes, ", "));
  std::string ref = fmt::format("{}", fmt::join(d.ref_nodes, ", "));
  if (mine == ref || ref.empty()) return mine;
  return fmt::format("{} [reference: {}]", mine, ref);
}

}  // namespace ms::report
