// Which operators each --target supports.
//   cpu    : this project's runtime: the op registry has a definition with a reference kernel.
//   mindir : the MindIR writer maps the op to a MindSpore primitive (formats/mindir).
//   ascend : MindIR-mappable and in the Ascend subset below (ops with Ascend kernels in MindSpore
//            Lite / ACL that converted models commonly use; see docs/diagnostics.md).
//   gpu    : MindIR-mappable and in the GPU subset below.
#include <set>

#include "check/check.h"
#include "formats/mindir/mindir_writer.h"
#include "ops/op.h"

namespace ms::check {

namespace {

// Operators (ONNX names) with Ascend and GPU kernels in MindSpore: the common CNN, RNN-free
// transformer and detection-head operators. Sequence, string, random, training and signal ops are
// not in either subset.
const std::set<std::string>& common_device_ops() {
  static const std::set<std::string> s = {
      "Abs", "Acos", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan", "Atanh",
      "AveragePool", "BatchNormalization", "Cast", "Ceil", "Clip", "Concat", "Constant", "ConstantOfShape", "Conv",
      "ConvTranspose", "Cos", "Cosh", "CumSum", "DepthToSpace", "Div", "Dropout", "Einsum", "Elu", "Equal", "Erf",
      "Exp", "Expand", "Flatten", "Floor", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm",
      "GlobalAveragePool", "GlobalMaxPool", "Greater", "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity",
      "InstanceNormalization", "LRN", "LayerNormalization", "LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax",
      "MatMul", "Max", "MaxPool", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "OneHot", "Or", "PRelu", "Pad",
      "Pow", "Range", "Reciprocal", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
      "Relu", "Reshape", "Resize", "Round", "ScatterElements", "ScatterND", "Selu", "Shape", "Sigmoid", "Sign", "Sin",
      "Sinh", "Size", "Slice", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Split", "Sqrt", "Squeeze", "Sub",
      "Sum", "Tan", "Tanh", "Tile", "TopK", "Transpose", "Unsqueeze", "Upsample", "Where", "Xor"};
  return s;
}

const std::set<std::string>& ascend_only_ops() {
  static const std::set<std::string> s = {"LSTM", "GRU", "NonMaxSuppression", "RoiAlign", "QuantizeLinear",
                                          "DequantizeLinear"};
  return s;
}

const std::set<std::string>& gpu_only_ops() {
  static const std::set<std::string> s = {"LSTM", "GRU", "NonZero", "ReduceLogSumExp", "RoiAlign"};
  return s;
}

}  // namespace

bool target_supports(Target t, const std::string& domain, const std::string& op_type) {
  switch (t) {
    case Target::Cpu: {
      const OpDef* d = OpRegistry::global().find(domain, op_type);
      return d && d->kernel;
    }
    case Target::MindIR: return mindir::mindir_can_export_op(domain, op_type);
    case Target::Ascend:
      return domain.empty() && mindir::mindir_can_export_op(domain, op_type) &&
             (common_device_ops().count(op_type) || ascend_only_ops().count(op_type));
    case Target::Gpu:
      return domain.empty() && mindir::mindir_can_export_op(domain, op_type) &&
             (common_device_ops().count(op_type) || gpu_only_ops().count(op_type));
  }
  return false;
}

}  // namespace ms::check
