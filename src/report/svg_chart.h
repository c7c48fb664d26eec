// An inline SVG line chart: one or more stacked panels over a shared x axis (graph positions),
// with an optional marked position. Tooltips are SVG <title> elements, so no script is needed.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ms::report {

struct ChartPanel {
  std::string title;
  std::vector<double> values;  // one per x position; a non-finite value leaves a gap
  bool log_scale = false;      // values <= 0 sit on the bottom edge
  std::string color = "#1f5fbf";
};

struct LineChart {
  std::vector<std::string> x_labels;  // one per position: tooltips, and axis ticks where they fit
  std::vector<ChartPanel> panels;
  std::vector<bool> flagged;          // positions drawn in red
  std::optional<size_t> marker;       // a position marked with a vertical line across every panel
  std::string marker_label;
};

std::string svg_line_chart(const LineChart& chart);

}  // namespace ms::report
