// oneDNN int8 convolution (QLinearConv, com.mstools QConvFloatOut) and the vectorized
// QuantizeLinear/DequantizeLinear against the reference kernels, on seeded random tensors: odd
// channel counts, stride 2, asymmetric padding, groups, depthwise, u8 activations with zero points
// and s8 symmetric ones, per-channel and per-tensor weight scales. Requantized int8 outputs may
// differ by one unit where the float multiplier's association rounds a tie differently.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

Tensor random_int8(DType dt, const Shape& shape, uint32_t seed) {
  Tensor t(dt, shape);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(dt == DType::UInt8 ? 0 : -127, dt == DType::UInt8 ? 255 : 127);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dt == DType::UInt8) t.data<uint8_t>()[i] = uint8_t(u(rng));
    else t.data<int8_t>()[i] = int8_t(u(rng));
  }
  return t;
}

Tensor zero_point(DType dt, int v) {
  return dt == DType::UInt8 ? Tensor::scalar<uint8_t>(uint8_t(v)) : Tensor::scalar<int8_t>(int8_t(v));
}

struct QCase {
  Shape x, w;
  std::map<std::string, Attribute> attrs;
  DType act = DType::UInt8;  // x and y
  int x_zp = 0, y_zp = 0;
  bool per_channel = true, bias = true;
};

// Quantization parameters in the ranges a calibrated model has: the accumulator scaled to y spans
// a few hundred units, so saturation and rounding are both exercised.
ModelSpec qconv_model(const QCase& c, bool float_out, bool residual, const std::string& act = "") {
  ModelSpec s;
  const int64_t M = c.w[0];
  const int64_t K = shape_numel(c.w) / M;
  s.inputs = {{"x", random_int8(c.act, c.x, 21)}};
  s.weights["xs"] = Tensor::scalar<float>(0.02f);
  s.weights["xz"] = zero_point(c.act, c.x_zp);
  s.weights["w"] = random_int8(DType::Int8, c.w, 22);
  std::vector<float> ws(c.per_channel ? M : 1);
  for (size_t m = 0; m < ws.size(); ++m) ws[m] = 0.004f + 0.0007f * float(m % 5);
  s.weights["ws"] = c.per_channel ? Tensor::from_vector<float>(ws, {M}) : Tensor::scalar<float>(ws[0]);
  s.weights["wz"] = c.per_channel ? Tensor::from_vector<int8_t>(std::vector<int8_t>(M, 0), {M}) : Tensor::scalar<int8_t>(0);
  Node n = make_node(float_out ? "QConvFloatOut" : "QLinearConv", {"x", "xs", "xz", "w", "ws", "wz"}, {"y"});
  n.attrs = c.attrs;
  if (float_out) {
    n.domain = kMsDomain;
    if (c.bias) s.weights["b"] = random_tensor({M}, 23, -0.5f, 0.5f);
    n.inputs.push_back(c.bias ? "b" : "");
    if (!act.empty()) n.attrs["activation"] = Attribute::of_string(act);
  } else {
    s.weights["ys"] = Tensor::scalar<float>(0.0005f * float(std::sqrt(double(K))));
    s.weights["yz"] = zero_point(c.act, c.y_zp);
    n.inputs.push_back("ys");
    n.inputs.push_back("yz");
    if (c.bias) {
      std::vector<int32_t> b(M);
      std::mt19937 rng(24);
      std::uniform_int_distribution<int32_t> u(-4000, 4000);
      for (auto& v : b) v = u(rng);
      s.weights["b"] = Tensor::from_vector<int32_t>(b, {M});
      n.inputs.push_back("b");
    }
  }
  if (residual) {
    const Shape ys = reference_output_shape(s, n);
    n.inputs.push_back("z");
    s.inputs.push_back({"z", random_tensor(ys, 25)});
  }
  s.nodes = {n};
  s.outputs = {"y"};
  return s;
}

void check_qlinear(const QCase& c) {
  SCOPED_TRACE("QLinearConv x" + shape_str(c.x) + " w" + shape_str(c.w));
  check_against_reference(qconv_model(c, false, false), {"QLinearConv"}, 0, 1.0);  // within one unit
}

