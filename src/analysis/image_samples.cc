#include "analysis/image_samples.h"

#include <filesystem>

#include "preprocess/image_folder.h"
#include "preprocess/image_tensor.h"

namespace ms::analysis {

using preprocess::ColorFormat;
using preprocess::HeightWidth;
using preprocess::Layout;

bool is_image_folder(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) && preprocess::holds_images(path);
}

preprocess::ImageOptions fit_image_options(const preprocess::ImageOptions& o, const ValueInfo& in, const std::string& dir) {
  const TypeInfo& t = in.type;
  if (t.kind != TypeInfo::Kind::Tensor || t.dtype != DType::Float32 || !t.shape || t.shape->size() != 4)
    fail("{}: images feed 4-D float32 inputs (NCHW or NHWC), but input '{}' is {}; give tensor files instead", dir, in.name, t.str());
  const auto& d = *t.shape;
  if (d[0].is_static() && d[0].value != 1)
    fail_unsupported("{}: input '{}' ({}) takes a batch of {} images per sample; only batch 1 is supported (fix it with "
                     "--inputShape)", dir, in.name, t.str(), d[0].value);
  auto dim_is = [&](size_t axis, int64_t c) { return d[axis].is_static() && d[axis].value == c; };
  preprocess::ImageOptions r = o;
  if (!r.layout) {
    // The axis of 1 or 3 channels; where both could be, the one --imageFormat's channel count fits.
    bool nchw = dim_is(1, 1) || dim_is(1, 3), nhwc = dim_is(3, 1) || dim_is(3, 3);
    if (nchw && nhwc && o.format) {
      nchw = dim_is(1, preprocess::channel_count(*o.format));
      nhwc = dim_is(3, preprocess::channel_count(*o.format));
    }
    if (nchw == nhwc)
      fail("{}: cannot tell from input '{}' ({}) where its channel axis is; give --layout NCHW or NHWC", dir, in.name, t.str());
    r.layout = nchw ? Layout::NCHW : Layout::NHWC;
  }
  const size_t c_axis = *r.layout == Layout::NCHW ? 1 : 3, h_axis = *r.layout == Layout::NCHW ? 2 : 1;
  if (!r.format) r.format = dim_is(c_axis, 1) ? ColorFormat::GRAY : ColorFormat::RGB;
  const int64_t channels = preprocess::channel_count(*r.format);
  if (d[c_axis].is_static() && d[c_axis].value != channels)
    fail("{}: {} images have {} channel(s) but input '{}' ({}, {}) takes {}; choose --imageFormat {}", dir,
         preprocess::color_format_name(*r.format), channels, in.name, t.str(), preprocess::layout_name(*r.layout),
         d[c_axis].value, d[c_axis].value == 1 ? "GRAY" : "RGB or BGR");
  preprocess::check_normalization(r, *r.format);
  const Dim& h = d[h_axis];
  const Dim& w = d[h_axis + 1];
  if (!r.size && !r.center_crop) {
    if (!h.is_static() || !w.is_static())
      fail("{}: input '{}' ({}) has no fixed height and width; give --size HEIGHT,WIDTH", dir, in.name, t.str());
    r.size = HeightWidth{h.value, w.value};
  }
  const HeightWidth out = r.center_crop ? *r.center_crop : *r.size;
  if ((h.is_static() && h.value != out.height) || (w.is_static() && w.value != out.width))
    fail("{}: the images come out {}x{} after --{} but input '{}' ({}) takes {}x{}; make the last of --size and "
         "--centerCrop match the input", dir, out.height, out.width, r.center_crop ? "centerCrop" : "size", in.name, t.str(),
         h.is_static() ? std::to_string(h.value) : h.param, w.is_static() ? std::to_string(w.value) : w.param);
  return r;
}

InputSamples::Column open_image_folder(const std::string& dir, const ValueInfo& in, const preprocess::ImageOptions& o) {
  const preprocess::ImageOptions fitted = fit_image_options(o, in, dir);
  const auto files = preprocess::list_images(dir);
  return {files.size(), [files, fitted](size_t i) { return Value(preprocess::image_to_tensor(files[i], fitted)); },
          [files](size_t i) { return files[i]; }};
}

}  // namespace ms::analysis
