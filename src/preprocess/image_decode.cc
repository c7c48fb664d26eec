#include "preprocess/image_decode.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>

#include "core/error.h"
#include "preprocess/exif_orientation.h"

namespace ms::preprocess {
namespace {

// stb_image also guesses TGA, which has no signature and accepts many non-image files: decode only
// what the first bytes prove to be a JPEG, PNG or BMP.
bool has_image_signature(const std::string& head) {
  auto starts = [&](const char* sig, size_t n) { return head.size() >= n && head.compare(0, n, sig, n) == 0; };
  return starts("\xFF\xD8\xFF", 3) || starts("\x89PNG\r\n\x1A\n", 8) || starts("BM", 2);
}

std::string first_bytes(const std::string& path, size_t n) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot open the image file", path);
  std::string head(n, '\0');
  f.read(head.data(), std::streamsize(n));
  head.resize(size_t(f.gcount()));
  return head;
}

}  // namespace

bool has_image_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp";
}

Image decode_image(const std::string& path) {
  const std::string head = first_bytes(path, 8);
  if (!has_image_signature(head))
    fail("{}: not a JPEG, PNG or BMP image (its first bytes are no image signature)", path);
  int w = 0, h = 0, channels_in_file = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> data(stbi_load(path.c_str(), &w, &h, &channels_in_file, 3), stbi_image_free);
  if (!data) fail("{}: cannot decode the image ({})", path, stbi_failure_reason() ? stbi_failure_reason() : "unknown reason");
  Image img(h, w, 3);
  std::copy(data.get(), data.get() + img.pixels.size(), img.pixels.begin());
  // A JPEG's EXIF block sits in the header segments, before the image data: its first 256 KiB hold it.
  if (head.compare(0, 2, "\xFF\xD8") == 0)
    return apply_exif_orientation(img, jpeg_exif_orientation(first_bytes(path, size_t(256) << 10)));
  return img;
}

}  // namespace ms::preprocess
