// Linear quantization parameters in MindSpore's MindIR form (shared/docs/mindir-format.md §4):
// TensorProto.quant_params entries named "linear_quant" whose attributes are LISTs with one element
// per channel, on weight parameters; activation (output) parameters on the producing primitive as
// attr `quant_param` (a LIST of TENSORS named "quant_param", one per output), and a graph input's on
// its consumer's primitive as `graph_input_quant_param` (TENSORS named so). The IR says the same
// with ONNX's QuantizeLinear/DequantizeLinear; the writer folds those into this form and the reader
// expands it back (mindir_quant_fold.cc, mindir_reader.cc).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "mind_ir.pb.h"

namespace ms::mindir {

// One tensor's parameters, per channel (one element per tensor). x ~= (q - zero_point) * scale.
struct LinearQuant {
  std::vector<double> scale;
  std::vector<int32_t> zero_point;
  std::vector<double> min, max;  // the float range the integers cover
  int num_bits = 8;
  bool narrow_range = false;
  DType dtype = DType::Int8;  // the integer type (Lite QuantParam.dstDtype, a TypeId)
  size_t channels() const { return scale.size(); }
};

// From IR scale/zero-point tensors (scalar or 1-D). `zero_point` may be null (0). `narrow` says the
// integers avoid the type's lowest value (symmetric weights).
LinearQuant linear_quant_from_ir(const Tensor& scale, const Tensor* zero_point, DType q_dtype, bool narrow);
// The IR tensors back: float32 scale and a zero point of q's dtype, scalar when per_tensor.
Tensor scale_tensor(const LinearQuant& q, bool per_tensor);
Tensor zero_point_tensor(const LinearQuant& q, bool per_tensor);

// QuantParamProto "linear_quant" with every list MindSpore Lite's QuantParam has (its converter
// reads all eleven: ConvertQuantizationParamToQuantParamT).
void encode_linear_quant(const LinearQuant& q, mind_ir::TensorProto_QuantParamProto* out);

struct DecodedQuant {
  LinearQuant q;
  // scale, zero point, min, max, var_corr, mean_corr, num_bits and narrow_range all present: what
  // MindSpore Lite needs before it treats the entry as a quantization of the tensor.
  bool complete = false;
};
// nullopt for other algorithms (cluster_quant). Refuses (InvalidInput, naming `what`) a non-LIST
// attribute, an element of the wrong type, lists of different lengths, a scale that is not positive
// and finite, a zero point outside the integer type.
std::optional<DecodedQuant> decode_linear_quant(const mind_ir::TensorProto_QuantParamProto& p, DType q_dtype,
                                                const std::string& what);
// The integer type an activation entry names in dst_dtype_list (int8 when absent, Lite's default).
DType activation_dtype(const mind_ir::TensorProto_QuantParamProto& p, const std::string& what);

// Primitive attributes: `quant_param` (LIST of TENSORS "quant_param", one per output) and
// `graph_input_quant_param` (TENSORS "graph_input_quant_param").
void encode_output_quant_param(const LinearQuant& q, mind_ir::AttributeProto* a);
void encode_graph_input_quant_param(const LinearQuant& q, mind_ir::AttributeProto* a);
// The QuantParamProto(s) such an attribute holds; InvalidInput for any other shape of attribute.
std::vector<const mind_ir::TensorProto_QuantParamProto*> output_quant_params(const mind_ir::AttributeProto& a,
                                                                              const std::string& what);
const mind_ir::TensorProto_QuantParamProto* graph_input_quant_param(const mind_ir::AttributeProto& a, const std::string& what);

// MindIR does not store a per-channel weight's axis: MindSpore Lite takes it from the consuming
// primitive (quantize_util GetPreferredDim): a MatMul's second operand is per column unless
// transposed, its first per row; everything else (Conv2D's OIHW weight) along axis 0.
int preferred_weight_axis(const std::string& prim, bool transpose_a, bool transpose_b, int input_index, int rank);
// The axis a reader gives a weight of `dims` with `channels` parameters: -1 per tensor, else
// `preferred` when that axis has `channels` elements, else the only axis that has; InvalidInput
// (naming `what`) when none or several do.
int resolve_weight_axis(size_t channels, const std::vector<int64_t>& dims, int preferred, const std::string& what);
// preferred_weight_axis for parameter `value` of graph `g`, from the first node that reads it
// (through Load). `prim_of` gives the PrimitiveProto a node's op_type refers to (null if none).
int preferred_axis_in_graph(const mind_ir::GraphProto& g,
                            const std::function<const mind_ir::PrimitiveProto*(const std::string&)>& prim_of,
                            const std::string& value, int rank);

}  // namespace ms::mindir
