// `ms compare`: a model against a reference model (or reference output files) on the same inputs,
// per output and, with layerwise, per paired intermediate tensor; bisect names the first node whose
// output diverges while its inputs still agree.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/input_samples.h"
#include "analysis/metrics.h"
#include "analysis/tensor_pairing.h"
#include "core/graph.h"
#include "runtime/session.h"

namespace ms::analysis {

// One tensor's metrics over every sample.
struct MetricSummary {
  size_t samples = 0;
  size_t failing_samples = 0;
  TensorMetrics mean;   // field by field mean over the samples
  TensorMetrics worst;  // field by field worst value (lowest cosine/PSNR/top-k, largest errors)
  size_t worst_sample = 0;  // the sample with the lowest cosine
  bool pass() const { return failing_samples == 0; }
  void add(const TensorMetrics& m, bool pass, size_t sample);
};

struct OutputResult {
  std::string name;
  std::string ref_name;  // reference output, or reference file
  MetricSummary metrics;
};

struct LayerResult {
  TensorPair pair;
  std::string node;  // label of the producing node, "name (Op)"
  std::string ref_node;
  MetricSummary metrics;
  std::string skipped;  // why the pair was not compared (not a tensor), empty when compared
};

struct Divergence {
  size_t layer = 0;                  // index into CompareResult::layers
  std::vector<size_t> input_layers;  // paired tensors feeding the node (through unpaired ones)
  // The nodes between those inputs and the divergent tensor, in each model: one node each when
  // every tensor pairs, several where a transformation fused or split nodes.
  std::vector<std::string> region;
  std::vector<std::string> ref_region;
  // The node to look at, in each model: the region, narrowed to the node of the same name as the
  // other model's single node when there is one (a fused node keeps its anchor's name).
  std::vector<std::string> nodes;
  std::vector<std::string> ref_nodes;
};

struct Accuracy {
  std::string output;
  size_t rows = 0;
  double model_top1 = 0;
  double ref_top1 = 0;
};

struct CompareResult {
  std::string model_file;
  std::string ref_file;
  std::string backend;      // kernels each side ran with: "fast" or "reference"
  std::string ref_backend;  // empty for reference output files
  std::string inputs;  // where the inputs came from
  size_t samples = 0;
  std::vector<std::string> sample_labels;
  Tolerance tolerance;
  std::vector<OutputResult> outputs;
  bool layerwise = false;
  std::vector<LayerResult> layers;
  bool bisect = false;
  std::optional<Divergence> divergence;
  std::optional<Accuracy> accuracy;
  // "file: output" -> largest change over the samples, for outputs whose bits changed when the
  // intermediate tensors were exposed. The outputs compared above are the unmodified models'.
  std::map<std::string, double> marking_changes;
  bool pass() const;
};

struct CompareOptions {
  Tolerance tolerance;
  bool layerwise = false;
  bool bisect = false;  // implies layerwise
  std::optional<std::vector<int64_t>> labels;
  SessionOptions session;      // how the model under test runs (fast or reference kernels)
  SessionOptions ref_session;  // how the reference model runs
};

// "conv1 (Conv)" for node k of `g` ("#k (Op)" when it has no name).
std::string node_title(const Graph& g, size_t k);

// `model` against `ref` on every sample of `inputs`.
CompareResult compare_models(const Model& model, const Model& ref, const InputSamples& inputs,
                             const CompareOptions& opts);

// `model`'s outputs against reference tensors, one per output in graph order, for one sample.
CompareResult compare_with_outputs(const Model& model, const std::vector<Tensor>& ref_outputs,
                                   const std::vector<std::string>& ref_files, const InputSamples& inputs,
                                   const CompareOptions& opts);

}  // namespace ms::analysis
