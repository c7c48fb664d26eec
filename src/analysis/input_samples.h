// The inputs `ms compare` feeds both models: tensor files (one sample, or a dataset of many) or
// seeded random data.
//
// A dataset is given per graph input as: a raw .bin file holding N samples back to back; a .npy
// whose leading axis is the sample axis (shape [N, *input shape], or [N, *input shape without its
// leading 1]); or a folder whose files (.npy/.pb/.bin, sorted by name) are one sample each. An
// input given as a single sample is fed with every sample of the others. A folder of JPEG/PNG/BMP
// images is one sample per image, decoded when the sample is read.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"
#include "preprocess/image_options.h"

namespace ms::analysis {

class InputSamples {
 public:
  // One source per input: how many samples it holds and how to read sample i.
  struct Column {
    size_t count = 1;
    std::function<Value(size_t)> get;
    std::function<std::string(size_t)> label;  // file (and index) the sample comes from
    static Column single(Value v, const std::string& label);
  };
  explicit InputSamples(std::vector<Column> columns);

  size_t count() const { return count_; }
  std::vector<Value> sample(size_t i) const;
  std::string label(size_t i) const;

 private:
  std::vector<Column> columns_;
  size_t count_ = 1;
};

// The inputs a caller must feed: graph inputs up to the last one without an initializer.
std::vector<ValueInfo> required_inputs(const Graph& g);

// Files from --inDataFile, one per graph input in order: every required input, optionally followed
// by inputs that have an initializer (a file replaces their default). A folder of images
// (analysis/image_samples.h) is preprocessed with `images`, its gaps filled from the input's shape.
InputSamples open_input_files(const Graph& g, const std::vector<std::string>& files,
                              const preprocess::ImageOptions& images = {});

struct RandomInputOptions {
  uint64_t seed = 0;
  // Floats are uniform in [lo, hi); integers uniform in [ceil(lo), floor(hi)] (default [0, 9]);
  // booleans fair coin flips.
  std::optional<std::pair<double, double>> range;
};
InputSamples random_inputs(const std::vector<ValueInfo>& inputs, const RandomInputOptions& opts);

}  // namespace ms::analysis
