// EXIF orientation of JPEG photographs. Cameras and phones store the sensor's pixels as they came
// and say in an EXIF tag how to turn them for display; OpenCV's imread (MindSpore Lite's
// preprocessing) applies the tag, stb_image does not, so a portrait photo would be calibrated on
// its side.
#pragma once
#include <string>

#include "preprocess/image.h"

namespace ms::preprocess {

// The orientation tag (1..8, TIFF/EXIF 0x0112) of a JPEG file's bytes; 1 when there is none or the
// EXIF block is malformed (an unreadable tag leaves the image as stored, as viewers do).
int jpeg_exif_orientation(const std::string& jpeg);

// `img` turned as orientation `o` says: 2 mirror left-right, 3 rotate 180°, 4 mirror top-bottom,
// 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate 90° counter-clockwise; 1 (or any
// other value) unchanged.
Image apply_exif_orientation(const Image& img, int o);

}  // namespace ms::preprocess
