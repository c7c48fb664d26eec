// The kernels of dynamically quantized models (ONNX Runtime's quantize_dynamic):
// DynamicQuantizeLinear (vectorized), ConvInteger and MatMulInteger (oneDNN int8 with the weight
// zero point subtracted afterwards) against the reference kernels, on seeded random tensors. All
// outputs are integers (or a float scale computed the same way), so they must match exactly:
// uint8 and int8 weights, zero points per tensor and per output channel (some that leave W − wz in
// int8, most that do not), activation zero points as constants and as run-time values, groups,
// depthwise, strides, asymmetric pads, dilations, 1-D convolutions, odd shapes.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

Tensor random_8bit(DType dt, const Shape& shape, uint32_t seed, int lo = -1, int hi = -1) {
  Tensor t(dt, shape);
  std::mt19937 rng(seed);
  if (lo < 0 && hi < 0) lo = dt == DType::UInt8 ? 0 : -128, hi = dt == DType::UInt8 ? 255 : 127;
  std::uniform_int_distribution<int> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dt == DType::UInt8) t.data<uint8_t>()[i] = uint8_t(u(rng));
    else t.data<int8_t>()[i] = int8_t(u(rng));
  }
  return t;
}

Tensor scalar_8bit(DType dt, int v) {
  return dt == DType::UInt8 ? Tensor::scalar<uint8_t>(uint8_t(v)) : Tensor::scalar<int8_t>(int8_t(v));
}

// Zero points for the M output channels: one value, or M spread around `base`.
Tensor weight_zero_points(DType dt, int64_t M, int base, bool per_channel) {
  if (!per_channel) return scalar_8bit(dt, base);
  Tensor t(dt, {M});
  for (int64_t m = 0; m < M; ++m) {
    const int v = base + int((m * 37) % 29) - 14;
    if (dt == DType::UInt8) t.data<uint8_t>()[m] = uint8_t(v);
    else t.data<int8_t>()[m] = int8_t(v);
  }
  return t;
}

// ---- DynamicQuantizeLinear ----------------------------------------------------------------------

void check_dynamic_quantize(const Tensor& x, const std::string& what) {
  SCOPED_TRACE(what);
  ModelSpec s;
  s.inputs = {{"x", x}};
  s.nodes = {make_node("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"})};
  s.outputs = {"y", "scale", "zp"};
  check_against_reference(s, {"DynamicQuantizeLinear"}, 0, 0);
}

TEST(FastDynamicQuantize, MatchesReference) {
  check_dynamic_quantize(random_tensor({1, 3, 37, 41}, 61, -2.5f, 1.5f), "mixed signs, odd size");
  check_dynamic_quantize(random_tensor({5, 1000}, 62, 0.25f, 4.f), "all positive: zero point 0");
  check_dynamic_quantize(random_tensor({2, 7, 3}, 63, -3.f, -0.5f), "all negative: zero point 255");
  check_dynamic_quantize(random_tensor({300007}, 64, -1.f, 7.f), "several blocks and threads");
  check_dynamic_quantize(Tensor(DType::Float32, {4, 9}), "all zero: scale 0");
  // Exact ties of x / scale: range [-1.275, 1.275] gives scale 0.01, and x = k·0.01 + 0.005.
  Tensor ties = random_tensor({1, 200}, 65, -1.f, 1.f);
  float* t = ties.data<float>();
  t[0] = -1.275f, t[1] = 1.275f;
  for (int i = 2; i < 200; ++i) t[i] = 0.01f * float(i - 100) + 0.005f;
  check_dynamic_quantize(ties, "rounding ties");
}

// ---- ConvInteger --------------------------------------------------------------------------------

struct ConvCase {
  Shape x, w;
  std::map<std::string, Attribute> attrs;
  DType x_type = DType::UInt8, w_type = DType::UInt8;
  int x_zp = 0, w_zp = 0;  // w_zp: the per-tensor value, or the centre of the per-channel ones
  bool per_channel = false;
  bool x_zp_input = false;  // x's zero point a graph input (a run-time value, as after DynamicQuantizeLinear)
  std::string what;
};

