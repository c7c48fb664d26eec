// 4-bit weights and float16 storage in ms quant: ONNX's int4/uint4 packing (bytes written out by
// hand from the ONNX spec's nibble order), the blocked DequantizeLinear reference kernel against
// scales repeated along the axis (the spec's definition), blocked weight quantization against its
// error bound, the int4 rewrite of a Conv model (opset 21, Reshape back to the weight's shape),
// the opset-21 form of ReduceMean, and the CLI's --bitNum/--groupSize/--fp16 handling.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "formats/model_io.h"
#include "formats/onnx/onnx_tensor.h"
#include "ops/op_call.h"
#include "quant/opset21.h"
#include "quant/quant_params.h"
#include "quant/quantizer.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

std::vector<int64_t> values_of(const Tensor& t) { return t.to_int64_vector(); }

TEST(Onnx4Bit, Int4IsPackedLowNibbleFirst) {
  // ONNX: element 2k in bits 0-3 of byte k, element 2k+1 in bits 4-7; two's complement nibbles.
  onnx::TensorProto p;
  p.set_data_type(22);
  p.add_dims(5);
  const std::string bytes = {char(0xE1), char(0x87), char(0x03)};  // 1, -2 | 7, -8 | 3, pad
  p.set_raw_data(bytes);
  const Tensor t = onnx_format::tensor_from_proto(p, "", "t");
  EXPECT_EQ(t.dtype(), DType::Int4);
  EXPECT_EQ(values_of(t), (std::vector<int64_t>{1, -2, 7, -8, 3}));
  onnx::TensorProto back;
  onnx_format::tensor_to_proto(t, "t", &back);
  EXPECT_EQ(back.data_type(), 22);
  EXPECT_EQ(back.raw_data(), bytes);
}

TEST(Onnx4Bit, UInt4AndInt32DataForm) {
  onnx::TensorProto p;
  p.set_data_type(21);
  p.add_dims(3);
  for (int b : {0x0F, 0x09}) p.add_int32_data(b);  // 15, 0 | 9, pad: one packed byte per int32
  const Tensor t = onnx_format::tensor_from_proto(p, "", "t");
  EXPECT_EQ(t.dtype(), DType::UInt4);
  EXPECT_EQ(values_of(t), (std::vector<int64_t>{15, 0, 9}));
  onnx::TensorProto back;
  onnx_format::tensor_to_proto(t, "t", &back);
  EXPECT_EQ(back.raw_data(), std::string({char(0x0F), char(0x09)}));
  // 4 elements need 2 bytes, not 4.
  onnx::TensorProto bad;
  bad.set_data_type(22);
  bad.add_dims(4);
  bad.set_raw_data(std::string(4, '\0'));
  EXPECT_THROW(onnx_format::tensor_from_proto(bad, "", "w"), Error);
}

Tensor int4(const std::vector<int8_t>& v, Shape s) {
  Tensor t(DType::Int4, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) static_cast<int8_t*>(t.raw())[i] = v[i];
  return t;
}

