// The three renderings of an `ms compare` result: terminal text, JSON for CI, and a self-contained
// HTML page (summary, output and per-layer tables, SVG chart of cosine and error along the graph).
#pragma once
#include <nlohmann/json.hpp>

#include <string>

#include "analysis/compare.h"

namespace ms::report {

std::string compare_text(const analysis::CompareResult& r);
nlohmann::json compare_json(const analysis::CompareResult& r);
std::string compare_html(const analysis::CompareResult& r);

}  // namespace ms::report
