#include "preprocess/image_options.h"

#include <charconv>
#include <cmath>

#include "core/error.h"

namespace ms::preprocess {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "a,b,c" or MindSpore Lite's "[a, b, c]" as trimmed items (an empty item is kept, to be refused).
std::vector<std::string> items(std::string text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  std::vector<std::string> r;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    r.push_back(trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return r;
}

}  // namespace

HeightWidth parse_height_width(const std::string& what, const std::string& text) {
  const auto v = items(text);
  int64_t n[2] = {0, 0};
  bool ok = v.size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    const auto r = std::from_chars(v[i].data(), v[i].data() + v[i].size(), n[i]);
    ok = r.ec == std::errc() && r.ptr == v[i].data() + v[i].size() && n[i] > 0 && n[i] <= 65535;
  }
  if (!ok) fail("{} must be two positive integers HEIGHT,WIDTH (at most 65535), not '{}'", what, text);
  return {n[0], n[1]};
}

std::vector<double> parse_channel_values(const std::string& what, const std::string& text) {
  std::vector<double> r;
  for (const auto& s : items(text)) {
    double d = 0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), d);
    if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(d))
      fail("{} must be numbers separated by commas, one per channel (for example 127.5,127.5,127.5), not '{}'", what, text);
    r.push_back(d);
  }
  return r;
}

ColorFormat parse_color_format(const std::string& text) {
  if (text == "RGB") return ColorFormat::RGB;
  if (text == "BGR") return ColorFormat::BGR;
  if (text == "GRAY") return ColorFormat::GRAY;
  fail("--imageFormat must be RGB, BGR or GRAY, not '{}'", text);
}

ResizeMethod parse_resize_method(const std::string& text) {
  if (text == "LINEAR") return ResizeMethod::Linear;
  if (text == "NEAREST") return ResizeMethod::Nearest;
  if (text == "CUBIC") fail_unsupported("--resizeMethod CUBIC is not implemented; use LINEAR or NEAREST");
  fail("--resizeMethod must be LINEAR or NEAREST, not '{}'", text);
}

Layout parse_layout(const std::string& text) {
  if (text == "NCHW") return Layout::NCHW;
  if (text == "NHWC") return Layout::NHWC;
  fail("--layout must be NCHW or NHWC, not '{}'", text);
}

int channel_count(ColorFormat f) { return f == ColorFormat::GRAY ? 1 : 3; }

const char* color_format_name(ColorFormat f) {
  switch (f) {
    case ColorFormat::RGB: return "RGB";
    case ColorFormat::BGR: return "BGR";
    case ColorFormat::GRAY: return "GRAY";
  }
  return "?";
}

const char* layout_name(Layout l) { return l == Layout::NCHW ? "NCHW" : "NHWC"; }

void check_normalization(const ImageOptions& o, ColorFormat format) {
  const size_t c = size_t(channel_count(format));
  if (!o.mean.empty() && o.mean.size() != c)
    fail("--mean has {} value(s) but {} images have {} channel(s): give one value per channel", o.mean.size(),
         color_format_name(format), c);
  if (!o.std.empty() && o.std.size() != c)
    fail("--std has {} value(s) but {} images have {} channel(s): give one value per channel", o.std.size(),
         color_format_name(format), c);
  for (double s : o.std)
    if (!(s > 0)) fail("--std values divide the pixels and must be positive, not {}", s);
}

}  // namespace ms::preprocess
