#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.h"

namespace ms::report {

namespace {

constexpr double kWidth = 960, kLeft = 80, kRight = 24, kTop = 28, kPanelHeight = 170, kPanelGap = 36,
                 kLabelSpace = 120;

// Maps a panel's values to its vertical extent.
struct YScale {
  bool log = false;
  double lo = 0, hi = 1;

  static YScale fit(const ChartPanel& p) {
    YScale s;
    s.log = p.log_scale;
    bool any = false;
    for (double v : p.values) {
      if (!std::isfinite(v) || (s.log && v <= 0)) continue;
      double y = s.log ? std::log10(v) : v;
      s.lo = any ? std::min(s.lo, y) : y;
      s.hi = any ? std::max(s.hi, y) : y;
      any = true;
    }
    if (!any) s.lo = 0, s.hi = 1;
    if (s.log) {
      s.lo = std::floor(s.lo), s.hi = std::max(std::ceil(s.hi), s.lo + 1);
      if (s.hi - s.lo > 8 && static_cast<int>(s.hi - s.lo) % 2) s.hi += 1;  // ticks every two decades
    }
    if (s.hi - s.lo < 1e-12) {
      double pad = std::max(std::abs(s.hi) * 1e-3, 1e-9);
      s.lo -= pad, s.hi += pad;
    }
    return s;
  }
  double norm(double v) const {  // 0 at the bottom, 1 at the top
    double y = log ? (v > 0 ? std::log10(v) : lo) : v;
    return std::clamp((y - lo) / (hi - lo), 0.0, 1.0);
  }
  // Linear panels get quarters; log panels a line per decade (every other one past eight).
  int tick_count() const {
    if (!log) return 4;
    int decades = static_cast<int>(std::round(hi - lo));
    return decades > 8 ? (decades + 1) / 2 : decades;
  }
  std::string tick(double t) const { return log ? fmt::format("1e{}", static_cast<int>(std::round(lo + t * (hi - lo)))) : fmt::format("{:.6g}", lo + t * (hi - lo)); }
};

bool has_nonpositive(const ChartPanel& p) {
  return std::any_of(p.values.begin(), p.values.end(), [](double v) { return std::isfinite(v) && v <= 0; });
}

}  // namespace

std::string svg_line_chart(const LineChart& c) {
  size_t n = c.x_labels.size();
  double plot_w = kWidth - kLeft - kRight;
  double height = kTop + static_cast<double>(c.panels.size()) * (kPanelHeight + kPanelGap) + kLabelSpace;
  auto x_of = [&](size_t i) { return kLeft + (n <= 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1)); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n",
      kWidth, height);
  double bottom_of_last = kTop;
  for (size_t p = 0; p < c.panels.size(); ++p) {
    const ChartPanel& panel = c.panels[p];
    YScale ys = YScale::fit(panel);
    double top = kTop + static_cast<double>(p) * (kPanelHeight + kPanelGap);
    double bottom = top + kPanelHeight;
    bottom_of_last = bottom;
    auto y_of = [&](double v) { return bottom - ys.norm(v) * kPanelHeight; };
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n", kLeft, top - 8,
                     html_escape(panel.title));
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft, top,
                     plot_w, kPanelHeight);
    int ticks = ys.tick_count();
    for (int t = 0; t <= ticks; ++t) {
      double y = bottom - kPanelHeight * t / ticks;
      s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e4e4e4\"/>\n", kLeft, y,
                       kLeft + plot_w, y);
      std::string label = ys.tick(static_cast<double>(t) / ticks);
      if (t == 0 && ys.log && has_nonpositive(panel)) label = "<= " + label;  // zeros sit on the bottom edge
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 4, y + 4,
                       html_escape(label));
    }
    std::string path;
    bool pen_down = false;  // a non-finite value lifts the pen: the next point starts a new segment
    for (size_t i = 0; i < n && i < panel.values.size(); ++i) {
      double v = panel.values[i];
      if (!std::isfinite(v)) {
        pen_down = false;
        continue;
      }
      path += fmt::format("{}{:.1f},{:.1f} ", pen_down ? "L" : "M", x_of(i), y_of(v));
      pen_down = true;
    }
    if (!path.empty())
      s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", path, panel.color);
    for (size_t i = 0; i < n && i < panel.values.size(); ++i) {
      double v = panel.values[i];
      if (!std::isfinite(v)) continue;
      bool bad = i < c.flagged.size() && c.flagged[i];
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}: {:.7g}</title></circle>\n",
                       x_of(i), y_of(v), bad ? 3.5 : 2.5, bad ? "#d0021b" : panel.color, html_escape(c.x_labels[i]), v);
    }
  }
  // Axis labels: as many as fit, rotated, evenly spaced.
  size_t step = std::max<size_t>(1, (n + 47) / 48);
  for (size_t i = 0; i < n; i += step) {
    double x = x_of(i), y = bottom_of_last + 12;
    std::string label = c.x_labels[i].size() > 22 ? c.x_labels[i].substr(0, 21) + "…" : c.x_labels[i];
    s += fmt::format("<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\" transform=\"rotate(-50 {0:.1f} {1:.1f})\">{2}</text>\n",
                     x, y, html_escape(label));
  }
  if (c.marker && *c.marker < n) {
    double x = x_of(*c.marker);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#d0021b\" stroke-width=\"2\" "
                     "stroke-dasharray=\"6,4\"/>\n",
                     x, kTop - 4, bottom_of_last);
    bool right_half = x > kLeft + plot_w / 2;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" fill=\"#d0021b\" font-weight=\"bold\" text-anchor=\"{}\">{}</text>\n",
                     x + (right_half ? -6 : 6), kTop + 12, right_half ? "end" : "start", html_escape(c.marker_label));
  }
  return s + "</svg>\n";
}

}  // namespace ms::report
