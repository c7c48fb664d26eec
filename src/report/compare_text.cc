#include <fmt/format.h>

#include <algorithm>

#include "report/compare_cells.h"
#include "report/compare_report.h"
#include "report/text_table.h"

namespace ms::report {

namespace {

// The reference's node column appears only when some node is named differently there.
std::string layer_table(const analysis::CompareResult& r, const std::vector<size_t>& which) {
  bool ref_nodes = std::any_of(which.begin(), which.end(), [&](size_t i) { return r.layers[i].node != r.layers[i].ref_node; });
  std::vector<std::string> headers{"#", "node"};
  if (ref_nodes) headers.push_back("ref node");
  TextTable t(concat(concat(headers, {"tensor", "ref tensor", "paired by"}), metric_headers(r.samples, false)));
  for (size_t i : which) {
    const auto& l = r.layers[i];
    std::vector<std::string> head{std::to_string(i), l.node};
    if (ref_nodes) head.push_back(l.ref_node);
    head = concat(head, {l.pair.name, l.pair.ref_name, std::string(analysis::paired_by_name(l.pair.by))});
    if (!l.skipped.empty())
      t.add_row(concat(head, {l.skipped}));
    else
      t.add_row(concat(head, metric_cells(l.metrics, r.samples, false)));
  }
  return t.render("    ");
}

}  // namespace

std::string compare_text(const analysis::CompareResult& r) {
  std::string s = fmt::format("model:     {} ({} kernels)\nreference: {}{}\n", r.model_file, r.backend, r.ref_file,
                              r.ref_backend.empty() ? "" : " (" + r.ref_backend + " kernels)");
  s += fmt::format("inputs:    {}\n", r.inputs);
  if (r.samples > 1) s += fmt::format("samples:   {}\n", r.samples);
  s += fmt::format("tolerance: {}\n\noutputs:\n", tolerance_text(r.tolerance));
  TextTable outs(concat({"output", "reference"}, metric_headers(r.samples, true)));
  for (const auto& o : r.outputs) outs.add_row(concat({o.name, o.ref_name}, metric_cells(o.metrics, r.samples, true)));
  s += outs.render("    ");
  if (r.samples > 1)
    for (const auto& o : r.outputs)
      s += fmt::format("  worst sample for '{}': {} (cosine {})\n", o.name, r.sample_labels.at(o.metrics.worst_sample),
                       format_cosine(o.metrics.worst.cosine));
  if (r.accuracy)
    s += fmt::format("\ntop-1 accuracy on {} labelled rows of '{}':\n    model      {:.2f}%\n    reference  {:.2f}%\n",
                     r.accuracy->rows, r.accuracy->output, 100 * r.accuracy->model_top1, 100 * r.accuracy->ref_top1);
  if (r.layerwise) {
    s += fmt::format("\nlayerwise: {} paired tensors in topological order\n", r.layers.size());
    if (!r.layers.empty()) s += layer_table(r, all_layers(r));
  }
  if (r.bisect) {
    if (r.divergence) {
      const auto& d = *r.divergence;
      const auto& l = r.layers[d.layer];
      s += fmt::format("\nfirst divergent node: {}\n  output tensor '{}' diverges while its inputs agree\n",
                       divergence_nodes(d), l.pair.name);
      for (const auto& line : divergence_spans(d)) s += "  " + line + "\n";
      if (!d.input_layers.empty()) {
        s += "  inputs:\n" + layer_table(r, d.input_layers);
      } else {
        s += "  inputs: graph inputs and constants only\n";
      }
      s += "  output:\n" + layer_table(r, {d.layer});
    } else {
      s += "\nbisect: no paired tensor diverges beyond the tolerance\n";
    }
  }
  for (const auto& [output, change] : r.marking_changes)
    s += fmt::format("\nnote: with the intermediate tensors exposed, {} changes by up to {} (the runtime computes "
                     "differently when it must keep them); the output rows above are from the unmodified model\n",
                     output, format_metric(change));
  s += fmt::format("\nresult: {}\n", r.pass() ? "PASS (every output within tolerance)" : "FAIL (an output is beyond tolerance)");
  return s;
}

}  // namespace ms::report
