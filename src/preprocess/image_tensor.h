// One image file through the whole chain (decode, colour format, resize, center crop, normalize)
// into a model input tensor.
#pragma once
#include <string>

#include "core/tensor.h"
#include "preprocess/image_options.h"

namespace ms::preprocess {

// float32 [1, C, H, W] (NCHW, the default) or [1, H, W, C] (NHWC); format defaults to RGB.
Tensor image_to_tensor(const std::string& path, const ImageOptions& o);

}  // namespace ms::preprocess
