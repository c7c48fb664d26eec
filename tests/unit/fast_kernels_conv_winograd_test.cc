// 3x3 stride-1 convolutions with at least 128 input and output channels, the ones the oneDNN conv
// kernel runs with Winograd F(2x2, 3x3) (runtime/kernels/conv_onednn.cc; direct where the CPU has
// no Winograd kernel), against the reference kernel: odd spatial sizes, with and without padding,
// bias, fused activation, residual input, batch 2, and in a blocked-layout chain.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

ModelSpec winograd_conv(const Shape& x, int64_t M, std::vector<int64_t> pads, const std::string& activation, bool residual) {
  ModelSpec s;
  Node n = make_node("FusedConv", {"x", "w", "b"}, {"y"}, "c");
  n.domain = kMsDomain;
  n.attrs["pads"] = ints(std::move(pads));
  if (!activation.empty()) n.attrs["activation"] = Attribute::of_string(activation);
  s.weights = {{"w", random_tensor({M, x[1], 3, 3}, 1, -0.1f, 0.1f)}, {"b", random_tensor({M}, 2)}};
  s.inputs = {{"x", random_tensor(x, 3)}};
  if (residual) {
    n.inputs.push_back("z");
    s.inputs.push_back({"z", random_tensor({x[0], M, x[2], x[3]}, 4)});
  }
  s.nodes = {n};
  s.outputs = {"y"};
  return s;
}

TEST(FastConvWinograd, MatchesReference) {
  // Sums of 9*C products: compared with an absolute floor for outputs near zero.
  check_against_reference(winograd_conv({1, 128, 13, 11}, 128, {1, 1, 1, 1}, "", false), {"FusedConv"}, 1e-4, 1e-4, 1);
  check_against_reference(winograd_conv({2, 144, 9, 7}, 136, {0, 0, 0, 0}, "Relu", false), {"FusedConv"}, 1e-4, 1e-4, 2);
  check_against_reference(winograd_conv({1, 128, 14, 14}, 256, {1, 1, 1, 1}, "Relu", true), {"FusedConv"}, 1e-4, 1e-4, 1);
}

// Conv -> Winograd conv -> conv, the values between them channel-blocked.
TEST(FastConvWinograd, BlockedChain) {
  ModelSpec s;
  Node c1 = make_node("Conv", {"x", "w1"}, {"t1"}, "c1");
  Node c2 = make_node("Conv", {"t1", "w2", "b2"}, {"t2"}, "c2");
  c2.attrs["pads"] = ints({1, 1, 1, 1});
  Node c3 = make_node("Conv", {"t2", "w3"}, {"y"}, "c3");
  s.nodes = {c1, c2, c3};
  s.weights = {{"w1", random_tensor({128, 5, 1, 1}, 5)}, {"w2", random_tensor({136, 128, 3, 3}, 6, -0.1f, 0.1f)},
               {"b2", random_tensor({136}, 7)}, {"w3", random_tensor({3, 136, 1, 1}, 8)}};
  s.inputs = {{"x", random_tensor({1, 5, 15, 10}, 9)}};
  s.outputs = {"y"};
  check_against_reference(s, {"Conv"}, 1e-4, 1e-4, 1);
}

}  // namespace
}  // namespace ms::test