void check_float_out(const QCase& c, bool residual, const std::string& act) {
  SCOPED_TRACE("QConvFloatOut x" + shape_str(c.x) + " w" + shape_str(c.w) + " act " + act);
  check_against_reference(qconv_model(c, true, residual, act), {"QConvFloatOut"}, 1e-4, 1e-4);
}

const std::vector<QCase>& geometries() {
  static const std::vector<QCase> cases = {
      {{1, 3, 17, 19}, {8, 3, 3, 3}, {{"pads", ints({1, 1, 1, 1})}}, DType::UInt8, 128, 3},
      {{2, 16, 15, 15}, {33, 16, 3, 3}, {{"strides", ints({2, 2})}, {"pads", ints({0, 1, 2, 1})}}, DType::UInt8, 7, 0},
      {{1, 24, 14, 14}, {24, 1, 3, 3}, {{"group", Attribute::of_int(24)}, {"pads", ints({1, 1, 1, 1})}}, DType::UInt8, 100, 50},
      {{1, 12, 9, 9}, {18, 4, 3, 3}, {{"group", Attribute::of_int(3)}, {"strides", ints({2, 2})}}, DType::UInt8, 0, 0, false},
      {{1, 64, 7, 7}, {40, 64, 1, 1}, {}, DType::Int8, 0, 0},
      {{1, 5, 11, 13}, {7, 5, 5, 3}, {{"dilations", ints({2, 1})}, {"pads", ints({2, 1, 2, 1})}}, DType::Int8, 0, -5, true, false},
  };
  return cases;
}

TEST(FastQConv, QLinearConvMatchesReference) {
  for (const auto& c : geometries()) check_qlinear(c);
}

TEST(FastQConv, FloatOutMatchesReference) {
  for (const auto& c : geometries()) check_float_out(c, false, "");
  check_float_out(geometries()[0], true, "Relu");
  check_float_out(geometries()[1], true, "");
  check_float_out(geometries()[2], false, "Relu");
}

TEST(FastQuantize, QuantizeAndDequantizeMatchReference) {
  for (DType dt : {DType::UInt8, DType::Int8}) {
    ModelSpec s;
    Tensor x = random_tensor({2, 7, 13, 11}, 31, -3.f, 3.f);
    // Exact ties of x / scale: round half to even must agree with the reference.
    for (int i = 0; i < 40; ++i) x.data<float>()[i] = 0.05f * (float(i) - 20.f) + 0.025f;
    s.inputs = {{"x", x}};
    s.weights["s"] = Tensor::scalar<float>(0.05f);
    s.weights["z"] = zero_point(dt, dt == DType::UInt8 ? 37 : -9);
    s.nodes = {make_node("QuantizeLinear", {"x", "s", "z"}, {"q"}), make_node("DequantizeLinear", {"q", "s", "z"}, {"y"})};
    s.outputs = {"q", "y"};
    SCOPED_TRACE(dtype_name(dt));
    check_against_reference(s, {"QuantizeLinear", "DequantizeLinear"}, 0, 0);
  }
}

}  // namespace
}  // namespace ms::test