TEST(DequantizeLinearBlocked, EqualsScalesRepeatedAlongTheAxis) {
  // x [2, 5] in blocks of 2 along axis 1: scale and zero point [2, 3], the last block one wide.
  const Tensor x = int4({1, -2, 3, 7, -8, /**/ 0, 5, -1, 2, 4}, {2, 5});
  const Tensor s = Tensor::from_vector<float>({0.5f, 2.0f, 0.25f, /**/ 1.0f, 3.0f, 10.0f}, {2, 3});
  const Tensor z = int4({0, 1, -1, /**/ 2, 0, 3}, {2, 3});
  std::map<std::string, Attribute> attrs{{"axis", Attribute::of_int(1)}, {"block_size", Attribute::of_int(2)}};
  const Tensor y = call_reference("DequantizeLinear", {x, s, z}, attrs, 21, "dq")[0];
  // (x - z[r, c / 2]) * s[r, c / 2], written out.
  const std::vector<float> want = {(1 - 0) * 0.5f, (-2 - 0) * 0.5f, (3 - 1) * 2.0f, (7 - 1) * 2.0f, (-8 + 1) * 0.25f,
                                   (0 - 2) * 1.0f, (5 - 2) * 1.0f,  (-1 - 0) * 3.0f, (2 - 0) * 3.0f, (4 - 3) * 10.0f};
  ASSERT_EQ(y.shape(), (Shape{2, 5}));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], want[i]) << i;

  // Blocks along axis 0 of [4, 2], no zero point: rows 0-2 share scale row 0, row 3 row 1.
  const Tensor x0 = int4({1, 2, 3, 4, 5, 6, 7, -7}, {4, 2});
  const Tensor s0 = Tensor::from_vector<float>({1.0f, 0.5f, 2.0f, 4.0f}, {2, 2});
  attrs = {{"axis", Attribute::of_int(0)}, {"block_size", Attribute::of_int(3)}};
  const Tensor y0 = call_reference("DequantizeLinear", {x0, s0}, attrs, 21, "dq")[0];
  const std::vector<float> want0 = {1, 1, 3, 2, 5, 3, 14, -28};
  for (size_t i = 0; i < want0.size(); ++i) EXPECT_FLOAT_EQ(y0.data<float>()[i], want0[i]) << i;

  // A scale of the wrong block count names the node.
  const Tensor bad = Tensor::from_vector<float>({1.0f, 1.0f}, {1, 2});
  try {
    call_reference("DequantizeLinear", {x0, bad}, attrs, 21, "dq_node");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dq_node"), std::string::npos) << e.what();
  }
}

TEST(QuantWeightBlocked, ScalePerBlockAndErrorWithinHalfAStep) {
  std::mt19937 g(7);
  std::normal_distribution<float> d(0, 1);
  Tensor w(DType::Float32, {3, 10});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  const auto qw = quant::quantize_weight_blocked(w, 1, 4);  // blocks 4, 4, 2
  ASSERT_EQ(qw.scale.shape(), (Shape{3, 3}));
  EXPECT_EQ(qw.q.dtype(), DType::Int4);
  EXPECT_FALSE(qw.zero_point.defined());
  const float* x = w.data<float>();
  for (int r = 0; r < 3; ++r)
    for (int b = 0; b < 3; ++b) {
      float amax = 0;
      for (int c = b * 4; c < std::min(10, b * 4 + 4); ++c) amax = std::max(amax, std::fabs(x[r * 10 + c]));
      EXPECT_FLOAT_EQ(qw.scale.data<float>()[r * 3 + b], amax / 7) << r << "," << b;
    }
  const Tensor back = quant::dequantize_weight(qw);
  for (int64_t i = 0; i < w.numel(); ++i) {
    const int64_t q = values_of(qw.q)[i];
    EXPECT_LE(std::abs(q), 7);
    const float s = qw.scale.data<float>()[(i / 10) * 3 + (i % 10) / 4];
    EXPECT_LE(std::fabs(back.data<float>()[i] - x[i]), s / 2 + 1e-6f) << i;
  }
  EXPECT_EQ(quant::stored_bytes(qw.q), 15u);  // 30 nibbles
}

Tensor random_tensor(Shape s, uint32_t seed, float lo = -1, float hi = 1) {
  Tensor t(DType::Float32, std::move(s));
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(g);
  return t;
}

// y = ReduceMean(Conv(x, W, B), axes=[1]): x [1,3,8,8], W [4,3,3,3] (27 taps per output).
Model conv_reduce_model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "conv_reduce";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4, 8, 8}), test::tensor_info("r", DType::Float32, {1, 1, 8, 8})};
  m.graph.initializers["W"] = random_tensor({4, 3, 3, 3}, 3);
  m.graph.initializers["B"] = Tensor::from_vector<float>({0.1f, -0.2f, 0.3f, 0.0f}, {4});
  Node n = test::make_node("Conv", {"x", "W", "B"}, {"y"}, "conv");
  n.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node r = test::make_node("ReduceMean", {"y"}, {"r"}, "mean");
  r.attrs["axes"] = Attribute::of_ints({1});
  m.graph.nodes = {n, r};
  return m;
}

