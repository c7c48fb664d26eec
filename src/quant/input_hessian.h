// The second moments H = sum x xᵀ of the vectors x that each quantized weight's rows are dotted
// with, gathered while calibration runs the float model (GPTQ's Hessian of the layer's squared
// output error). Kept per weight, per slice (Conv group, recurrent direction), and only in diagonal
// blocks of kHessianBlock columns: a full H of a 3x3 convolution over 512 channels would take
// 170 MB, and its inverse most of a minute.
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "ops/quant_weight.h"
#include "quant/quantizer.h"

namespace ms::quant {

constexpr int64_t kHessianBlock = 512;

struct InputHessian {
  int64_t dim = 0;    // the weight's reduction length (C/group * kernel for Conv)
  int64_t slices = 1;  // Conv groups, or recurrent directions
  // Sums over the calibration samples of even and of odd index, kept apart so that a rounding fitted
  // to one half can be scored on the other (quant/weight_rounding.cc).
  struct Half {
    // [slice * blocks() + b]: block b's columns squared, row-major, lower triangle only (the upper
    // one is not kept up to date; block() mirrors it). float: IS-Net's take 0.75 GB so, and GPTQ
    // damps H by 1% of its diagonal anyway.
    std::vector<std::vector<float>> parts;
    std::vector<double> vectors;             // per slice, the vectors added
    std::vector<std::vector<double>> sums;   // per slice, the vectors' sum (dim values)
  };
  std::array<Half, 2> halves;
  int64_t blocks() const { return (dim + kHessianBlock - 1) / kHessianBlock; }
  int64_t block_begin(int64_t b) const { return b * kHessianBlock; }
  int64_t block_size(int64_t b) const { return std::min(kHessianBlock, dim - b * kHessianBlock); }
  // Vectors of slice s in half `half` (0 or 1; -1: both).
  double vectors(int half, int64_t s) const;
  // Block b of slice s over half `half` (-1: both): about zero, or `centered` about the mean (the
  // covariance times the count: what is left of the output error once bias correction has removed
  // its mean).
  std::vector<double> block(int half, int64_t s, int64_t b, bool centered) const;
};

// Weights keyed by weight_content_key: copies of one weight share their statistics.
using WeightKey = std::string;

// Gathers the Hessians of the weights quantize_model would quantize, in the main graph and in
// bodies, from the values a ValueWatch hands over (calibrate_stats). Values are read by name:
// names of sibling bodies that repeat each other's would mix their statistics (the sizes must
// still agree, or the value is ignored).
class HessianCollector {
 public:
  HessianCollector(const Model& m, const QuantOptions& opts);
  const std::set<std::string>& names() const { return names_; }
  void see(const std::string& name, const Tensor& value);
  // How many samples calibration will show (spreads each weight's vector budget over them).
  void expect_samples(size_t n) { samples_ = std::max<size_t>(1, n); }
  void end_sample() { half_ ^= 1, ++sample_; }  // the next values belong to the next calibration sample
  // Adds the vectors still queued (see() batches them); hessians() calls it.
  void finish();
  const std::map<WeightKey, InputHessian>& hessians() {
    finish();
    return hessians_;
  }

 private:
  struct Source {
    WeightKey weight;
    const Node* node;
    ReducedVectors how;
    Shape weight_shape;
  };
  void add_windows(const Source& s, const Tensor& x, InputHessian& h);
  void add_rows(const Source& s, const Tensor& x, InputHessian& h);
  // Counts `rows` vectors p [rows, dim] into h (slice `slice`, the current half) and queues their
  // products.
  void queue(const WeightKey& key, InputHessian& h, int64_t slice, const float* p, int64_t rows);

  std::multimap<std::string, Source> sources_;
  std::set<std::string> names_;
  std::map<WeightKey, InputHessian> hessians_;
  std::map<WeightKey, std::array<std::vector<std::vector<float>>, 2>> queued_;  // [half][slice]: [rows, dim]
  size_t held_bytes_ = 0;  // the queues' capacity
  std::vector<float> scratch_;  // one value's picked vectors
  int half_ = 0;  // the sample's parity
  size_t samples_ = 1, sample_ = 0;
};

// The vectors one weight's H gathers in all, for `dim` columns: enough that H is worth fitting (64
// per column; gptq.h shrinks it by n/(n + d) otherwise) and no more, since each costs dim² and a
// small layer that sees few vectors a sample would otherwise keep adding them, sample after sample.
int64_t hessian_vector_budget(int64_t dim);
// The vectors taken from one value of one sample: the budget spread over the samples (so that all
// of them count, not the first few), at most kVectorsPerValue.
int64_t hessian_vectors_per_value(int64_t dim, size_t samples);

}  // namespace ms::quant
