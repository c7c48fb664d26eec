// The image preprocessing flags shared by `ms preprocess` and `ms quant` (an image folder as
// calibration data); MindSpore Lite's [data_preprocess_param] keys map onto them.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "preprocess/image_options.h"

namespace ms::cli {

struct PreprocessFlags {
  std::string size, center_crop, mean, std, image_format, layout, resize_method;
};

// `layout_default` is what --help says happens without --layout (the commands differ).
void add_preprocess_flags(CLI::App& app, PreprocessFlags& f, const std::string& layout_default);

// The parsed options; only the flags given are set (bad values are InvalidInput naming the flag).
preprocess::ImageOptions image_options(const PreprocessFlags& f);

}  // namespace ms::cli
