// Test images written with stb_image_write (an encoder independent of the decoding under test):
// pixels given by a function, so expected values after resizing/cropping are analytic.
#pragma once
#include <stb/stb_image_write.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"

namespace ms::test {

using PixelFn = std::function<int(int64_t y, int64_t x, int64_t c)>;  // 0..255, c in R, G, B order

inline std::vector<uint8_t> rgb_pixels(int64_t h, int64_t w, const PixelFn& f) {
  std::vector<uint8_t> p(size_t(h * w * 3));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t c = 0; c < 3; ++c) p[size_t((y * w + x) * 3 + c)] = uint8_t(f(y, x, c));
  return p;
}

// The format follows the extension: .png, .bmp, .jpg (quality 95).
inline void write_image(const std::string& path, int64_t h, int64_t w, const PixelFn& f) {
  const auto p = rgb_pixels(h, w, f);
  const int W = int(w), H = int(h);
  std::string ext = path.substr(path.rfind('.'));
  for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  int ok = 0;
  if (ext == ".png") ok = stbi_write_png(path.c_str(), W, H, 3, p.data(), W * 3);
  else if (ext == ".bmp") ok = stbi_write_bmp(path.c_str(), W, H, 3, p.data());
  else if (ext == ".jpg") ok = stbi_write_jpg(path.c_str(), W, H, 3, p.data(), 95);
  if (!ok) fail("test: cannot write {}", path);
}

inline PixelFn solid(int r, int g, int b) {
  return [=](int64_t, int64_t, int64_t c) { return c == 0 ? r : c == 1 ? g : b; };
}

}  // namespace ms::test
