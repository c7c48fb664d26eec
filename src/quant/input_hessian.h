// The second moments H = sum x xᵀ of the vectors x that each quantized weight's rows are dotted
// with, gathered while calibration runs the float model (GPTQ's Hessian of the layer's squared
// output error). Kept per weight, per slice (Conv group, recurrent direction), and only in diagonal
// blocks of kHessianBlock columns: a full H of a 3x3 convolution over 512 channels would take
// 170 MB, and its inverse most of a minute. 128 columns: a block's products cost 128 multiply-adds
// a column and vector (a 512-column block's lower triangle 320), and its 8k entries are estimated
// from the same vectors as a 512 block's 131k, which late layers see fewer of than they have
// columns; GPTQ then moves a column's rounding error onto the other columns of its block only
// (docs/performance.md has the measured effect on the rounding).
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "ops/conv_pool_util.h"
#include "ops/quant_weight.h"
#include "quant/quantizer.h"

namespace ms::quant {

constexpr int64_t kHessianBlock = 128;

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
// still agree, or the value is ignored). Weights whose vectors are the same (they read the same
// values with the same window geometry: Q/K/V MatMuls, convolutions side by side on one input)
// share one H: it is gathered once and copied to each of them by hessians().
class HessianCollector {
 public:
  HessianCollector(const Model& m, const QuantOptions& opts);
  const std::set<std::string>& names() const { return names_; }
  void see(const std::string& name, const Tensor& value);
  // Whether see_blocked takes value `name` (every weight reading it reads convolution windows).
  bool reads_blocked(const std::string& name) const { return names_.count(name) && !row_names_.count(name); }
  // `value` [N, C, H, W] float32 in the channel-blocked layout (rt::blocked_f32_desc: channels in
  // blocks of `block`, the last one zero-padded), as the session passes it between fast kernels:
  // the same vectors as see() of its plain copy, without the copy.
  void see_blocked(const std::string& name, const Tensor& value, int block);
  // How many samples calibration will show (spreads each weight's vector budget over them).
  void expect_samples(size_t n) { samples_ = std::max<size_t>(1, n); }
  void end_sample() { half_ ^= 1, ++sample_; }  // the next values belong to the next calibration sample
  // Adds the vectors still queued (see() batches them); hessians() calls it.
  void finish();
  const std::map<WeightKey, InputHessian>& hessians();
  // The weights whose H is a copy of another's (weight -> the weight it is gathered for).
  const std::map<WeightKey, WeightKey>& shared() const { return copies_; }

 private:
  // A convolution's windows over inputs of one shape: the offsets of every output position's window.
  struct Windows {
    Shape input;
    int64_t K = 0, O = 0, plane = 0;
    std::vector<int64_t> offsets;  // [O, K]; empty when too many: then computed per pick from geom
    WindowGeom geom;
  };
  struct Source {
    WeightKey weight;
    const Node* node;
    ReducedVectors how;
    Shape weight_shape;
    std::shared_ptr<Windows> windows;  // of the latest input shape
  };
  void see_value(const std::string& name, const Tensor& value, int block);
  void add_windows(Source& s, const Tensor& x, int block, InputHessian& h);
  void add_rows(const Source& s, const Tensor& x, InputHessian& h);
  // Room for `rows` vectors [rows, dim] at the end of the queue of h's slice `slice` (the current
  // half); commit() then counts them into h and adds the queue's products once it is full.
  float* room(const WeightKey& key, InputHessian& h, int64_t slice, int64_t rows);
  void commit(const WeightKey& key, InputHessian& h, int64_t slice, int64_t rows);
  static int64_t queue_limit(const InputHessian& h);  // vectors a queue holds before its product

  std::multimap<std::string, Source> sources_;  // only the weights gathered for (not the copies)
  std::set<std::string> names_, row_names_;  // values read, and those read as rows (not windows)
  std::map<WeightKey, WeightKey> copies_;
  std::map<WeightKey, InputHessian> hessians_;
  struct Queue {
    std::unique_ptr<float[]> data;  // [capacity, dim], the first `rows` filled
    int64_t rows = 0, capacity = 0;
  };
  std::map<WeightKey, std::array<std::vector<Queue>, 2>> queued_;  // [half][slice]
  size_t held_bytes_ = 0;  // the queues' capacity
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
