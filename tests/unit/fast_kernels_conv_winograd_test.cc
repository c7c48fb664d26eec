// 3x3 stride-1 convolutions between many channels, the ones the oneDNN conv kernel may run with
// Winograd F(2x2, 3x3) or F(4x4, 3x3) (runtime/kernels/conv_onednn.cc times them against the
// direct method and keeps the fastest), against the reference kernel: odd spatial sizes, with and
// without padding, bias, fused activation, residual input, batch 2, in a blocked-layout chain, and
// with each implementation forced in turn.
#include <chrono>
#include <thread>

#include "fast_kernels_util.h"
#include "runtime/kernels/onednn_autotune.h"

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

// Whichever implementation the timing picks must be right: each one forced in turn (a name the
// CPU has no kernel for falls back to the first candidate).
TEST(FastConvWinograd, EveryImplementationMatchesReference) {
  for (const char* impl : {"wino_2x3", "wino_4x3", "jit:"}) {
    SCOPED_TRACE(impl);
    rt::force_implementation(impl);
    check_against_reference(winograd_conv({1, 64, 15, 13}, 64, {1, 1, 1, 1}, "Relu", false), {"FusedConv"}, 1e-4, 1e-4, 1);
    check_against_reference(winograd_conv({1, 128, 14, 14}, 128, {1, 1, 1, 1}, "", true), {"FusedConv"}, 1e-4, 1e-4, 1);
    check_against_reference(winograd_conv({2, 32, 9, 12}, 48, {0, 0, 0, 0}, "Relu", false), {"FusedConv"}, 1e-4, 1e-4, 2);
  }
  rt::force_implementation("");
}

TEST(OnednnAutotune, PicksTheFastestAndRemembersIt) {
  int slow_runs = 0, fast_runs = 0;
  std::vector<rt::TimedCandidate> c = {
      {"slow", [&] { ++slow_runs, std::this_thread::sleep_for(std::chrono::milliseconds(4)); }},
      {"fast", [&] { ++fast_runs; }},
  };
  EXPECT_EQ(rt::fastest_candidate("autotune test key", c), 1u);
  EXPECT_GT(fast_runs, 1);
  EXPECT_EQ(slow_runs, fast_runs);  // interleaved rounds
  const int before = fast_runs;
  EXPECT_EQ(rt::fastest_candidate("autotune test key", c), 1u);
  EXPECT_EQ(fast_runs, before);  // decided once per key
  rt::force_implementation("slow");
  EXPECT_EQ(rt::fastest_candidate("autotune test key", c), 0u);
  rt::force_implementation("");
}

}  // namespace
}  // namespace ms::test
