// Which QuantizeLinear/DequantizeLinear nodes of an IR graph the MindIR writer folds into
// MindSpore's quantization parameters (mindir_quant_params.h), and where each parameter goes.
// Everything not folded is written as explicit QuantizeLinear/DequantizeLinear primitives, so the
// file always computes what the IR computes.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/mindir/mindir_quant_params.h"

namespace ms::mindir {

struct QuantFoldPlan {
  // An int8/uint8 weight initializer read through DequantizeLinear: written as one int8 parameter
  // named after the DequantizeLinear's output, carrying the scales in quant_params.
  struct Weight {
    const Tensor* q = nullptr;
    LinearQuant params;
    int axis = -1;  // -1 per tensor
  };
  std::map<const Node*, std::string> weight_nodes;  // DequantizeLinear -> parameter name
  std::map<std::string, Weight> weights;

  // A QuantizeLinear -> DequantizeLinear pair on a float activation `value` (fake quantization).
  // MindSpore puts an activation's parameters on what produces it, so every reader of the value
  // reads it quantized. ONNX QDQ can say more: some consumers read the float value, others the
  // dequantized one. The carrier keeps the IR's meaning:
  //   Producer:   every use of `value` goes through this pair: the producing node's primitive gets
  //               `quant_param`, and the dequantized value is that node's output;
  //   GraphInput: the same for a graph input: each primitive reading it gets
  //               `graph_input_quant_param` (MindSpore's convention for graph inputs);
  //   Identity:   anything else (the float value has other readers, is a graph output, an
  //               initializer or a Constant, or a consumer reads two quantized graph inputs, which
  //               one primitive attribute cannot tell apart): an Identity of `value` carries
  //               `quant_param`, and only the pair's readers read that Identity.
  enum class Carrier { Producer, GraphInput, Identity };
  struct Activation {
    std::string value;
    LinearQuant params;
    Carrier carrier = Carrier::Identity;
    std::vector<std::string> dequantized;  // the DequantizeLinear outputs
  };
  std::vector<Activation> activations;
  std::map<const Node*, size_t> activation_nodes;  // QuantizeLinear and DequantizeLinear -> index
  std::map<std::string, size_t> producer_outputs;  // Producer carriers: value -> index
  std::map<std::string, size_t> graph_inputs;      // GraphInput carriers: graph input -> index
};

// The plan for the main graph of `m` (subgraphs keep their nodes). Weights named in `unfolded`
// stay explicit DequantizeLinear nodes (the writer found their axis would not read back).
QuantFoldPlan plan_quant_folding(const Model& m, const std::set<std::string>& unfolded);

}  // namespace ms::mindir
