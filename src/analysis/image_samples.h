// A folder of images as the samples of one model input (`ms quant --inputFile <image folder>`):
// each image is decoded and preprocessed only when its sample is asked for, so memory does not
// grow with the number of images.
#pragma once
#include <string>

#include "analysis/input_samples.h"
#include "preprocess/image_options.h"

namespace ms::analysis {

// Whether `path` is a folder of images (rather than of tensor files).
bool is_image_folder(const std::string& path);

// `o` with what it leaves unset taken from input `in`'s declared shape, a 4-D float32 input with
// batch 1: the layout (the axis of 1 or 3 channels), the colour format (GRAY for one channel, else
// RGB) and the resize target (the input's height and width, when neither size nor center crop is
// given). Options that contradict the input are InvalidInput naming `dir` and the input.
preprocess::ImageOptions fit_image_options(const preprocess::ImageOptions& o, const ValueInfo& in, const std::string& dir);

InputSamples::Column open_image_folder(const std::string& dir, const ValueInfo& in, const preprocess::ImageOptions& o);

}  // namespace ms::analysis
