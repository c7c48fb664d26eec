// Writes a synthetic BERT-like encoder as PyTorch's ONNX export (opset 17) spells it: 4 layers,
// hidden 256, 4 heads of 64, sequence 128, FFN 1024, post-LayerNorm. The input is the float32
// embedding sum `input_embeds` [1,128,256] (token ids + Gather are left out: they only add a
// table lookup the optimizer does not touch); the output is `last_hidden_state` [1,128,256].
// Spelled out the way the exporter leaves them, which is what the optimizer must recognize:
//   LayerNorm   ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta
//   GELU        Div sqrt(2), Erf, Add 1, Mul x, Mul 0.5
//   Linear      MatMul + Add bias
//   attention   per Q/K/V: Reshape to [B,S,4,64] with the shape built by Shape, Gather,
//               Unsqueeze, Concat; Transpose; MatMul Q*K^T; Div sqrt(64); Softmax; MatMul V;
//               Transpose; Reshape back
// With --attention-mask, a second input `attention_mask` int64 [1,128] (1 = attend, 0 = padding)
// enters every layer's scores as Hugging Face's BERT adds it:
//   scores + (1 - Cast(Unsqueeze(mask, [1, 2]), float)) * float32_lowest
// Seeded weights (BERT's initializer: normal, stddev 0.02).
//   ms_make_bert_like bert_like.onnx [--attention-mask]
#include <iostream>
#include <limits>

#include "formats/model_io.h"
#include "synthetic_builder.h"

using namespace ms;
using ms::tools::SyntheticBuilder;

namespace {

constexpr int64_t kLayers = 4, kHidden = 256, kHeads = 4, kHeadDim = kHidden / kHeads, kSeq = 128, kFfn = 1024;

struct BertBuilder : SyntheticBuilder {
  BertBuilder() : SyntheticBuilder(20240602) {}

  Attribute ints_attr(std::vector<int64_t> v) { return Attribute::of_ints(std::move(v)); }

  std::string linear(const std::string& x, int64_t in, int64_t out) {
    std::string y = node("MatMul", {x, weight({in, out}, 0.02f)});
    return node("Add", {weight({out}, 0.02f), y});  // torch writes bias + x @ W
  }

  std::string layer_norm(const std::string& x) {
    std::string mean = node("ReduceMean", {x}, {{"axes", ints_attr({-1})}, {"keepdims", Attribute::of_int(1)}});
    std::string d = node("Sub", {x, mean});
    std::string sq = node("Pow", {d, scalar(2.f)});
    std::string var = node("ReduceMean", {sq}, {{"axes", ints_attr({-1})}, {"keepdims", Attribute::of_int(1)}});
    std::string std_dev = node("Sqrt", {node("Add", {var, scalar(1e-12f)})});
    std::string n = node("Div", {d, std_dev});
    return node("Add", {node("Mul", {n, weight({kHidden}, 0.05f, 1.f)}), weight({kHidden}, 0.02f)});
  }

  std::string gelu(const std::string& x) {
    std::string e = node("Erf", {node("Div", {x, scalar(1.4142135381698608f)})});
    return node("Mul", {node("Mul", {x, node("Add", {e, scalar(1.f)})}), scalar(0.5f)});
  }

  // The shape [B, S, tail...] of x's first two dims followed by constants, built at run time as
  // the exporter does for dynamic axes.
  std::string runtime_shape(const std::string& x, const std::vector<int64_t>& tail) {
    std::string s = node("Shape", {x});
    std::vector<std::string> parts;
    for (int64_t axis : {0, 1}) {
      std::string g = node("Gather", {s, initializer(Tensor::scalar<int64_t>(axis), "i")}, {{"axis", Attribute::of_int(0)}});
      parts.push_back(node("Unsqueeze", {g, ints({0})}));
    }
    for (int64_t t : tail) parts.push_back(ints({t}));
    return node("Concat", parts, {{"axis", Attribute::of_int(0)}});
  }

  // The additive [1,1,1,S] mask from the int64 attention_mask input.
  std::string extended_mask() {
    std::string m = node("Unsqueeze", {"attention_mask", ints({1, 2})});
    m = node("Cast", {m}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Float32))}});
    m = node("Sub", {scalar(1.f), m});
    return node("Mul", {m, scalar(std::numeric_limits<float>::lowest())});
  }

  std::string attention(const std::string& x, const std::string& mask) {
    auto heads = [&](const std::string& t, std::vector<int64_t> perm) {
      std::string r = node("Reshape", {t, runtime_shape(t, {kHeads, kHeadDim})});
      return node("Transpose", {r}, {{"perm", ints_attr(std::move(perm))}});
    };
    std::string q = heads(linear(x, kHidden, kHidden), {0, 2, 1, 3});
    std::string k = heads(linear(x, kHidden, kHidden), {0, 2, 3, 1});
    std::string v = heads(linear(x, kHidden, kHidden), {0, 2, 1, 3});
    std::string scores = node("Div", {node("MatMul", {q, k}), scalar(8.f)});  // sqrt(head dim 64)
    if (!mask.empty()) scores = node("Add", {scores, mask});
    std::string probs = node("Softmax", {scores}, {{"axis", Attribute::of_int(-1)}});
    std::string ctx = node("Transpose", {node("MatMul", {probs, v})}, {{"perm", ints_attr({0, 2, 1, 3})}});
    std::string merged = node("Reshape", {ctx, runtime_shape(x, {kHidden})});
    return linear(merged, kHidden, kHidden);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool with_mask = argc == 3 && std::string(argv[2]) == "--attention-mask";
  if (argc != 2 && !with_mask) {
    std::cerr << "usage: ms_make_bert_like OUT.onnx [--attention-mask]\n";
    return 2;
  }
  BertBuilder b;
  Model& m = b.model();
  m.opsets[""] = 17;
  m.producer_name = "ms_make_bert_like";
  m.graph.name = "bert_like";
  m.graph.inputs = {{"input_embeds", TypeInfo::tensor(DType::Float32, Shape{1, kSeq, kHidden})}};
  std::string mask;
  if (with_mask) {
    m.graph.inputs.push_back({"attention_mask", TypeInfo::tensor(DType::Int64, Shape{1, kSeq})});
    mask = b.extended_mask();
  }
  std::string x = b.layer_norm("input_embeds");
  for (int64_t l = 0; l < kLayers; ++l) {
    x = b.layer_norm(b.node("Add", {x, b.attention(x, mask)}));
    std::string ffn = b.linear(b.gelu(b.linear(x, kHidden, kFfn)), kFfn, kHidden);
    x = b.layer_norm(b.node("Add", {x, ffn}));
  }
  b.name_last_output("last_hidden_state");
  m.graph.outputs = {{"last_hidden_state", TypeInfo::tensor(DType::Float32, Shape{1, kSeq, kHidden})}};
  save_model(m, argv[1], ModelFormat::Onnx);
  std::cout << "wrote " << argv[1] << ": " << m.graph.nodes.size() << " nodes, " << b.parameter_bytes() << " parameter bytes\n";
  return 0;
}
