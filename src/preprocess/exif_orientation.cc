#include "preprocess/exif_orientation.h"

#include <algorithm>
#include <cstdint>

namespace ms::preprocess {
namespace {

// Reads big- or little-endian integers (TIFF's byte order) inside [0, size), 0 outside.
struct Bytes {
  const std::string& s;
  bool little = false;
  uint32_t u(size_t at, int n) const {
    if (at + size_t(n) > s.size()) return 0;
    uint32_t v = 0;
    for (int k = 0; k < n; ++k) {
      const uint32_t b = static_cast<unsigned char>(s[at + size_t(little ? n - 1 - k : k)]);
      v = (v << 8) | b;
    }
    return v;
  }
};

// The orientation in the TIFF structure that starts at `tiff` (after "Exif\0\0").
int tiff_orientation(const std::string& s, size_t tiff, size_t end) {
  if (tiff + 8 > end) return 1;
  Bytes b{s};
  if (s.compare(tiff, 2, "II") == 0) b.little = true;
  else if (s.compare(tiff, 2, "MM") != 0) return 1;
  if (b.u(tiff + 2, 2) != 42) return 1;
  const size_t ifd = tiff + b.u(tiff + 4, 4);
  if (ifd + 2 > end) return 1;
  const uint32_t entries = b.u(ifd, 2);
  for (uint32_t k = 0; k < entries; ++k) {
    const size_t e = ifd + 2 + size_t(k) * 12;
    if (e + 12 > end) return 1;
    if (b.u(e, 2) == 0x0112 && b.u(e + 2, 2) == 3) {  // Orientation, SHORT: the value sits first in the field
      const uint32_t o = b.u(e + 8, 2);
      return o >= 1 && o <= 8 ? int(o) : 1;
    }
  }
  return 1;
}

}  // namespace

int jpeg_exif_orientation(const std::string& j) {
  if (j.size() < 4 || static_cast<unsigned char>(j[0]) != 0xFF || static_cast<unsigned char>(j[1]) != 0xD8) return 1;
  size_t at = 2;
  // Marker segments: FF <marker> <length, big-endian, counting itself>; the image data follows SOS.
  while (at + 4 <= j.size() && static_cast<unsigned char>(j[at]) == 0xFF) {
    const unsigned marker = static_cast<unsigned char>(j[at + 1]);
    if (marker == 0xDA || marker == 0xD9) break;  // start of scan / end of image
    const size_t len = (size_t(static_cast<unsigned char>(j[at + 2])) << 8) | static_cast<unsigned char>(j[at + 3]);
    if (len < 2) break;
    const size_t body = at + 4, end = std::min(j.size(), at + 2 + len);
    if (marker == 0xE1 && end >= body + 6 && j.compare(body, 6, std::string("Exif\0\0", 6)) == 0)
      return tiff_orientation(j, body + 6, end);
    at += 2 + len;
  }
  return 1;
}

Image apply_exif_orientation(const Image& img, int o) {
  if (o < 2 || o > 8) return img;
  const int64_t h = img.height, w = img.width;
  const bool swap = o >= 5;  // transposing orientations exchange height and width
  Image r(swap ? w : h, swap ? h : w, img.channels);
  for (int64_t y = 0; y < r.height; ++y)
    for (int64_t x = 0; x < r.width; ++x) {
      int64_t sy = y, sx = x;  // the source pixel of output (y, x)
      switch (o) {
        case 2: sx = w - 1 - x; break;
        case 3: sy = h - 1 - y, sx = w - 1 - x; break;
        case 4: sy = h - 1 - y; break;
        case 5: sy = x, sx = y; break;
        case 6: sy = h - 1 - x, sx = y; break;
        case 7: sy = h - 1 - x, sx = w - 1 - y; break;
        case 8: sy = x, sx = w - 1 - y; break;
      }
      for (int64_t c = 0; c < img.channels; ++c) r.at(y, x, c) = img.at(sy, sx, c);
    }
  return r;
}

}  // namespace ms::preprocess
