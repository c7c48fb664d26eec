#include "preprocess/image_folder.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "preprocess/image_decode.h"

namespace ms::preprocess {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> regular_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  if (ec) fail("{}: cannot read the folder ({})", dir, ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool holds_images(const std::string& dir) {
  const auto files = regular_files(dir);
  return std::any_of(files.begin(), files.end(), has_image_extension);
}

std::vector<std::string> list_images(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail("{}: no such folder (expected a folder of JPEG, PNG or BMP images)", dir);
  const auto files = regular_files(dir);
  if (files.empty()) fail("{}: the folder holds no images (JPEG, PNG or BMP files)", dir);
  for (const auto& f : files)
    if (!has_image_extension(f))
      fail("{}: not an image file (expected .jpg, .jpeg, .png or .bmp); an image folder holds images only", f);
  return files;
}

}  // namespace ms::preprocess
