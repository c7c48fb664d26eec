// Add/Sub/Mul/Div between convolutions, where the session passes their operands and results in
// oneDNN's channel-blocked layout (runtime/kernels/binary_blocked.h), against the reference
// kernels: scalar, per-channel (squeeze-excitation) and same-shape (residual) operands on either
// side, channel counts that leave the last block padded, batch 2, a plain operand meeting a
// blocked one, a broadcast the blocked loops do not cover, and a plain graph output.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

Node conv(const std::string& x, const std::string& w, const std::string& b, const std::string& y) {
  Node n = make_node("Conv", {x, w, b}, {y}, y);
  n.attrs["pads"] = ints({1, 1, 1, 1});
  return n;
}

// x [N, 5, 9, 11] -> c1 (C channels) -> `middle` nodes -> c2 reading `into_c2` -> y (3 channels).
ModelSpec chain(int64_t N, int64_t C, std::vector<Node> middle, const std::string& into_c2) {
  ModelSpec s;
  s.nodes = {conv("x", "w1", "b1", "t")};
  for (auto& n : middle) s.nodes.push_back(std::move(n));
  s.nodes.push_back(conv(into_c2, "w2", "b2", "y"));
  s.weights = {{"w1", random_tensor({C, 5, 3, 3}, 1)}, {"b1", random_tensor({C}, 2)},
               {"w2", random_tensor({3, C, 3, 3}, 3)}, {"b2", random_tensor({3}, 4)}};
  s.inputs = {{"x", random_tensor({N, 5, 9, 11}, 5)}};
  s.outputs = {"y"};
  return s;
}

TEST(FastBinaryBlocked, ScalarOperands) {
  for (int64_t C : {16, 24, 7}) {
    SCOPED_TRACE("C=" + std::to_string(C));
    // t * 0.7 + 0.3, then 0.5 - that, then / 1.7: the learnable affine PaddleOCR puts after its activations.
    ModelSpec s = chain(1, C,
                        {make_node("Mul", {"t", "k"}, {"u"}, "m"), make_node("Add", {"u", "c"}, {"v"}, "a"),
                         make_node("Sub", {"h", "v"}, {"w"}, "s"), make_node("Div", {"w", "d"}, {"z"}, "d")},
                        "z");
    s.weights["k"] = Tensor::scalar<float>(0.7f);
    s.weights["c"] = Tensor::from_vector<float>({0.3f}, {1});
    s.weights["h"] = Tensor::scalar<float>(0.5f);
    s.weights["d"] = Tensor::scalar<float>(1.7f);
    check_against_reference(s, {"Conv", "Mul", "Add", "Sub", "Div"}, 1e-4, 1e-5, 1);
  }
}

// Squeeze-excitation: t * HardSigmoid(Conv(Relu(Conv(GlobalAveragePool(t))))), the scale on
// either side of the Mul, batch 1 and 2.
TEST(FastBinaryBlocked, PerChannelScale) {
  for (int64_t N : {1, 2})
    for (int64_t C : {32, 24}) {
      for (bool scale_left : {false, true}) {
        SCOPED_TRACE("N=" + std::to_string(N) + " C=" + std::to_string(C) + (scale_left ? " s*t" : " t*s"));
        Node se1 = make_node("FusedConv", {"g", "wr", "br"}, {"r"}, "se1");
        se1.domain = kMsDomain;
        se1.attrs["activation"] = Attribute::of_string("Relu");
        Node se2 = make_node("FusedConv", {"r", "we", "be"}, {"e"}, "se2");
        se2.domain = kMsDomain;
        se2.attrs["activation"] = Attribute::of_string("HardSigmoid");
        se2.attrs["activation_params"] = Attribute::of_floats({1.f / 6, 0.5f});
        Node mul = make_node("Mul", scale_left ? std::vector<std::string>{"e", "t"} : std::vector<std::string>{"t", "e"},
                             {"z"}, "m");
        ModelSpec s = chain(N, C, {make_node("GlobalAveragePool", {"t"}, {"g"}, "gap"), se1, se2, mul}, "z");
        s.weights["wr"] = random_tensor({8, C, 1, 1}, 6);
        s.weights["br"] = random_tensor({8}, 7);
        s.weights["we"] = random_tensor({C, 8, 1, 1}, 8);
        s.weights["be"] = random_tensor({C}, 9);
        check_against_reference(s, {"Conv", "FusedConv", "Mul", "GlobalAveragePool"}, 1e-4, 1e-5, 1);
      }
    }
}

// A constant per-channel shift [C, 1, 1] and a per-channel divisor [1, C, 1, 1].
TEST(FastBinaryBlocked, PerChannelConstants) {
  ModelSpec s = chain(2, 20, {make_node("Sub", {"t", "c"}, {"u"}, "s"), make_node("Div", {"u", "d"}, {"z"}, "d")}, "z");
  s.weights["c"] = random_tensor({20, 1, 1}, 10);
  s.weights["d"] = random_tensor({1, 20, 1, 1}, 11, 0.5f, 2.f);
  check_against_reference(s, {"Conv", "Sub", "Div"}, 1e-4, 1e-5, 2);
}

// Residual: two blocked convolution outputs added; then a plain graph input of the same shape
// added to the blocked sum (reordered inside the kernel).
TEST(FastBinaryBlocked, SameShapeOperands) {
  ModelSpec s = chain(1, 24,
                      {conv("x", "w3", "b3", "t2"), make_node("Add", {"t", "t2"}, {"u"}, "a"),
                       make_node("Mul", {"p", "u"}, {"z"}, "m")},
                      "z");
  s.weights["w3"] = random_tensor({24, 5, 3, 3}, 12);
  s.weights["b3"] = random_tensor({24}, 13);
  s.inputs.push_back({"p", random_tensor({1, 24, 9, 11}, 14)});
  check_against_reference(s, {"Conv", "Add", "Mul"}, 1e-4, 1e-5, 1);
}

// A constant [1, 1, 1, W] row: rank 4, so the value may be planned blocked, but no blocked loop
// covers it: the kernel computes in the plain layout between reorders.
TEST(FastBinaryBlocked, UncoveredBroadcastFallsBackToPlain) {
  ModelSpec s = chain(1, 24, {make_node("Mul", {"t", "row"}, {"z"}, "m")}, "z");
  s.weights["row"] = random_tensor({1, 1, 1, 11}, 15);
  check_against_reference(s, {"Conv", "Mul"}, 1e-4, 1e-5, 1);
}

// Blocked operands, plain result (a graph output): computed blocked, reordered at the end.
TEST(FastBinaryBlocked, PlainOutputOfBlockedOperands) {
  ModelSpec s;
  s.nodes = {conv("x", "w1", "b1", "t"), conv("x", "w2", "b2", "t2"), make_node("Sub", {"t", "t2"}, {"y"}, "s")};
  s.weights = {{"w1", random_tensor({24, 5, 3, 3}, 1)}, {"b1", random_tensor({24}, 2)},
               {"w2", random_tensor({24, 5, 3, 3}, 3)}, {"b2", random_tensor({24}, 4)}};
  s.inputs = {{"x", random_tensor({1, 5, 9, 11}, 5)}};
  s.outputs = {"y"};
  check_against_reference(s, {"Conv", "Sub"}, 1e-4, 1e-5, 1);
}

}  // namespace
}  // namespace ms::test