std::vector<Tensor> run_ref(const Model& m, const Tensor& x) {
  SessionOptions so;
  so.reference_kernels = true;
  std::vector<Tensor> r;
  for (auto& v : Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})) r.push_back(v.tensor);
  return r;
}

TEST(QuantModel, Int4ConvIsBlockedOverTheKernelWindowAndRaisesTheOpset) {
  const Model fp = conv_reduce_model();
  Model q = fp;
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  o.bit_num = 4;
  o.group_size = 8;
  const auto sum = quant::quantize_model(q, o, {});
  EXPECT_EQ(sum.weights_quantized, 1);
  EXPECT_EQ(sum.weight_bytes_after, 54u + 4 * 4 * 4);  // 108 nibbles + [4, 4] float scales
  EXPECT_EQ(q.opset(), 21);
  EXPECT_GE(q.ir_version, 10);
  ASSERT_EQ(q.graph.nodes.size(), 4u);
  const Node& dq = q.graph.nodes[0];
  EXPECT_EQ(dq.op_type, "DequantizeLinear");
  EXPECT_EQ(dq.attr("axis")->i, 1);
  EXPECT_EQ(dq.attr("block_size")->i, 8);
  EXPECT_EQ(q.graph.initializers.at(dq.inputs[0]).shape(), (Shape{4, 27}));
  EXPECT_EQ(q.graph.initializers.at(dq.inputs[0]).dtype(), DType::Int4);
  EXPECT_EQ(q.graph.nodes[1].op_type, "Reshape");
  EXPECT_EQ(q.graph.nodes[1].outputs[0], "W");
  const Node& mean = q.graph.nodes[3];  // ReduceMean-18: axes is an input
  EXPECT_EQ(mean.attr("axes"), nullptr);
  ASSERT_EQ(mean.inputs.size(), 2u);
  EXPECT_EQ(values_of(q.graph.initializers.at(mean.inputs[1])), std::vector<int64_t>{1});

  // Each output sums 27 products, each off by at most |x| * s_block / 2 (|x| <= 1).
  const Tensor x = random_tensor({1, 3, 8, 8}, 11);
  const auto yf = run_ref(fp, x), yq = run_ref(q, x);
  const Tensor& s = q.graph.initializers.at(dq.inputs[1]);
  double any = 0;
  for (int64_t c = 0; c < 4; ++c) {
    double bound = 0;
    for (int64_t k = 0; k < 27; ++k) bound += s.data<float>()[c * 4 + k / 8] / 2;
    for (int64_t p = 0; p < 64; ++p) {
      const double e = std::fabs(yf[0].data<float>()[c * 64 + p] - yq[0].data<float>()[c * 64 + p]);
      EXPECT_LE(e, bound + 1e-5);
      any = std::max(any, e);
    }
  }
  EXPECT_GT(any, 0.0);
  // The ReduceMean output still averages the 4 channels.
  for (int64_t p = 0; p < 64; ++p) {
    double mean_q = 0;
    for (int64_t c = 0; c < 4; ++c) mean_q += yq[0].data<float>()[c * 64 + p] / 4;
    EXPECT_NEAR(yq[1].data<float>()[p], mean_q, 1e-5);
  }

  // Through an ONNX file: the packed int4 weight reads back to the same outputs.
  const auto dir = test::temp_dir("int4_model");
  save_model(q, (dir / "q.onnx").string(), ModelFormat::Onnx);
  const Model back = load_model((dir / "q.onnx").string());
  EXPECT_EQ(back.opset(), 21);
  const auto yb = run_ref(back, x);
  for (int64_t i = 0; i < yb[0].numel(); ++i) EXPECT_EQ(yb[0].data<float>()[i], yq[0].data<float>()[i]);
  std::filesystem::remove_all(dir);
}

