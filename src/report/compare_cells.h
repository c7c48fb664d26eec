// Formatting shared by the text and HTML renderings of a compare result (internal to src/report).
#pragma once
#include <string>
#include <vector>

#include "analysis/compare.h"

namespace ms::report {

// `head` followed by `tail`: table rows are built from a few fixed cells and the metric cells.
std::vector<std::string> concat(std::vector<std::string> head, const std::vector<std::string>& tail);

std::string format_metric(double v);  // 6 significant digits; "inf", "-inf", "nan"
std::string format_cosine(double v);  // fixed 7 decimals, so 0.9999999 and 1 stay apart
std::string tolerance_text(const analysis::Tolerance& t);
std::string verdict_text(const analysis::MetricSummary& m);

// Metric columns of a row; datasets (more than one sample) add the worst sample's cosine, and
// outputs (`classes`) the top-1/top-5 agreement.
std::vector<std::string> metric_headers(size_t samples, bool classes);
std::vector<std::string> metric_cells(const analysis::MetricSummary& m, size_t samples, bool classes);

// "conv2 (Conv)", or "conv2 (Conv) [reference: Conv2D/Conv (Conv)]" when the names differ; several
// nodes when the divergence lies in a region of unpaired tensors.
std::string divergence_nodes(const analysis::Divergence& d);
// "between them the reference computes: a (Op), b (Op)" for each model whose region holds more
// nodes than the one named.
std::vector<std::string> divergence_spans(const analysis::Divergence& d);

// 0, 1, ..., layers - 1.
std::vector<size_t> all_layers(const analysis::CompareResult& r);

}  // namespace ms::report
