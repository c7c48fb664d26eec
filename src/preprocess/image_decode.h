// Image files (JPEG, PNG, BMP) decoded with stb_image (Debian's libstb).
#pragma once
#include <string>

#include "preprocess/image.h"

namespace ms::preprocess {

// Whether the name ends in .jpg, .jpeg, .png or .bmp (any case): how a folder of images is told
// from a folder of tensor files.
bool has_image_extension(const std::string& path);

// Three channels in R, G, B order (grey images are replicated, alpha is dropped, 16-bit PNGs are
// scaled to 8 bits), as floats 0..255, JPEGs turned upright by their EXIF orientation (as OpenCV's
// imread does). A file that is not a JPEG, PNG or BMP by its first bytes, or
// that does not decode, is InvalidInput naming the file.
Image decode_image(const std::string& path);

}  // namespace ms::preprocess
