// oneDNN matmul kernels (MatMul, Gemm, FusedMatMul, FusedGemm) and the attention kernel against
// the reference kernels: batch broadcasting, vectors, transposes, alpha/beta, bias broadcasting.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

void check_matmul(const Shape& a, const Shape& b, bool b_constant) {
  ModelSpec s;
  s.nodes = {make_node("MatMul", {"a", "b"}, {"y"})};
  s.inputs = {{"a", random_tensor(a, 31)}};
  if (b_constant) s.weights["b"] = random_tensor(b, 32);
  else s.inputs.push_back({"b", random_tensor(b, 32)});
  s.outputs = {"y"};
  SCOPED_TRACE(shape_str(a) + " x " + shape_str(b));
  check_against_reference(s, {"MatMul"}, 1e-4, 1e-5);
}

TEST(FastMatMul, ShapesAndBroadcasting) {
  check_matmul({3, 17}, {17, 5}, true);
  check_matmul({2, 7, 33}, {33, 65}, true);      // batched A, constant 2-D B (one tall product)
  check_matmul({2, 3, 7, 9}, {3, 9, 4}, false);  // batch broadcast of B
  check_matmul({4, 1, 5, 6}, {3, 6, 2}, false);  // both sides broadcast
  check_matmul({9}, {9, 4}, false);              // vector on the left
  check_matmul({2, 5, 9}, {9}, false);           // vector on the right
}

void check_gemm(const std::string& op, const Shape& a, const Shape& b, const Shape& c, std::map<std::string, Attribute> attrs) {
  ModelSpec s;
  Node n = make_node(op, {"a", "b"}, {"y"});
  n.domain = op == "FusedGemm" || op == "FusedMatMul" ? kMsDomain : "";
  n.attrs = std::move(attrs);
  s.inputs = {{"a", random_tensor(a, 41)}};
  s.weights["b"] = random_tensor(b, 42);
  if (!c.empty() || op != "FusedMatMul") {
    n.inputs.push_back("c");
    s.weights["c"] = random_tensor(c, 43);
  }
  s.nodes = {n};
  s.outputs = {"y"};
  SCOPED_TRACE(op + " " + shape_str(a) + " " + shape_str(b) + " " + shape_str(c));
  check_against_reference(s, {op}, 1e-4, 1e-5);
}

TEST(FastGemm, TransposesScalesAndBias) {
  check_gemm("Gemm", {5, 7}, {7, 3}, {3}, {});
  check_gemm("Gemm", {7, 5}, {3, 7}, {5, 3}, {{"transA", Attribute::of_int(1)}, {"transB", Attribute::of_int(1)}});
  check_gemm("Gemm", {5, 7}, {3, 7}, {5, 1},
             {{"transB", Attribute::of_int(1)}, {"alpha", Attribute::of_float(0.5f)}, {"beta", Attribute::of_float(2.f)}});
  check_gemm("FusedGemm", {4, 64}, {64, 1000}, {1000}, {{"activation", Attribute::of_string("Relu")}});
  check_gemm("FusedMatMul", {2, 9, 16}, {16, 12}, {12}, {{"activation", Attribute::of_string("Gelu")}});
  check_gemm("FusedMatMul", {2, 9, 16}, {16, 12}, {}, {{"activation", Attribute::of_string("Tanh")}});
}

TEST(FastAttention, MultiHeadAttention) {
  for (float scale : {0.f, 0.3f}) {
    ModelSpec s;
    Node n = make_node("MultiHeadAttention", {"q", "k", "v"}, {"y"});
    n.domain = kMsDomain;
    n.attrs["num_heads"] = Attribute::of_int(4);
    n.attrs["scale"] = Attribute::of_float(scale);
    s.nodes = {n};
    s.inputs = {{"q", random_tensor({2, 13, 32}, 51)}, {"k", random_tensor({2, 11, 32}, 52)}, {"v", random_tensor({2, 11, 24}, 53)}};
    s.outputs = {"y"};
    check_against_reference(s, {"MultiHeadAttention"}, 1e-4, 1e-5);
  }
}

// The additive mask in every broadcast form a BERT export gives it: [B,1,1,Sk] (padding mask),
// [Sq,Sk] (causal), a full [B,H,Sq,Sk], and a per-row [B,1,Sq,1]; with -10000 entries as
// attention masks use them.
TEST(FastAttention, MultiHeadAttentionWithMask) {
  const int64_t B = 2, H = 4, Sq = 7, Sk = 9;
  for (const Shape& mask_shape : std::vector<Shape>{{B, 1, 1, Sk}, {Sq, Sk}, {B, H, Sq, Sk}, {B, 1, Sq, 1}, {Sk}}) {
    ModelSpec s;
    Node n = make_node("MultiHeadAttention", {"q", "k", "v", "mask"}, {"y"});
    n.domain = kMsDomain;
    n.attrs["num_heads"] = Attribute::of_int(H);
    s.nodes = {n};
    Tensor mask = random_tensor(mask_shape, 54);
    float* m = mask.data<float>();
    for (int64_t i = 0; i < mask.numel(); i += 3) m[i] = -10000.f;
    s.inputs = {{"q", random_tensor({B, Sq, 32}, 51)}, {"k", random_tensor({B, Sk, 32}, 52)},
                {"v", random_tensor({B, Sk, 24}, 53)}, {"mask", mask}};
    s.outputs = {"y"};
    SCOPED_TRACE("mask " + shape_str(mask_shape));
    check_against_reference(s, {"MultiHeadAttention"}, 1e-4, 1e-5);
  }
}

}  // namespace
}  // namespace ms::test