void check_conv_integer(const ConvCase& c) {
  SCOPED_TRACE("ConvInteger " + c.what + ": x" + shape_str(c.x) + " w" + shape_str(c.w));
  ModelSpec s;
  s.inputs = {{"x", random_8bit(c.x_type, c.x, 71)}};
  s.weights["w"] = random_8bit(c.w_type, c.w, 72);
  s.weights["wz"] = weight_zero_points(c.w_type, c.w[0], c.w_zp, c.per_channel);
  if (c.x_zp_input) s.inputs.push_back({"xz", scalar_8bit(c.x_type, c.x_zp)});
  else s.weights["xz"] = scalar_8bit(c.x_type, c.x_zp);
  Node n = make_node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"});
  n.attrs = c.attrs;
  s.nodes = {n};
  s.outputs = {"y"};
  check_against_reference(s, {"ConvInteger"}, 0, 0);
}

TEST(FastConvInteger, MatchesReference) {
  const auto pads1 = ints({1, 1, 1, 1});
  const std::vector<ConvCase> cases = {
      // What ONNX Runtime writes: u8 activations and weights, per-tensor zero points.
      {{1, 8, 17, 19}, {16, 8, 3, 3}, {{"pads", pads1}}, DType::UInt8, DType::UInt8, 117, 133, false, true, "u8/u8 per tensor"},
      {{1, 3, 21, 20}, {12, 3, 3, 3}, {{"pads", pads1}, {"strides", ints({2, 2})}}, DType::UInt8, DType::UInt8, 40, 90,
       false, true, "3 input channels, stride 2"},
      {{2, 16, 15, 13}, {33, 16, 3, 3}, {{"strides", ints({2, 1})}, {"pads", ints({0, 1, 2, 1})}}, DType::UInt8,
       DType::UInt8, 7, 120, true, false, "per channel, asymmetric pads"},
      {{1, 8, 16, 16}, {8, 8, 3, 3}, {{"dilations", ints({4, 4})}, {"pads", ints({4, 4, 4, 4})}}, DType::UInt8,
       DType::UInt8, 200, 101, false, true, "dilation 4"},
      {{1, 12, 9, 11}, {18, 4, 3, 3}, {{"group", Attribute::of_int(3)}, {"strides", ints({2, 2})}}, DType::UInt8,
       DType::UInt8, 0, 140, true, false, "groups"},
      {{1, 24, 14, 14}, {24, 1, 3, 3}, {{"group", Attribute::of_int(24)}, {"pads", pads1}}, DType::UInt8, DType::Int8,
       100, 5, true, false, "depthwise, s8 weights per channel"},
      {{1, 64, 7, 7}, {40, 64, 1, 1}, {}, DType::UInt8, DType::Int8, 128, 0, false, true, "1x1, s8 symmetric weights"},
      {{1, 5, 11, 13}, {7, 5, 5, 3}, {{"dilations", ints({2, 1})}, {"pads", ints({2, 1, 2, 1})}}, DType::Int8,
       DType::Int8, -5, 3, false, false, "s8 activations and weights"},
      {{2, 6, 29}, {10, 6, 4}, {{"pads", ints({2, 1})}, {"strides", ints({3})}}, DType::UInt8, DType::UInt8, 31, 77,
       false, true, "1-D"},
  };
  for (const auto& c : cases) check_conv_integer(c);
}

// W − wz within int8 everywhere (u8 weights in [wz − 128, wz + 127]): the weights are shifted once
// and nothing is subtracted at run time; still exact.
TEST(FastConvInteger, WeightsAroundTheirZeroPointMatchReference) {
  ModelSpec s;
  s.inputs = {{"x", random_8bit(DType::UInt8, {1, 10, 12, 12}, 81)}, {"xz", scalar_8bit(DType::UInt8, 99)}};
  s.weights["w"] = random_8bit(DType::UInt8, {20, 10, 3, 3}, 82, 60, 180);
  s.weights["wz"] = scalar_8bit(DType::UInt8, 120);
  Node n = make_node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"});
  n.attrs["pads"] = ints({1, 1, 1, 1});
  s.nodes = {n};
  s.outputs = {"y"};
  check_against_reference(s, {"ConvInteger"}, 0, 0);
}