TEST(QuantModel, Int4PerChannelGroupAndBitChecks) {
  Model q = conv_reduce_model();
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  o.bit_num = 4;
  o.group_size = 0;  // per output channel: one block over all 27 taps
  quant::quantize_model(q, o, {});
  EXPECT_EQ(q.graph.nodes[0].attr("block_size")->i, 27);
  EXPECT_EQ(q.graph.initializers.at(q.graph.nodes[0].inputs[1]).shape(), (Shape{4, 1}));

  o.type = quant::QuantType::Full;
  EXPECT_THROW(quant::check_bit_num(o), Error);
  o.type = quant::QuantType::Weight;
  o.bit_num = 6;
  EXPECT_THROW(quant::check_bit_num(o), Error);
}

TEST(QuantModel, Opset21RefusesAnOpWhoseMeaningChanged) {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 4, 2})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4, 2})};
  Node g = test::make_node("GroupNormalization", {"x", "s", "b"}, {"y"}, "gn");
  g.attrs["num_groups"] = Attribute::of_int(2);
  m.graph.initializers["s"] = Tensor::from_vector<float>({1, 1}, {2});
  m.graph.initializers["b"] = Tensor::from_vector<float>({0, 0}, {2});
  m.graph.nodes = {g};
  try {
    quant::raise_opset_to_21(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gn"), std::string::npos) << e.what();
  }
}

class QuantInt4Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir("quant_int4_cli");
    Model m = conv_reduce_model();
    save_model(m, path("m.onnx"), ModelFormat::Onnx);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  test::CmdResult ms(const std::string& a) { return test::run_command(std::string(MS_BINARY) + " " + a + " 2>&1"); }
  std::filesystem::path dir;
};

TEST_F(QuantInt4Cli, BitNumAndGroupSizeChecks) {
  const std::string base = "quant --modelFile " + path("m.onnx") + " --outputFile " + path("q.onnx");
  auto r = ms(base + " --quantType FULL_QUANT --bitNum 4 --inputFile " + path("m.onnx"));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("WEIGHT_QUANT"), std::string::npos) << r.output;
  r = ms(base + " --quantType WEIGHT_QUANT --bitNum 6");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_EQ(ms(base + " --quantType WEIGHT_QUANT --bitNum 4 --groupSize -2").code, 2);
  EXPECT_EQ(ms(base + " --quantType WEIGHT_QUANT --fp16 maybe").code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("q.onnx")));
  r = ms(base + " --quantType WEIGHT_QUANT --bitNum 4 --groupSize 16");
  ASSERT_EQ(r.code, 0) << r.output;
  const Model q = load_model(path("q.onnx"));
  EXPECT_EQ(q.opset(), 21);
  EXPECT_EQ(q.graph.nodes[0].attr("block_size")->i, 16);
}

// The QDQ parameters a model's Q/DQ nodes read: (node, input) -> initializer dtype.
std::map<std::string, DType> quant_param_types(const Model& m) {
  std::map<std::string, DType> r;
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear")
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (auto it = m.graph.initializers.find(n.inputs[i]); it != m.graph.initializers.end())
          r[n.name + ":" + std::to_string(i)] = it->second.dtype();
  return r;
}

