#include <fmt/format.h>

#include "report/compare_cells.h"
#include "report/compare_report.h"
#include "report/html.h"
#include "report/svg_chart.h"

namespace ms::report {

namespace {

std::string definition_list(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s = "<table>\n";
  for (const auto& [k, v] : items) s += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>\n";
  return s + "</table>\n";
}

std::string chart(const analysis::CompareResult& r) {
  LineChart c;
  ChartPanel cosine{"cosine similarity (per paired tensor, topological order)", {}, false, "#1f5fbf"};
  ChartPanel error{"max abs error (log scale)", {}, true, "#c76d00"};
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    c.x_labels.push_back(fmt::format("#{} {}", i, l.pair.name));
    bool compared = l.skipped.empty() && l.metrics.worst.comparable;
    cosine.values.push_back(compared ? l.metrics.mean.cosine : NAN);
    error.values.push_back(compared ? l.metrics.mean.max_abs : NAN);
    c.flagged.push_back(l.skipped.empty() && !l.metrics.pass());
  }
  c.panels = {cosine, error};
  if (r.divergence) {
    c.marker = r.divergence->layer;
    c.marker_label = "first divergence: " + divergence_nodes(*r.divergence);
  }
  return svg_line_chart(c);
}

std::string layer_rows(const analysis::CompareResult& r, const std::vector<size_t>& which) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (size_t i : which) {
    const auto& l = r.layers[i];
    std::vector<std::string> head{std::to_string(i), l.node, l.ref_node, l.pair.name, l.pair.ref_name,
                                  std::string(analysis::paired_by_name(l.pair.by))};
    rows.push_back(concat(head, l.skipped.empty() ? metric_cells(l.metrics, r.samples, false) : std::vector<std::string>{l.skipped}));
    bool first = r.divergence && r.divergence->layer == i;
    classes.push_back(first ? "first" : (l.skipped.empty() && !l.metrics.pass() ? "fail" : ""));
  }
  return html_table(concat({"#", "node", "ref node", "tensor", "ref tensor", "paired by"}, metric_headers(r.samples, false)),
                    rows, classes);
}

}  // namespace

std::string compare_html(const analysis::CompareResult& r) {
  std::string b;
  bool pass = r.pass();
  b += fmt::format("<p>Result: <span class=\"{}\">{}</span></p>\n", pass ? "pass" : "fail",
                   pass ? "PASS: every output is within tolerance" : "FAIL: an output is beyond tolerance");
  std::vector<std::pair<std::string, std::string>> summary{
      {"model", r.model_file + " (" + r.backend + " kernels)"},
      {"reference", r.ref_file + (r.ref_backend.empty() ? "" : " (" + r.ref_backend + " kernels)")},
      {"inputs", r.inputs},
      {"samples", std::to_string(r.samples)}, {"tolerance", tolerance_text(r.tolerance)}};
  if (r.bisect)
    summary.push_back({"first divergent node", r.divergence ? divergence_nodes(*r.divergence) : "none"});
  b += "<h2>Summary</h2>\n" + definition_list(summary);

  b += "<h2>Outputs</h2>\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const auto& o : r.outputs) {
    rows.push_back(concat({o.name, o.ref_name}, metric_cells(o.metrics, r.samples, true)));
    classes.push_back(o.metrics.pass() ? "" : "fail");
  }
  b += html_table(concat({"output", "reference"}, metric_headers(r.samples, true)), rows, classes);
  if (r.samples > 1)
    for (const auto& o : r.outputs)
      b += fmt::format("<p>Worst sample for <code>{}</code>: {} (cosine {})</p>\n", html_escape(o.name),
                       html_escape(r.sample_labels.at(o.metrics.worst_sample)), format_cosine(o.metrics.worst.cosine));
  if (r.accuracy) {
    b += fmt::format("<h2>Top-1 accuracy ({} labelled rows of <code>{}</code>)</h2>\n", r.accuracy->rows,
                     html_escape(r.accuracy->output));
    b += html_table({"model", "top-1 accuracy"}, {{r.model_file, fmt::format("{:.2f}%", 100 * r.accuracy->model_top1)},
                                                   {r.ref_file, fmt::format("{:.2f}%", 100 * r.accuracy->ref_top1)}});
  }
  if (r.bisect && r.divergence) {
    const auto& d = *r.divergence;
    b += fmt::format("<h2>First divergent node: {}</h2>\n<p>Its output <code>{}</code> diverges while the tensors it "
                     "is computed from agree.</p>\n",
                     html_escape(divergence_nodes(d)), html_escape(r.layers[d.layer].pair.name));
    for (const auto& line : divergence_spans(d)) b += "<p>" + html_escape(line) + "</p>\n";
    std::vector<size_t> which = d.input_layers;
    which.push_back(d.layer);
    b += layer_rows(r, which);
  }
  if (r.layerwise) {
    b += "<h2>Per-layer agreement</h2>\n";
    if (r.layers.empty()) {
      b += "<p>No intermediate tensors pair between the two models.</p>\n";
    } else {
      b += chart(r);
      b += layer_rows(r, all_layers(r));
    }
  }
  for (const auto& [output, change] : r.marking_changes)
    b += "<p>Note: with the intermediate tensors exposed, " + html_escape(output) + " changes by up to " +
         format_metric(change) + " (the runtime computes differently when it must keep them); the output table is "
         "from the unmodified model.</p>\n";
  return html_page("ms compare: " + r.model_file + " vs " + r.ref_file, b);
}

}  // namespace ms::report