// The chain quantize_dynamic writes around every convolution: DynamicQuantizeLinear, ConvInteger
// on its run-time zero point, Cast to float, Mul by x_scale · w_scale.
TEST(FastConvInteger, DynamicQuantizationChainMatchesReference) {
  ModelSpec s;
  s.inputs = {{"x", random_tensor({1, 16, 23, 23}, 91, -0.7f, 2.f)}};
  s.weights["w"] = random_8bit(DType::UInt8, {24, 16, 3, 3}, 92);
  s.weights["ws"] = Tensor::scalar<float>(0.004f);
  s.weights["wz"] = scalar_8bit(DType::UInt8, 131);
  Node conv = make_node("ConvInteger", {"xq", "w", "xz", "wz"}, {"acc"});
  conv.attrs["pads"] = ints({1, 1, 1, 1});
  Node cast = make_node("Cast", {"acc"}, {"accf"});
  cast.attrs["to"] = Attribute::of_int(1);
  s.nodes = {make_node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"}), conv, cast,
             make_node("Mul", {"xs", "ws"}, {"s"}), make_node("Mul", {"accf", "s"}, {"y"})};
  s.outputs = {"y", "acc"};
  check_against_reference(s, {"DynamicQuantizeLinear", "ConvInteger", "Cast"}, 1e-6, 1e-6);
}

// ---- MatMulInteger ------------------------------------------------------------------------------

void check_matmul_integer(const Shape& a, int64_t N, DType a_type, DType b_type, int a_zp, int b_zp, bool per_column,
                          const std::string& what) {
  SCOPED_TRACE("MatMulInteger " + what + ": a" + shape_str(a) + " N " + std::to_string(N));
  ModelSpec s;
  const int64_t K = a.back();
  s.inputs = {{"a", random_8bit(a_type, a, 101)}, {"az", scalar_8bit(a_type, a_zp)}};
  s.weights["b"] = random_8bit(b_type, {K, N}, 102);
  s.weights["bz"] = weight_zero_points(b_type, N, b_zp, per_column);
  s.nodes = {make_node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"})};
  s.outputs = {"y"};
  check_against_reference(s, {"MatMulInteger"}, 0, 0);
}

TEST(FastMatMulInteger, MatchesReference) {
  check_matmul_integer({7, 33}, 19, DType::UInt8, DType::UInt8, 131, 119, false, "u8/u8 per tensor");
  check_matmul_integer({2, 5, 64}, 40, DType::UInt8, DType::UInt8, 3, 140, true, "batched A, per column");
  check_matmul_integer({3, 17}, 8, DType::UInt8, DType::Int8, 0, 0, false, "s8 symmetric B");
  check_matmul_integer({4, 3, 29}, 31, DType::UInt8, DType::Int8, 250, -7, true, "s8 B per column");
  check_matmul_integer({6, 21}, 13, DType::Int8, DType::Int8, -20, 9, false, "s8 A");
}

// ---- Cast of the int32 accumulators (and 8/16-bit integers) to float32 ---------------------------

TEST(FastIntCast, MatchesReference) {
  Tensor big(DType::Int32, {3, 1001});
  std::mt19937 rng(111);
  std::uniform_int_distribution<int32_t> u(-(1 << 30), 1 << 30);  // beyond 2^24: float rounding
  for (int64_t i = 0; i < big.numel(); ++i) big.data<int32_t>()[i] = i < 8 ? int32_t(16777217 + 2 * i) : u(rng);
  const std::vector<std::pair<std::string, Tensor>> sources = {
      {"int32", big}, {"uint8", random_8bit(DType::UInt8, {5, 77}, 112)}, {"int8", random_8bit(DType::Int8, {2, 3, 31}, 113)}};
  for (const auto& [what, x] : sources) {
    SCOPED_TRACE(what);
    ModelSpec s;
    s.inputs = {{"x", x}};
    Node cast = make_node("Cast", {"x"}, {"y"});
    cast.attrs["to"] = Attribute::of_int(1);
    s.nodes = {cast};
    s.outputs = {"y"};
    check_against_reference(s, {"Cast"}, 0, 0);
  }
}

}  // namespace
}  // namespace ms::test
