// Which operator changes up to opset 13 the in-house upgrade rewrites, and which leave every older
// model's meaning as it was (new types, new attributes whose default is the old behaviour, negative
// axes allowed, wording). Sources: ONNX's Changelog.md and the adapters ONNX 1.12's own version
// converter registers (onnx/version_converter/convert.h). A version missing here is unsupported.
#include <map>
#include <utility>

#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format {
namespace {

namespace a = adapters;
using Key = std::pair<std::string, int>;

struct Table {
  std::map<Key, UpgradeStep> steps;
  void same(const std::string& op, std::initializer_list<int> versions) {
    for (int v : versions) steps[{op, v}] = {true, nullptr, false};
  }
  void rewrite(const std::string& op, int v, Adapter f, bool final_form = false) { steps[{op, v}] = {true, f, final_form}; }
};

Table build() {
  Table t;
  // Unary ops: v6 dropped `consumed_inputs`, v13 added bfloat16.
  for (const char* op : {"Abs", "Ceil", "Exp", "Floor", "Log", "Neg", "Reciprocal", "Relu", "Sigmoid", "Sqrt", "Tanh"}) {
    t.rewrite(op, 6, a::drop_consumed_inputs);
    t.same(op, {13});
  }
  for (const char* op : {"Elu", "HardSigmoid", "LeakyRelu", "Selu", "InstanceNormalization"}) t.rewrite(op, 6, a::drop_consumed_inputs);
  // Binary arithmetic: v6 consumed_inputs, v7 numpy broadcasting instead of broadcast/axis.
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    t.rewrite(op, 6, a::drop_consumed_inputs);
    t.rewrite(op, 7, a::legacy_broadcast_7);
    t.same(op, {13});
  }
  t.rewrite("Pow", 7, a::legacy_broadcast_7);
  t.same("Pow", {12, 13});  // integer exponents and bases
  for (const char* op : {"And", "Or", "Xor"}) t.rewrite(op, 7, a::legacy_broadcast_7);
  t.rewrite("Equal", 7, a::legacy_broadcast_7);
  t.same("Equal", {11, 13});
  for (const char* op : {"Greater", "Less"}) {
    t.rewrite(op, 7, a::legacy_broadcast_7);
    t.same(op, {9, 13});
  }
  // Variadic: v6 consumed_inputs, v8 multidirectional broadcasting (v6 required equal shapes).
  for (const char* op : {"Max", "Min", "Mean", "Sum"}) {
    t.rewrite(op, 6, a::drop_consumed_inputs);
    t.same(op, {8, 13});
  }
  t.same("Max", {12});
  t.same("Min", {12});
  t.rewrite("PRelu", 6, a::drop_consumed_inputs);
  t.rewrite("PRelu", 7, a::prelu_7);
  t.same("PRelu", {9});
  t.same("Gemm", {6, 9, 11, 13});  // 6: types; 11: C optional
  t.rewrite("Gemm", 7, a::gemm_7);
  t.same("MatMul", {9, 13});
  t.rewrite("Clip", 6, a::drop_consumed_inputs);
  t.rewrite("Clip", 11, a::clip_11);
  t.same("Clip", {12, 13});
  t.rewrite("Cast", 6, a::cast_6);
  t.same("Cast", {9, 13});  // string casts, bfloat16
  t.rewrite("Concat", 4, a::concat_4);
  t.same("Concat", {11, 13});
  t.rewrite("Reshape", 5, a::reshape_5);
  t.same("Reshape", {13});
  t.rewrite("Slice", 10, a::slice_10);
  t.same("Slice", {11, 13});
  t.rewrite("Pad", 2, a::pad_2);
  t.rewrite("Pad", 11, a::pad_11);
  t.same("Pad", {13});
  t.rewrite("TopK", 10, a::topk_10);
  t.same("TopK", {11});  // largest/sorted default to the old behaviour
  for (const char* op : {"Squeeze", "Unsqueeze"}) {
    t.same(op, {11});
    t.rewrite(op, 13, a::axes_to_input_13);
  }
  t.rewrite("Split", 2, a::split_2);
  t.same("Split", {11});
  t.rewrite("Split", 13, a::split_13);
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
                         "ReduceProd", "ReduceSum", "ReduceSumSquare"})
    t.same(op, {11});
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
                         "ReduceProd", "ReduceSumSquare"})
    t.same(op, {13});
  t.same("ReduceMax", {12});
  t.same("ReduceMin", {12});
  t.rewrite("ReduceSum", 13, a::axes_to_input_13);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    t.same(op, {11});  // negative axis allowed
    t.rewrite(op, 13, a::softmax_13);
  }
  t.rewrite("BatchNormalization", 6, a::drop_consumed_inputs);
  t.rewrite("BatchNormalization", 7, a::batch_norm_7);
  t.rewrite("BatchNormalization", 9, a::batch_norm_9);
  t.rewrite("Dropout", 6, a::drop_consumed_inputs);
  t.rewrite("Dropout", 7, a::dropout_7);
  t.rewrite("Dropout", 10, a::dropout_10);
  t.rewrite("Dropout", 12, a::dropout_12);
  t.same("Dropout", {13});
  // Upsample-7 and -9 forms are all read by the one rewrite into Resize (Upsample is deprecated at 10).
  t.same("Upsample", {7, 9});
  t.rewrite("Upsample", 10, a::upsample_to_resize, true);
  t.rewrite("Resize", 11, a::resize_11);
  t.same("Resize", {13});
  t.rewrite("Scatter", 11, a::scatter_to_scatter_elements, true);  // deprecated for ScatterElements
  t.same("ScatterElements", {13});
  t.same("ScatterND", {13});
  // Pools and convolutions: count_include_pad (7), storage_order/indices (8), ceil_mode and
  // dilations (10), wording of pads (11), int8 (12) — all defaulting to the old behaviour.
  t.same("AveragePool", {7, 10, 11});
  t.same("MaxPool", {8, 10, 11, 12});
  t.same("Conv", {11});
  t.same("ConvTranspose", {11});
  t.rewrite("LpPool", 2, a::lp_pool_2);
  t.same("LpPool", {11});
  t.rewrite("GlobalLpPool", 2, a::lp_pool_2);
  t.same("MaxUnpool", {11});
  // Recurrent: output_sequence removed (7; Y is an optional output instead), GRU linear_before_reset (3).
  t.same("GRU", {3});
  for (const char* op : {"RNN", "GRU", "LSTM"}) t.rewrite(op, 7, a::recurrent_7);
  // Type extensions, negative axes/indices, new attributes with the old default.
  t.same("ArgMax", {11, 12, 13});
  t.same("ArgMin", {11, 12, 13});
  t.same("Constant", {9, 11, 12, 13});
  t.same("DepthToSpace", {11, 13});  // mode defaults to DCR, the old order
  t.same("Flatten", {9, 11, 13});
  t.same("Gather", {11, 13});
  t.same("GatherElements", {13});
  t.same("GatherND", {12, 13});
  t.same("Identity", {13});
  t.same("If", {11, 13});
  t.same("Loop", {11, 13});
  t.same("Scan", {11});  // Scan-8 (batch axis) is not rewritten
  t.same("Compress", {11});
  t.same("OneHot", {11});
  t.same("NonMaxSuppression", {11});
  t.same("Expand", {13});
  t.same("Erf", {13});
  t.same("IsNaN", {13});
  t.same("LRN", {13});
  t.same("Mod", {13});
  t.same("MeanVarianceNormalization", {13});
  t.same("NonZero", {13});
  t.same("Shape", {13});
  t.same("Size", {13});
  t.same("Sign", {13});
  t.same("SpaceToDepth", {13});
  t.same("Tile", {13});  // Tile-1 (tiles + axis inputs) is not rewritten
  t.same("Transpose", {13});
  t.same("QuantizeLinear", {13});  // per-axis scales, axis defaults to 1
  t.same("DequantizeLinear", {13});
  t.same("NegativeLogLikelihoodLoss", {13});
  t.same("SoftmaxCrossEntropyLoss", {13});
  return t;
}

}  // namespace

UpgradeStep find_upgrade_step(const std::string& op, int since) {
  static const Table table = build();
  auto it = table.steps.find({op, since});
  return it == table.steps.end() ? UpgradeStep{} : it->second;
}

}  // namespace ms::onnx_format
