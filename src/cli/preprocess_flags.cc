#include "cli/preprocess_flags.h"

namespace ms::cli {

void add_preprocess_flags(CLI::App& app, PreprocessFlags& f, const std::string& layout_default) {
  app.add_option("--size", f.size, "resize every image to HEIGHT,WIDTH (MindSpore Lite resize_height/resize_width)");
  app.add_option("--resizeMethod", f.resize_method,
                 "LINEAR (default: bilinear with half-pixel centers, OpenCV's INTER_LINEAR) | NEAREST (INTER_NEAREST)");
  app.add_option("--centerCrop", f.center_crop, "after resizing, keep the central HEIGHT,WIDTH (center_crop_height/width)");
  app.add_option("--mean", f.mean,
                 "per channel, in pixel units 0..255, subtracted: out = (pixel - mean) / std; e.g. 123.675,116.28,103.53 "
                 "(normalize_mean; one value per channel of --imageFormat, in its order)");
  app.add_option("--std", f.std, "per channel, in pixel units, divides (normalize_std); e.g. 58.395,57.12,57.375");
  app.add_option("--imageFormat", f.image_format,
                 "channel order of the tensor: RGB (default) | BGR | GRAY (0.299 R + 0.587 G + 0.114 B) (image_to_format)");
  app.add_option("--layout", f.layout, "NCHW | NHWC (" + layout_default + ")");
}

preprocess::ImageOptions image_options(const PreprocessFlags& f) {
  preprocess::ImageOptions o;
  if (!f.size.empty()) o.size = preprocess::parse_height_width("--size", f.size);
  if (!f.center_crop.empty()) o.center_crop = preprocess::parse_height_width("--centerCrop", f.center_crop);
  if (!f.mean.empty()) o.mean = preprocess::parse_channel_values("--mean", f.mean);
  if (!f.std.empty()) o.std = preprocess::parse_channel_values("--std", f.std);
  if (!f.image_format.empty()) o.format = preprocess::parse_color_format(f.image_format);
  if (!f.layout.empty()) o.layout = preprocess::parse_layout(f.layout);
  if (!f.resize_method.empty()) o.resize_method = preprocess::parse_resize_method(f.resize_method);
  return o;
}

}  // namespace ms::cli