TEST_F(QuantInt4Cli, Fp16StoresFloatWeightsAsHalfAndLeavesQuantizedOnesAlone) {
  // WEIGHT_QUANT --fp16 on: W is int8 read with a float32 scale, the bias (corrected at the all-zeros
  // input, there being no data) is float16 + Cast.
  auto r = ms("quant --modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --fp16 on --outputFile " + path("h.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  const Model h = load_model(path("h.onnx"));
  EXPECT_EQ(h.graph.initializers.count("B"), 0u);
  EXPECT_EQ(h.graph.initializers.at("B_bias_corrected_fp16").dtype(), DType::Float16);
  for (const auto& [k, dt] : quant_param_types(h)) EXPECT_TRUE(dt == DType::Int8 || dt == DType::Float32) << k;
  EXPECT_EQ(h.graph.initializers.at("W_quantized").dtype(), DType::Int8);
  const Tensor x = random_tensor({1, 3, 8, 8}, 5);
  const auto yf = run_ref(conv_reduce_model(), x), yh = run_ref(h, x);
  for (int64_t i = 0; i < yf[0].numel(); ++i) EXPECT_NEAR(yh[0].data<float>()[i], yf[0].data<float>()[i], 0.05);

  // Kept float by --skipNodes: the weight itself becomes float16.
  r = ms("quant --modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --skipNodes conv --fp16 on --outputFile " + path("k.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(load_model(path("k.onnx")).graph.initializers.at("W_fp16").dtype(), DType::Float16);

  // ms convert --fp16 on of a QDQ model: the Q/DQ nodes read the same int8 and float32 tensors.
  Model full = conv_reduce_model();
  quant::QuantOptions o;
  quant::quantize_model(full, o, {{"x", quant::Range{-1, 1}}});
  save_model(full, path("qdq.onnx"), ModelFormat::Onnx);
  r = ms("convert --fmk ONNX --modelFile " + path("qdq.onnx") + " --saveType ONNX --fp16 on --optimize none --outputFile " + path("c.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  const Model c = load_model(path("c.onnx"));
  EXPECT_EQ(quant_param_types(c), quant_param_types(full));
  EXPECT_EQ(c.graph.initializers.at("B_fp16").dtype(), DType::Float16);
  const auto yq = run_ref(full, x), yc = run_ref(c, x);
  for (int64_t i = 0; i < yq[0].numel(); ++i) EXPECT_NEAR(yc[0].data<float>()[i], yq[0].data<float>()[i], 1e-3);
}

TEST_F(QuantInt4Cli, MixedPrecisionComputesTheFloatLayersInHalf) {
  // --skipNodes conv keeps the convolution float: with --mixedPrecision fp16 it computes in float16
  // (its weight stored in it, its input cast to it) and ReduceMean, a reduction, stays float32.
  auto r = ms("quant --modelFile " + path("m.onnx") +
              " --quantType WEIGHT_QUANT --skipNodes conv --mixedPrecision fp16 --outputFile " + path("mx.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("compute in fp16"), std::string::npos) << r.output;
  const Model mx = load_model(path("mx.onnx"));
  const Node* conv = nullptr;
  for (const auto& n : mx.graph.nodes)
    if (n.name == "conv") conv = &n;
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(mx.graph.initializers.at(conv->inputs[1]).dtype(), DType::Float16);
  EXPECT_EQ(mx.graph.inputs[0].type.dtype, DType::Float32);
  const Tensor x = random_tensor({1, 3, 8, 8}, 5);
  const auto yf = run_ref(conv_reduce_model(), x), ym = run_ref(mx, x);
  ASSERT_EQ(ym[0].dtype(), DType::Float32);
  double diff = 0;
  for (int64_t i = 0; i < yf[0].numel(); ++i) {
    EXPECT_NEAR(ym[0].data<float>()[i], yf[0].data<float>()[i], 1e-2);
    diff = std::max(diff, std::abs(double(ym[0].data<float>()[i]) - yf[0].data<float>()[i]));
  }
  EXPECT_GT(diff, 0.0) << "float16 compute gave the float32 numbers exactly";
  // The quantized layers stay as they were: without the skip, nothing is float, nothing is half.
  r = ms("quant --modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --mixedPrecision fp16 --outputFile " + path("mq.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const auto& n : load_model(path("mq.onnx")).graph.nodes) EXPECT_NE(n.op_type, "Cast") << n.name;
  EXPECT_EQ(ms("quant --modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --mixedPrecision fp16 --fp16 on --outputFile " +
               path("bad.onnx")).code, 2);
  EXPECT_EQ(ms("quant --modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --mixedPrecision fp8 --outputFile " +
               path("bad.onnx")).code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("bad.onnx")));
}

}  // namespace
}  // namespace ms
