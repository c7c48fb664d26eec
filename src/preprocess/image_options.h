// How an image becomes a model input tensor: the options of `ms preprocess` and of `ms quant` with
// an image folder, named after MindSpore Lite's [data_preprocess_param] keys. The steps run in
// MindSpore Lite's order: decode, colour format, resize, center crop, normalize; then the layout.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ms::preprocess {

enum class ColorFormat { RGB, BGR, GRAY };
enum class ResizeMethod { Linear, Nearest };
enum class Layout { NCHW, NHWC };

struct HeightWidth {
  int64_t height = 0, width = 0;
  bool operator==(const HeightWidth&) const = default;
};

struct ImageOptions {
  std::optional<HeightWidth> size;         // resize target; unset: keep the decoded size
  std::optional<HeightWidth> center_crop;  // cut from the middle after resizing
  // Per channel of the output colour format (B first for BGR), in pixel units 0..255:
  // out = (pixel - mean) / std. Empty: no normalization.
  std::vector<double> mean, std;
  std::optional<ColorFormat> format;  // unset: RGB (GRAY where the model input has one channel)
  std::optional<Layout> layout;       // unset: NCHW (or what the model input's shape says)
  ResizeMethod resize_method = ResizeMethod::Linear;

  // Whether any option was given (an image-only option with tensor files is a mistake).
  bool any() const { return size || center_crop || !mean.empty() || !std.empty() || format || layout || resize_method != ResizeMethod::Linear; }
};

// Parsers for the command-line (and config-file) spellings; each failure is InvalidInput naming
// `what` (the flag or key).
HeightWidth parse_height_width(const std::string& what, const std::string& text);  // "224,224": height, width
std::vector<double> parse_channel_values(const std::string& what, const std::string& text);  // "1,2,3" or "[1, 2, 3]"
ColorFormat parse_color_format(const std::string& text);                                    // RGB | BGR | GRAY
ResizeMethod parse_resize_method(const std::string& text);                                  // LINEAR | NEAREST
Layout parse_layout(const std::string& text);                                               // NCHW | NHWC

int channel_count(ColorFormat f);
const char* color_format_name(ColorFormat f);
const char* layout_name(Layout l);

// Mean and std must have one value per channel of `format`, std values must be positive.
void check_normalization(const ImageOptions& o, ColorFormat format);

}  // namespace ms::preprocess
