// Rewrites a float model into a quantized one in the IR, the ONNX QDQ way: int8 weight
// initializers read through DequantizeLinear, and (FULL_QUANT) QuantizeLinear/DequantizeLinear
// pairs on the float activations that enter ops with a quantizable weight (src/ops/quant_weight.h).
// Names: a quantized weight's DequantizeLinear outputs the weight's original name, so its consumers
// and `ms compare` see the same tensor names; activations keep their producer's float tensor, and
// the consumer reads `<name>_dequantized` instead.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "ops/quant_weight.h"
#include "quant/observer.h"
#include "quant/quant_params.h"

namespace ms::quant {

enum class QuantType { Full, Weight };

// The default --groupSize of 4-bit weights (see README, `ms quant`, for the measurements behind it).
constexpr int64_t kDefaultGroupSize = 32;
QuantType parse_quant_type(const std::string& s);  // "FULL_QUANT" | "WEIGHT_QUANT"

struct QuantOptions {
  QuantType type = QuantType::Full;
  int bit_num = 8;  // 8, or 4 for WEIGHT_QUANT (blocked int4, opset 21)
  // Consecutive weight elements along the reduction axis that share one scale (blocked, opset 21);
  // <= 0 = one scale per output channel. 4-bit weights are always blocked (<= 0: one block per
  // channel); 8-bit ones only with a positive group size. `ms quant` gives 4-bit weights
  // kDefaultGroupSize unless --groupSize says otherwise.
  int64_t group_size = 0;
  bool per_channel = true;   // weights
  bool symmetric = false;    // activations: int8 with zero point 0 instead of uint8 asymmetric
  int64_t min_quant_weight_size = 0;  // weights with fewer elements stay float
  int64_t min_quant_weight_channel = 0;  // weights with fewer output channels stay float
  std::set<std::string> skip_nodes;
  std::set<std::string> skip_op_types;
  // Nodes kept float by an analysis (sensitivity fallback), with the reason the summary reports.
  std::map<std::string, std::string> keep_float;
  // FULL_QUANT of depthwise convolutions (one input channel per group). Off by default: their
  // inputs' channels span very different ranges that one per-tensor activation scale serves badly
  // (PaddleOCR v4 rec: 2 points of character accuracy lost, none once they stay float), and they
  // hold a small share of the weights and FLOPs.
  bool quantize_depthwise = false;
  // Weights rounded to calibration data (quant/weight_rounding.h), by weight_content_key; the
  // others are rounded to nearest.
  std::shared_ptr<const std::map<std::string, QuantizedWeight>> rounded;
  // Weights rounded to nearest keep each scale group's sum (quant/sum_preserving_rounding.h): the
  // rounding for weights quantized without calibration data. Recurrent ops (no output_channel_axis)
  // round to nearest still: their hidden-state inputs are centred on zero, so a kept sum buys
  // nothing, and Silero VAD's LSTM state lost by it (cosine 0.9984 -> 0.9909 on its test batch).
  bool keep_weight_sums = false;
};

// Per-channel DequantizeLinear (axis) needs opset 13: Unsupported for older models (say so before
// spending time on calibration).
void check_quantizable_opset(const Model& m);
// Brings a model below opset 13 (one ONNX's converter could not upgrade at import) to opset 13 with
// the in-house upgrade (src/formats/onnx/opset_upgrade.h); returns the opset it had. Unsupported,
// naming the nodes, when an operator's change has no rewrite.
int64_t upgrade_to_quantizable_opset(Model& m);

// --bitNum: 8, or 4 with WEIGHT_QUANT; anything else is Unsupported.
void check_bit_num(const QuantOptions& opts);

// Every --skipNodes name must be a node of the model (main graph or a body): InvalidInput naming
// the first unknown.
void check_skip_nodes(const Model& m, const QuantOptions& opts);

// The float activation tensors whose ranges FULL_QUANT needs (empty for WEIGHT_QUANT).
std::vector<std::string> activations_to_calibrate(const Model& m, const QuantOptions& opts);

// The nodes quantize_model would quantize (a quantizable weight, in the main graph or a body, or
// FULL_QUANT activations), in graph order: the "layers" that sensitivity analysis ranks and
// fallback reverts.
std::vector<std::string> quantizable_nodes(const Model& m, const QuantOptions& opts);

// A node whose float32 weight initializer quantize_model will store as int8.
struct WeightSite {
  size_t node = 0;  // index in the main graph
  QuantWeightSpec spec;
  std::string weight;  // initializer name
};
std::vector<WeightSite> weight_sites(const Model& m, const QuantOptions& opts);
// The same for one graph, a body's nodes indexing into that body.
std::vector<WeightSite> weight_sites(const Graph& g, const QuantOptions& opts);

// The int8 form quantize_model gives a weight (per-channel along spec.channel_axis unless
// opts.per_channel is off): opts.rounded's when it holds the weight, else rounded to nearest.
QuantizedWeight quantize_site_weight(const Tensor& w, const QuantWeightSpec& spec, const QuantOptions& opts);

struct QuantSummary {
  int nodes_quantized = 0;  // nodes with a quantized weight or quantized activations
  int weights_quantized = 0;
  int activations_quantized = 0;
  size_t weight_bytes_before = 0, weight_bytes_after = 0;  // of the initializers touched
  std::vector<std::string> kept_float;  // "node (Op): why", for nodes with a quantizable weight
  std::map<std::string, std::string> why_float;  // the same, node name -> why
};

// Quantizes `m` in place. `ranges` holds the calibrated range per activation (FULL_QUANT); an
// activation without one stays float. Weights inside If/Loop/Scan bodies are quantized too (their
// activations stay float: calibration observes the main graph). 4-bit weights raise the model to
// opset 21 (raise_opset_to_21).
QuantSummary quantize_model(Model& m, const QuantOptions& opts, const std::map<std::string, Range>& ranges);

}  // namespace ms::quant
