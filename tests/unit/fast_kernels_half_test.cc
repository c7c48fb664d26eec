// Half-precision compute of the Conv and MatMul kernels (SessionOptions::compute_precision): the
// result must equal float32 arithmetic on the inputs and weights rounded to the half type (the
// rounding done here by the core conversions, independently of the kernels' own), and must differ
// from the float32 result (the option has an effect). float16 is emulated on every x86-64 CPU with
// oneDNN 2.x; bfloat16 runs natively where the CPU has AVX512-BF16, so both paths are covered.
#include <cstring>

#include "fast_kernels_util.h"
#include "runtime/kernels/half_compute.h"

namespace ms::test {
namespace {

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(HalfRounding, RoundsToNearestEvenAndOverflows) {
  const float one = 1.f;
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie (down to even 1), 1 + 3*2^-8 a tie up to 1 + 2^-6.
  const std::vector<float> x = {one + std::ldexp(1.f, -8), one + 3 * std::ldexp(1.f, -8), one + std::ldexp(1.f, -9),
                                -2.5f, bits_to_float(0x7f7fffff)};
  std::vector<float> y(x.size());
  rt::round_to_half(DType::BFloat16, x.data(), y.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[1], one + std::ldexp(1.f, -6));
  EXPECT_EQ(y[2], 1.f);
  EXPECT_EQ(y[3], -2.5f);
  EXPECT_TRUE(std::isinf(y[4]));  // FLT_MAX rounds past bfloat16's largest finite value
  // float16 keeps 11 significant bits, largest finite 65504; 65520 is the overflow threshold.
  const std::vector<float> h = {one + std::ldexp(1.f, -11), one + 3 * std::ldexp(1.f, -11), 65504.f, 65520.f, 1e-8f,
                                std::ldexp(1.f, -24)};
  std::vector<float> hy(h.size());
  rt::round_to_half(DType::Float16, h.data(), hy.data(), static_cast<int64_t>(h.size()));
  EXPECT_EQ(hy[0], 1.f);
  EXPECT_EQ(hy[1], one + std::ldexp(1.f, -9));
  EXPECT_EQ(hy[2], 65504.f);
  EXPECT_TRUE(std::isinf(hy[3]));
  EXPECT_EQ(hy[4], 0.f);                    // below half the smallest subnormal
  EXPECT_EQ(hy[5], std::ldexp(1.f, -24));  // the smallest subnormal
}

Tensor rounded(const Tensor& t, DType half) {
  Tensor r = t.clone();
  for (int64_t i = 0; i < r.numel(); ++i) {
    float& v = r.data<float>()[i];
    v = half == DType::BFloat16 ? static_cast<float>(bfloat16_t(v)) : static_cast<float>(float16_t(v));
  }
  return r;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double d = 0;
  for (int64_t i = 0; i < a.numel(); ++i) d = std::max(d, double(std::abs(a.data<float>()[i] - b.data<float>()[i])));
  return d;
}

// Runs `s` with compute `half` on the fast kernels; expects the float32 reference kernels' result on
// `s` with every graph input and every weight named in `rounded_weights` rounded to `half`.
void check_half(const ModelSpec& s, DType half, const std::set<std::string>& rounded_weights,
                const std::set<std::string>& must_be_fast) {
  SCOPED_TRACE(dtype_name(half));
  ModelSpec r = s;
  for (auto& [name, t] : r.inputs) t = rounded(t, half);
  for (const auto& name : rounded_weights) r.weights[name] = rounded(r.weights.at(name), half);
  std::vector<Value> feeds, rounded_feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  for (const auto& [name, t] : r.inputs) rounded_feeds.emplace_back(t);
  SessionOptions ref_opts;
  ref_opts.reference_kernels = true;
  const Tensor want = Session(build_model(r), ref_opts).run(rounded_feeds)[0].tensor;
  const Tensor f32 = Session(build_model(s), ref_opts).run(feeds)[0].tensor;
  SessionOptions half_opts;
  half_opts.compute_precision = half;
  Session fast(build_model(s), half_opts);
  RunProfile prof;
  const Tensor got = fast.run(feeds, &prof)[0].tensor;
  for (const auto& n : prof.nodes)
    if (must_be_fast.count(fast.model().graph.nodes[n.node_index].op_type)) EXPECT_NE(n.kernel, kReferenceKernel);
  expect_close(got, want, 1e-4, 1e-4, "half compute against float32 on rounded values");
  EXPECT_GT(max_abs_diff(got, f32), 1e-4) << "the result equals float32 compute: the precision had no effect";
}

TEST(HalfCompute, ConvChainInBlockedLayoutWithResidual) {
  for (DType half : {DType::BFloat16, DType::Float16}) {
    ModelSpec s;
    Node c1 = make_node("Conv", {"x", "w1", "b1"}, {"h"});
    c1.attrs["pads"] = ints({1, 1, 1, 1});
    Node relu = make_node("Relu", {"h"}, {"r"});
    Node c2 = make_node("Conv", {"r", "w2"}, {"z"});
    Node add = make_node("Add", {"z", "r"}, {"y"});
    s.nodes = {c1, relu, c2, add};
    s.inputs = {{"x", random_tensor({1, 16, 9, 9}, 1)}};
    s.weights = {{"w1", random_tensor({32, 16, 3, 3}, 2, -0.2f, 0.2f)},
                 {"b1", random_tensor({32}, 3)},
                 {"w2", random_tensor({32, 32, 1, 1}, 4, -0.2f, 0.2f)}};
    s.outputs = {"y"};
    // The second convolution reads the first one's output, which is rounded by its own reading only.
    ModelSpec only_first = s;
    only_first.nodes = {c1};
    only_first.outputs = {"h"};
    check_half(only_first, half, {"w1"}, {"Conv"});
    // The chain: expected by hand, the second conv's input rounded as the kernel rounds it.
    SessionOptions ref_opts;
    ref_opts.reference_kernels = true;
    ModelSpec first_two = s;
    first_two.nodes = {c1, relu};
    first_two.outputs = {"r"};
    ModelSpec rs = first_two;
    rs.inputs[0].second = rounded(rs.inputs[0].second, half);
    rs.weights["w1"] = rounded(rs.weights["w1"], half);
    const Tensor r = Session(build_model(rs), ref_opts).run({Value(rs.inputs[0].second)})[0].tensor;
    ModelSpec tail;
    tail.nodes = {c2, add};
    tail.inputs = {{"r", r}};
    tail.weights = {{"w2", rounded(s.weights["w2"], half)}};
    tail.outputs = {"y"};
    // Conv reads r rounded, the residual Add reads r as computed.
    ModelSpec tail_rounded = tail;
    tail_rounded.nodes[0].inputs[0] = "r_rounded";
    tail_rounded.weights["r_rounded"] = rounded(r, half);
    const Tensor want = Session(build_model(tail_rounded), ref_opts).run({Value(r)})[0].tensor;
    SessionOptions half_opts;
    half_opts.compute_precision = half;
    const Tensor got = Session(build_model(s), half_opts).run({Value(s.inputs[0].second)})[0].tensor;
    SCOPED_TRACE(dtype_name(half));
    expect_close(got, want, 1e-4, 1e-4, "conv chain");
  }
}

TEST(HalfCompute, MatMulGemmAndBatchedProducts) {
  for (DType half : {DType::BFloat16, DType::Float16}) {
    {
      ModelSpec s;  // constant B, batched A: one packed product
      s.nodes = {make_node("MatMul", {"a", "b"}, {"y"})};
      s.inputs = {{"a", random_tensor({2, 7, 48}, 11)}};
      s.weights["b"] = random_tensor({48, 40}, 12);
      s.outputs = {"y"};
      check_half(s, half, {"b"}, {"MatMul"});
    }
    {
      ModelSpec s;  // both operands variable, batch broadcast
      s.nodes = {make_node("MatMul", {"a", "b"}, {"y"})};
      s.inputs = {{"a", random_tensor({2, 3, 5, 33}, 13)}, {"b", random_tensor({3, 33, 6}, 14)}};
      s.outputs = {"y"};
      check_half(s, half, {}, {"MatMul"});
    }
    {
      ModelSpec s;  // transposes, bias kept in float32
      Node g = make_node("Gemm", {"a", "b", "c"}, {"y"});
      g.attrs["transA"] = Attribute::of_int(1);
      g.attrs["transB"] = Attribute::of_int(1);
      s.nodes = {g};
      s.inputs = {{"a", random_tensor({40, 6}, 15)}};
      s.weights = {{"b", random_tensor({9, 40}, 16)}, {"c", random_tensor({9}, 17)}};
      s.outputs = {"y"};
      check_half(s, half, {"b"}, {"Gemm"});
    }
  }
}

TEST(HalfCompute, SummarySaysNativeOrEmulated) {
  EXPECT_NE(rt::half_compute_summary(DType::Float16).find("emulated"), std::string::npos);
  const bool native = rt::computes_natively(DType::BFloat16);
  EXPECT_EQ(rt::half_compute_summary(DType::BFloat16).find("natively") != std::string::npos, native);
}

}  // namespace
}  // namespace ms::test
