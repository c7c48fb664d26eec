// A decoded image as floats, channels interleaved (height x width x channels), pixel units 0..255:
// the form every preprocessing step reads and writes, so that resizing and normalizing never round
// to 8 bits between steps (MindSpore Lite converts to CV_32F right after reading, too).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ms::preprocess {

struct Image {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<float> pixels;  // (y * width + x) * channels + c

  Image() = default;
  Image(int64_t h, int64_t w, int64_t c) : height(h), width(w), channels(c), pixels(size_t(h * w * c)) {}
  float& at(int64_t y, int64_t x, int64_t c) { return pixels[size_t((y * width + x) * channels + c)]; }
  float at(int64_t y, int64_t x, int64_t c) const { return pixels[size_t((y * width + x) * channels + c)]; }
};

}  // namespace ms::preprocess
