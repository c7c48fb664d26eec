// Image resizing as OpenCV's cv::resize does it on float images, which is what MindSpore Lite's
// calibration preprocessing calls: LINEAR is INTER_LINEAR (bilinear, half-pixel centers, the source
// coordinate clamped to the image at the borders), NEAREST is INTER_NEAREST (source index
// floor(dst * src / dst_size), not half-pixel).
#pragma once
#include "preprocess/image.h"
#include "preprocess/image_options.h"

namespace ms::preprocess {

Image resize(const Image& src, HeightWidth to, ResizeMethod method);

}  // namespace ms::preprocess
