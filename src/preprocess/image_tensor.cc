#include "preprocess/image_tensor.h"

#include "preprocess/image_decode.h"
#include "preprocess/image_steps.h"
#include "preprocess/resize.h"

namespace ms::preprocess {

Tensor image_to_tensor(const std::string& path, const ImageOptions& o) {
  const ColorFormat format = o.format.value_or(ColorFormat::RGB);
  Image img = convert_color(decode_image(path), format);
  if (o.size) img = resize(img, *o.size, o.resize_method);
  if (o.center_crop) img = center_crop(img, *o.center_crop, path);
  normalize(img, o.mean, o.std);
  const int64_t h = img.height, w = img.width, c = img.channels;
  if (o.layout.value_or(Layout::NCHW) == Layout::NHWC) {
    Tensor t(DType::Float32, {1, h, w, c});
    std::copy(img.pixels.begin(), img.pixels.end(), t.data<float>());
    return t;
  }
  Tensor t(DType::Float32, {1, c, h, w});
  float* p = t.data<float>();
  for (int64_t k = 0; k < c; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) *p++ = img.at(y, x, k);
  return t;
}

}  // namespace ms::preprocess
