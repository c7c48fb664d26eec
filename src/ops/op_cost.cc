#include "ops/op_cost.h"

#include <string_view>

#include "ops/conv_pool_util.h"

namespace ms {
namespace {

double numel_of(const std::vector<Shape>& v, size_t i) {
  return i < v.size() && !v[i].empty() ? static_cast<double>(shape_numel(v[i])) : (i < v.size() ? 1.0 : 0.0);
}

// Conv-like: every output element is a dot product over (C / group) x kernel taps.
double conv_flops(const std::vector<Shape>& in, const std::vector<Shape>& out, int64_t group) {
  if (in.size() < 2 || out.empty() || in[1].size() < 2) return 0;
  double taps = static_cast<double>(in[1][1]);  // W is (M, C/group, k...)
  for (size_t d = 2; d < in[1].size(); ++d) taps *= static_cast<double>(in[1][d]);
  return 2.0 * numel_of(out, 0) * taps;
}

double conv_transpose_flops(const std::vector<Shape>& in, int64_t group) {
  if (in.size() < 2 || in[1].size() < 2) return 0;
  // Each input element is scattered to (M / group) x kernel outputs; W is (C, M/group, k...).
  double per_in = 1;
  for (size_t d = 1; d < in[1].size(); ++d) per_in *= static_cast<double>(in[1][d]);
  return 2.0 * numel_of(in, 0) * per_in;
}

double matmul_flops(const std::vector<Shape>& in, const std::vector<Shape>& out, bool trans_a) {
  if (in.size() < 2 || in[0].empty() || out.empty()) return 0;
  const int64_t k = trans_a && in[0].size() == 2 ? in[0][0] : in[0].back();
  return 2.0 * numel_of(out, 0) * static_cast<double>(k);
}

double pool_flops(const Node& node, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  const Attribute* k = node.attr("kernel_shape");
  double taps = 1;
  if (k) {
    for (int64_t d : k->ints) taps *= static_cast<double>(d);
  } else if (!in.empty() && in[0].size() > 2) {  // global pooling reads every input element once
    return numel_of(in, 0);
  }
  return numel_of(out, 0) * taps;
}

// The data input and the weight of an integer op whose weight is input `w` (the QLinear forms put
// scales and zero points between them), in the order conv_flops and matmul_flops read.
std::vector<Shape> data_and_weight(const std::vector<Shape>& in, size_t w) {
  if (in.size() <= w) return {};
  return {in[0], in[w]};
}

int64_t int_attr(const Node& n, const char* name, int64_t def) {
  const Attribute* a = n.attr(name);
  return a ? a->i : def;
}

}  // namespace

double op_flops(const Node& node, const OpDef& def, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  const std::string_view op = node.op_type;
  if (op == "Conv" || op == "FusedConv") {
    double f = conv_flops(in, out, int_attr(node, "group", 1));
    if (op == "FusedConv" && in.size() > 3 && !in[3].empty()) f += numel_of(out, 0);
    return f;
  }
  if (op == "ConvTranspose") return conv_transpose_flops(in, int_attr(node, "group", 1));
  // Integer convolutions and products do the same multiply-adds, on int8 operands.
  if (op == "QLinearConv" || op == "QConvFloatOut") return conv_flops(data_and_weight(in, 3), out, int_attr(node, "group", 1));
  if (op == "ConvInteger") return conv_flops(in, out, int_attr(node, "group", 1));
  if (op == "QLinearMatMul") return matmul_flops(data_and_weight(in, 3), out, false);
  if (op == "MatMulInteger") return matmul_flops(in, out, false);
  if (op == "MatMul" || op == "FusedMatMul") return matmul_flops(in, out, false);
  if (op == "Gemm" || op == "FusedGemm") return matmul_flops(in, out, int_attr(node, "transA", 0) != 0);
  if (op == "MultiHeadAttention" && in.size() >= 3 && in[0].size() == 3 && in[1].size() == 3 && in[2].size() == 3) {
    // Q*K^T over every head, then the probabilities times V: 2*B*Sq*Sk*(H*D + H*Dv).
    const double b = static_cast<double>(in[0][0]), sq = static_cast<double>(in[0][1]), sk = static_cast<double>(in[1][1]);
    return 2.0 * b * sq * sk * static_cast<double>(in[0][2] + in[2][2]);
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return pool_flops(node, in, out);
  // Normalizations: mean, variance, scale and shift per element.
  if (op == "LayerNormalization" || op == "BatchNormalization" || op == "InstanceNormalization") return 5 * numel_of(in, 0);
  // Softmax: max, exp, sum, divide per element.
  if (op == "Softmax" || op == "LogSoftmax") return 4 * numel_of(in, 0);
  if (op.rfind("Reduce", 0) == 0) return numel_of(in, 0);
  if (def.traits & kTraitElementwise) return numel_of(out, 0);
  return 0;
}

}  // namespace ms
