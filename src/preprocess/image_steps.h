// The pixel steps between decoding and resizing/packing, each as MindSpore Lite (OpenCV) does it.
#pragma once
#include <string>
#include <vector>

#include "preprocess/image.h"
#include "preprocess/image_options.h"

namespace ms::preprocess {

// From decoded RGB: RGB as is, BGR channels reversed, GRAY = 0.299 R + 0.587 G + 0.114 B
// (OpenCV's BGR2GRAY weights, in float).
Image convert_color(const Image& rgb, ColorFormat to);

// The size.height x size.width window at offset ((H - h) / 2, (W - w) / 2), rounded down like
// MindSpore Lite's CenterCrop. Larger than the image is InvalidInput naming `path`.
Image center_crop(const Image& img, HeightWidth size, const std::string& path);

// (pixel - mean[c]) / std[c] per channel; an empty mean is 0, an empty std is 1.
void normalize(Image& img, const std::vector<double>& mean, const std::vector<double>& std);

}  // namespace ms::preprocess
