#include "preprocess/image_steps.h"

#include "core/error.h"

namespace ms::preprocess {

Image convert_color(const Image& rgb, ColorFormat to) {
  if (to == ColorFormat::RGB) return rgb;
  Image out(rgb.height, rgb.width, channel_count(to));
  for (int64_t y = 0; y < rgb.height; ++y)
    for (int64_t x = 0; x < rgb.width; ++x) {
      const float r = rgb.at(y, x, 0), g = rgb.at(y, x, 1), b = rgb.at(y, x, 2);
      if (to == ColorFormat::BGR) {
        out.at(y, x, 0) = b, out.at(y, x, 1) = g, out.at(y, x, 2) = r;
      } else {
        out.at(y, x, 0) = b * 0.114f + g * 0.587f + r * 0.299f;  // OpenCV's order of the sum
      }
    }
  return out;
}

Image center_crop(const Image& img, HeightWidth size, const std::string& path) {
  if (size.height > img.height || size.width > img.width)
    fail("{}: --centerCrop {}x{} is larger than the image ({}x{} after resizing); crop at most the image size", path,
         size.height, size.width, img.height, img.width);
  const int64_t top = (img.height - size.height) / 2, left = (img.width - size.width) / 2;
  Image out(size.height, size.width, img.channels);
  for (int64_t y = 0; y < size.height; ++y)
    for (int64_t x = 0; x < size.width; ++x)
      for (int64_t k = 0; k < img.channels; ++k) out.at(y, x, k) = img.at(top + y, left + x, k);
  return out;
}

void normalize(Image& img, const std::vector<double>& mean, const std::vector<double>& std) {
  if (mean.empty() && std.empty()) return;
  const size_t c = size_t(img.channels);
  for (size_t i = 0; i < img.pixels.size(); ++i) {
    const size_t k = i % c;
    const double m = mean.empty() ? 0.0 : mean[k], s = std.empty() ? 1.0 : std[k];
    img.pixels[i] = float((double(img.pixels[i]) - m) / s);
  }
}

}  // namespace ms::preprocess