namespace ms::test {
namespace {

// QLinearMatMul on oneDNN's int8 matmul: A's leading dims fold into rows; odd K and N.
void check_qmatmul(const Shape& a, int64_t N, DType dt, int a_zp, int y_zp, bool per_column) {
  ModelSpec s;
  const int64_t K = a.back();
  s.inputs = {{"a", random_int8(dt, a, 41)}};
  s.weights["as"] = Tensor::scalar<float>(0.03f);
  s.weights["az"] = zero_point(dt, a_zp);
  s.weights["b"] = random_int8(DType::Int8, {K, N}, 42);
  std::vector<float> bs(per_column ? N : 1);
  for (size_t j = 0; j < bs.size(); ++j) bs[j] = 0.002f + 0.0003f * float(j % 7);
  s.weights["bs"] = per_column ? Tensor::from_vector<float>(bs, {N}) : Tensor::scalar<float>(bs[0]);
  s.weights["bz"] = per_column ? Tensor::from_vector<int8_t>(std::vector<int8_t>(N, 0), {N}) : Tensor::scalar<int8_t>(0);
  s.weights["ys"] = Tensor::scalar<float>(0.0006f * float(std::sqrt(double(K))));
  s.weights["yz"] = zero_point(dt, y_zp);
  s.nodes = {make_node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"})};
  s.outputs = {"y"};
  SCOPED_TRACE("QLinearMatMul a" + shape_str(a) + " N " + std::to_string(N));
  check_against_reference(s, {"QLinearMatMul"}, 0, 1.0);
}

TEST(FastQMatMul, QLinearMatMulMatchesReference) {
  check_qmatmul({7, 33}, 19, DType::UInt8, 131, 9, true);
  check_qmatmul({2, 5, 64}, 40, DType::UInt8, 0, 0, false);
  check_qmatmul({3, 17}, 8, DType::Int8, 0, -3, true);
}

}  // namespace
}  // namespace ms::test

namespace ms::test {
namespace {

// QuantizeLinear -> QLinearConv -> QLinearConv (depthwise, stride 2) -> QConvFloatOut -> Q ->
// QConvFloatOut (+ residual): the int8 values between them travel in NHWC, the float one in nChw16c
// (no reorders to plain); the result must still match the reference, within what a unit step of an
// intermediate (a rounding tie apart) can carry.
TEST(FastQConv, Int8ChainKeepsNhwcBetweenKernels) {
  ModelSpec s;
  s.inputs = {{"x", random_tensor({1, 16, 13, 15}, 51, -1.f, 1.f)}};
  s.weights["xs"] = Tensor::scalar<float>(0.008f);
  s.weights["xz"] = Tensor::scalar<uint8_t>(128);
  auto conv_weights = [&](const std::string& p, const Shape& w, uint32_t seed) {
    s.weights[p + "w"] = random_int8(DType::Int8, w, seed);
    std::vector<float> ws(w[0]);
    for (size_t m = 0; m < ws.size(); ++m) ws[m] = 0.003f + 0.0005f * float(m % 3);
    s.weights[p + "ws"] = Tensor::from_vector<float>(ws, {w[0]});
    s.weights[p + "wz"] = Tensor::from_vector<int8_t>(std::vector<int8_t>(w[0], 0), {w[0]});
  };
  conv_weights("a", {24, 16, 3, 3}, 52);
  conv_weights("b", {24, 1, 3, 3}, 53);
  conv_weights("c", {9, 24, 1, 1}, 54);
  s.weights["as"] = Tensor::scalar<float>(0.05f);
  s.weights["az"] = Tensor::scalar<uint8_t>(0);
  s.weights["bs"] = Tensor::scalar<float>(0.04f);
  s.weights["bz"] = Tensor::scalar<uint8_t>(10);
  auto pads = ints({1, 1, 1, 1});
  Node q = make_node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"});
  Node a = make_node("QLinearConv", {"xq", "xs", "xz", "aw", "aws", "awz", "as", "az"}, {"ya"});
  a.attrs["pads"] = pads;
  Node b = make_node("QLinearConv", {"ya", "as", "az", "bw", "bws", "bwz", "bs", "bz"}, {"yb"});
  b.attrs = {{"pads", pads}, {"group", Attribute::of_int(24)}, {"strides", ints({2, 2})}};
  Node c = make_node("QConvFloatOut", {"yb", "bs", "bz", "cw", "cws", "cwz"}, {"y"});
  c.domain = kMsDomain;
  // y (9 channels: a padded last channel block) is read by a QuantizeLinear and as the residual of
  // another QConvFloatOut, so it travels in the float blocked layout.
  conv_weights("d", {9, 9, 3, 3}, 55);
  s.weights["ys"] = Tensor::scalar<float>(0.1f);
  s.weights["yz"] = Tensor::scalar<uint8_t>(120);
  Node qy = make_node("QuantizeLinear", {"y", "ys", "yz"}, {"yq"});
  Node d = make_node("QConvFloatOut", {"yq", "ys", "yz", "dw", "dws", "dwz", "", "y"}, {"out"});
  d.domain = kMsDomain;
  d.attrs = {{"pads", pads}, {"activation", Attribute::of_string("Relu")}};
  s.nodes = {q, a, b, c, qy, d};
  s.outputs = {"out"};
  // One unit of yb (0.04) through a 1x1 conv of 24 channels at weight scale <= 0.004: < 0.04 · 127 · 0.004 per element flipped.
  check_against_reference(s, {"QuantizeLinear", "QLinearConv", "QConvFloatOut"}, 0, 0.15);
}

}  // namespace
}  // namespace ms::test
