// ms quant: observers against analytic ranges, weight quantization error bounds, a QDQ model run
// through the Session against the float model, and the CLI's handling of bad calibration input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "analysis/input_samples.h"
#include "formats/model_io.h"
#include "quant/calibrate.h"
#include "quant/observer.h"
#include "quant/quant_params.h"
#include "quant/quantizer.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

using quant::CalibMethod;

Tensor vec(const std::vector<float>& v) { return Tensor::from_vector<float>(v, {int64_t(v.size())}); }

std::vector<float> linspace(float a, float b, int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = a + (b - a) * float(i) / float(n - 1);
  return v;
}

TEST(QuantObserver, MaxMinOfStreamedUniformDataIsItsExtremes) {
  quant::Observer o(CalibMethod::MaxMin);
  // Three "samples"; the extremes are in different ones.
  o.observe(vec(linspace(-0.5f, 1.0f, 101)));
  o.observe(vec(linspace(-2.0f, 0.0f, 101)));
  o.observe(vec(linspace(0.0f, 3.0f, 101)));
  EXPECT_FLOAT_EQ(o.range().lo, -2.0f);
  EXPECT_FLOAT_EQ(o.range().hi, 3.0f);
}

TEST(QuantObserver, PercentileOfUniformDataIsTheQuantile) {
  // 0..1 uniform, streamed in ten chunks of growing magnitude (forces histogram re-binning).
  quant::Observer o(CalibMethod::Percentile, 99.0);
  const auto all = linspace(0.0f, 1.0f, 100001);
  for (int c = 0; c < 10; ++c)
    o.observe(vec(std::vector<float>(all.begin() + c * 10000, all.begin() + (c + 1) * 10000 + (c == 9))));
  // 1st and 99th percentiles of U(0,1); the histogram resolves 1/2048 of the range.
  EXPECT_NEAR(o.range().lo, 0.01, 1e-3);
  EXPECT_NEAR(o.range().hi, 0.99, 1e-3);
}

TEST(QuantObserver, HistogramRebinningKeepsEveryCount) {
  quant::Histogram h(8);
  const std::vector<float> a = {0.1f, -0.1f, 0.2f};  // width 0.2/8
  const std::vector<float> b = {1.0f, -3.0f};       // forces doublings
  h.add(a.data(), 3);
  h.add(b.data(), 2);
  EXPECT_EQ(h.total(), 5);
  const auto m = h.magnitude();
  double sum = 0;
  for (double c : m) sum += c;
  EXPECT_EQ(sum, 5);
  EXPECT_GE(h.width() * 8, 3.0);
  // The three small values share the first bin once the width covers 3.
  EXPECT_EQ(m[0], 3);
}

TEST(QuantObserver, KlOnAKnownHistogram) {
  // Few occupied bins: representable as is, the threshold covers them all.
  std::vector<double> small(2048, 0.0);
  for (int k = 0; k < 100; ++k) small[k] = 5;
  EXPECT_FLOAT_EQ(quant::kl_threshold(small, 0.01, 128), 100 * 0.01f);
  // A smooth, non-uniform body filling exactly 128 bins and one far outlier: keeping the body at
  // full resolution (threshold = its end, the outlier folded into the last bin) costs ~1/mass of
  // KL; covering the outlier merges the body 16 bins per level, which loses its slope.
  std::vector<double> h(2048, 0.0);
  for (int k = 0; k < 128; ++k) h[k] = 2000 - 10 * k;
  h[2000] = 1;
  EXPECT_NEAR(quant::kl_threshold(h, 0.01, 128), 1.28, 1e-5);
}

TEST(QuantObserver, KlIgnoresTheExactZerosOfARelu) {
  // A ReLU output: half exact zeros, half U(0, 1]. Zeros are exact under any threshold; the uniform
  // body loses nothing when its bins are merged evenly, so the divergence is smallest (zero) when
  // the whole body is kept: the threshold is the maximum, to within one histogram bin.
  quant::Observer o(CalibMethod::KL);
  std::vector<float> v(200000, 0.0f);
  for (int i = 0; i < 100000; ++i) v[100000 + i] = float(i + 1) / 100000;
  o.observe(vec(v));
  EXPECT_FLOAT_EQ(o.range().lo, 0.0f);
  EXPECT_NEAR(o.range().hi, 1.0, 1.0 / 2048 + 1e-6);
}

TEST(QuantObserver, MseKeepsUniformRangeAndClipsAnOutlier) {
  {
    quant::Observer o(CalibMethod::MSE);
    o.observe(vec(linspace(-1.0f, 1.0f, 100000)));
    // For U(-a, a) with 255 levels the optimum shrink is 1 - ~0.003: the 1% grid keeps the range.
    EXPECT_NEAR(o.range().lo, -1.0, 0.011);
    EXPECT_NEAR(o.range().hi, 1.0, 0.011);
  }
  // 1e6 values U(-1, 1) plus one value at 10. Clipping the top at h costs (10-h)^2, rounding noise
  // N (h+1)^2 / (12 * 255^2); the derivative vanishes at h = (20 - c) / (2 + c), c = N / (6*255^2),
  // i.e. h = 3.82; the bottom stays at -1.
  quant::Observer o(CalibMethod::MSE);
  auto v = linspace(-1.0f, 1.0f, 1000000);
  v.push_back(10.0f);
  o.observe(vec(v));
  const double c = 1e6 / (6.0 * 255 * 255), expect = (20 - c) / (2 + c);
  EXPECT_NEAR(o.range().hi, expect, 0.15);
  EXPECT_NEAR(o.range().lo, -1.0, 0.011);
}

TEST(QuantParams, ActivationParamsAnalytic) {
  auto a = quant::activation_params({-1.0f, 3.0f}, false);
  EXPECT_EQ(a.dtype, DType::UInt8);
  EXPECT_FLOAT_EQ(a.scale, 4.0f / 255);
  EXPECT_EQ(a.zero_point, 64);  // round(1 / (4/255)) = round(63.75)
  auto s = quant::activation_params({-1.0f, 3.0f}, true);
  EXPECT_EQ(s.dtype, DType::Int8);
  EXPECT_FLOAT_EQ(s.scale, 3.0f / 127);
  EXPECT_EQ(s.zero_point, 0);
  // A positive-only range still contains 0 exactly.
  EXPECT_EQ(quant::activation_params({0.5f, 2.0f}, false).zero_point, 0);
}

Tensor random_weight(Shape shape, uint32_t seed) {
  Tensor w(DType::Float32, shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0, 1);
  float* p = w.data<float>();
  const int64_t per = w.numel() / shape[0];
  for (int64_t i = 0; i < w.numel(); ++i) p[i] = d(g) * std::pow(4.0f, float(i / per) - 2);  // channel scales differ
  return w;
}

TEST(QuantWeight, PerChannelErrorWithinHalfAStep) {
  const Tensor w = random_weight({6, 3, 3, 3}, 1);
  const auto qw = quant::quantize_weight(w, 0);
  ASSERT_EQ(qw.scale.numel(), 6);
  const float* x = w.data<float>();
  const int8_t* q = qw.q.data<int8_t>();
  for (int64_t c = 0; c < 6; ++c) {
    float amax = 0;
    for (int64_t i = 0; i < 27; ++i) amax = std::max(amax, std::fabs(x[c * 27 + i]));
    const float s = qw.scale.data<float>()[c];
    EXPECT_FLOAT_EQ(s, amax / 127);  // symmetric, narrow range
    for (int64_t i = 0; i < 27; ++i) {
      EXPECT_GE(q[c * 27 + i], -127);
      EXPECT_LE(std::fabs(x[c * 27 + i] - q[c * 27 + i] * s), s / 2 * (1 + 1e-5f));
    }
  }
  // Per tensor: one scale for all, from the global max (the largest channel).
  const auto pt = quant::quantize_weight(w, -1);
  ASSERT_EQ(pt.scale.numel(), 1);
  for (int64_t i = 0; i < w.numel(); ++i)
    EXPECT_LE(std::fabs(x[i] - pt.q.data<int8_t>()[i] * pt.scale.data<float>()[0]), pt.scale.data<float>()[0] / 2 * (1 + 1e-5f));
  // Gemm/MatMul B [K, N]: channels on axis 1.
  const Tensor b = random_weight({5, 7}, 2);
  EXPECT_EQ(quant::quantize_weight(b, 1).scale.numel(), 7);
}

// y = Conv(x, W, B): x [1,3,8,8], W [4,3,3,3], pads 1.
Model conv_model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "conv";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4, 8, 8})};
  m.graph.initializers["W"] = random_weight({4, 3, 3, 3}, 3);
  m.graph.initializers["B"] = Tensor::from_vector<float>({0.1f, -0.2f, 0.3f, 0.0f}, {4});
  Node n = test::make_node("Conv", {"x", "W", "B"}, {"y"}, "conv");
  n.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  m.graph.nodes = {n};
  return m;
}

Tensor random_input(uint32_t seed) {
  Tensor x(DType::Float32, {1, 3, 8, 8});
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 2);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = d(g);
  return x;
}

analysis::InputSamples calib_samples(size_t n) {
  return analysis::InputSamples({{n, [](size_t i) { return Value(random_input(100 + uint32_t(i))); },
                                  [](size_t i) { return "sample " + std::to_string(i); }}});
}

Tensor run_ref(const Model& m, const Tensor& x) {
  SessionOptions so;
  so.reference_kernels = true;
  return Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})[0].tensor;
}

TEST(QuantModel, FullQuantQdqConvIsWithinTheQuantizationErrorOfFloat) {
  const Model fp = conv_model();
  Model q = fp;
  quant::QuantOptions o;
  const auto acts = quant::activations_to_calibrate(q, o);
  ASSERT_EQ(acts, std::vector<std::string>{"x"});
  quant::CalibOptions co;
  co.session.reference_kernels = true;
  const auto ranges = quant::calibrate(q, acts, calib_samples(8), co);
  const auto sum = quant::quantize_model(q, o, ranges);
  EXPECT_EQ(sum.weights_quantized, 1);
  EXPECT_EQ(sum.activations_quantized, 1);
  int qdq = 0;
  for (const auto& n : q.graph.nodes) qdq += n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear";
  EXPECT_EQ(qdq, 3);  // weight DQ, activation Q + DQ
  EXPECT_EQ(q.graph.initializers.at("W_quantized").dtype(), DType::Int8);

  // Per output element, |dy| <= sum_k |x_k| dw_c + |w_k| dx + dx dw_c over the 27 taps, with
  // dx = sx/2 and dw_c = sw_c/2 (x inside the calibrated range, so not clipped).
  const Tensor x = random_input(105);  // one of the calibration samples
  const Tensor yf = run_ref(fp, x), yq = run_ref(q, x);
  const float sx = q.graph.initializers.at("x_scale").data<float>()[0];
  const Tensor& sw = q.graph.initializers.at("W_scale");
  const Tensor& W = fp.graph.initializers.at("W");
  double worst_ratio = 0, any = 0;
  for (int64_t c = 0; c < 4; ++c) {
    double wsum = 0;
    for (int64_t i = 0; i < 27; ++i) wsum += std::fabs(W.data<float>()[c * 27 + i]);
    const double dx = sx / 2, dw = sw.data<float>()[c] / 2;
    const double bound = 27 * 2.0 * dw + wsum * dx + 27 * dx * dw;  // |x| <= 2
    for (int64_t p = 0; p < 64; ++p) {
      const double e = std::fabs(yf.data<float>()[c * 64 + p] - yq.data<float>()[c * 64 + p]);
      worst_ratio = std::max(worst_ratio, e / bound);
      any = std::max(any, e);
    }
  }
  EXPECT_LE(worst_ratio, 1.0);
  EXPECT_GT(any, 0.0);  // it did quantize
}

TEST(QuantModel, WeightQuantKeepsActivationsFloatAndRespectsSkips) {
  Model q = conv_model();
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  EXPECT_TRUE(quant::activations_to_calibrate(q, o).empty());
  quant::quantize_model(q, o, {});
  ASSERT_EQ(q.graph.nodes.size(), 2u);
  EXPECT_EQ(q.graph.nodes[0].op_type, "DequantizeLinear");
  EXPECT_EQ(q.graph.nodes[0].outputs[0], "W");  // the float name stays, for consumers and compare
  EXPECT_EQ(q.graph.nodes[0].attr("axis")->i, 0);

  Model s = conv_model();
  o.skip_nodes = {"conv"};
  EXPECT_EQ(quant::quantize_model(s, o, {}).weights_quantized, 0);
  o.skip_nodes = {"nope"};
  EXPECT_THROW(quant::check_skip_nodes(s, o), Error);
  o.skip_nodes = {};
  o.min_quant_weight_size = 1000;  // W has 108 elements
  EXPECT_EQ(quant::quantize_model(s, o, {}).weights_quantized, 0);
}

// Both branches of an If hold their own copy of one weight (as Silero VAD's LSTM branches fold
// it): each copy is quantized, the two identical results are stored once in the main graph, and
// the summary counts their bytes once: 108 float32 weights before; 108 int8, 4 float scales and 4
// int8 zero points after.
TEST(QuantModel, WeightCopiedIntoTwoBranchesCountsOnce) {
  const Tensor w = random_weight({4, 3, 3, 3}, 5);
  auto branch = [&](const std::string& name) {
    auto g = std::make_shared<Graph>();
    g->name = name;
    g->initializers[name + "_W"] = w;
    g->nodes = {test::make_node("Conv", {"x", name + "_W"}, {name + "_y"}, name + "_conv")};
    g->outputs = {test::tensor_info(name + "_y", DType::Float32, {1, 4, 6, 6})};
    return g;
  };
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "branches";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8}), test::tensor_info("flag", DType::Bool, {})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4, 6, 6})};
  Node n = test::make_node("If", {"flag"}, {"y"}, "choose");
  n.attrs["then_branch"] = Attribute::of_graph(branch("then"));
  n.attrs["else_branch"] = Attribute::of_graph(branch("else"));
  m.graph.nodes = {n};
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  const auto sum = quant::quantize_model(m, o, {});
  EXPECT_EQ(sum.weights_quantized, 2);
  EXPECT_EQ(sum.weight_bytes_before, 108u * 4);
  EXPECT_EQ(sum.weight_bytes_after, 108u + 4 * 4 + 4);
  int int8_initializers = 0;
  for (const auto& [name, t] : m.graph.initializers) int8_initializers += t.dtype() == DType::Int8 && t.numel() == 108;
  EXPECT_EQ(int8_initializers, 1);
}

class QuantCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir("quant_cli");
    save_model(conv_model(), path("m.onnx"), ModelFormat::Onnx);
  }
  std::string path(const std::string& f) { return (dir / f).string(); }
  test::CmdResult ms(const std::string& a) { return test::run_command(std::string(MS_BINARY) + " quant " + a + " 2>&1"); }
  void write_calib(const std::string& f, size_t samples, size_t extra_bytes = 0) {
    std::ofstream o(path(f), std::ios::binary);
    for (size_t s = 0; s < samples; ++s) {
      const Tensor x = random_input(uint32_t(s));
      o.write(static_cast<const char*>(x.raw()), x.nbytes());
    }
    o.write("1234567", std::streamsize(extra_bytes));
  }
  std::filesystem::path dir;
};

TEST_F(QuantCli, FullQuantWritesAQdqModel) {
  write_calib("calib.bin", 4);
  auto r = ms("--modelFile " + path("m.onnx") + " --inputFile " + path("calib.bin") +
              " --quantType FULL_QUANT --saveType ONNX --outputFile " + path("q.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("output cosine vs fp32"), std::string::npos) << r.output;
  const Model q = load_model(path("q.onnx"));
  int quantize = 0;
  for (const auto& n : q.graph.nodes) quantize += n.op_type == "QuantizeLinear";
  EXPECT_EQ(quantize, 1);
}

// WEIGHT_QUANT with calibration data rounds with GPTQ unless told otherwise, says so, and the report
// names the rounding per layer; NEAREST and FULL_QUANT round to nearest.
TEST_F(QuantCli, WeightQuantWithDataRoundsWithGptqByDefault) {
  write_calib("calib.bin", 8);
  const std::string base = "--modelFile " + path("m.onnx") + " --inputFile " + path("calib.bin") + " --saveType ONNX --outputFile " +
                           path("q.onnx") + " --report " + path("r.json");
  auto read = [&](const std::string& f) {
    std::ifstream in(path(f));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto r = ms(base + " --quantType WEIGHT_QUANT");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("GPTQ rounding:         1 weight(s)"), std::string::npos) << r.output;
  EXPECT_NE(read("r.json").find("\"rounding\": \"GPTQ\""), std::string::npos);
  for (const std::string& other : {" --quantType WEIGHT_QUANT --weightRounding NEAREST", " --quantType FULL_QUANT"}) {
    r = ms(base + other);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("GPTQ"), std::string::npos) << r.output;
    EXPECT_NE(read("r.json").find("\"rounding\": \"nearest\""), std::string::npos);
  }
}

// WEIGHT_QUANT without data keeps the channel sums when rounding and corrects the biases at the
// all-zeros input, and says so; --biasCorrection false and --weightRounding NEAREST turn each off.
TEST_F(QuantCli, WeightQuantWithoutDataKeepsSumsAndCorrectsAtZeros) {
  const std::string base = "--modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --saveType ONNX --outputFile " +
                           path("q.onnx") + " --report " + path("r.json");
  auto read = [&](const std::string& f) {
    std::ifstream in(path(f));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto r = ms(base);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("bias corrected:        1 layer(s) (input means taken at the all-zeros input"), std::string::npos) << r.output;
  EXPECT_NE(read("r.json").find("\"rounding\": \"KEEP_SUM\""), std::string::npos);
  r = ms(base + " --biasCorrection false --weightRounding NEAREST");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("all-zeros"), std::string::npos) << r.output;
  EXPECT_NE(read("r.json").find("\"rounding\": \"nearest\""), std::string::npos);
}

TEST_F(QuantCli, CalibFileNotAWholeNumberOfSamplesIsExit2AndWritesNothing) {
  write_calib("calib.bin", 2, 5);
  auto r = ms("--modelFile " + path("m.onnx") + " --inputFile " + path("calib.bin") +
              " --quantType FULL_QUANT --saveType ONNX --outputFile " + path("q.onnx"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("calib.bin"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("q.onnx")));
}

TEST_F(QuantCli, BadFlagsAreExit2) {
  write_calib("calib.bin", 2);
  const std::string base = "--modelFile " + path("m.onnx") + " --inputFile " + path("calib.bin") +
                           " --saveType ONNX --outputFile " + path("q.onnx");
  auto r = ms(base + " --quantType FULL_QUANT --skipNodes conv,ghost");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("ghost"), std::string::npos) << r.output;
  EXPECT_EQ(ms(base + " --quantType HALF_QUANT").code, 2);
  EXPECT_EQ(ms(base + " --quantType FULL_QUANT --calibMethod FANCY").code, 2);
  EXPECT_EQ(ms(base + " --quantType FULL_QUANT --perChannel maybe").code, 2);
  EXPECT_EQ(ms(base + " --quantType WEIGHT_QUANT --weightRounding SMART").code, 2);
  const auto no_data = ms("--modelFile " + path("m.onnx") + " --quantType WEIGHT_QUANT --weightRounding GPTQ --saveType ONNX --outputFile " + path("q.onnx"));
  EXPECT_EQ(no_data.code, 2);
  EXPECT_NE(no_data.output.find("--inputFile"), std::string::npos) << no_data.output;
  EXPECT_EQ(ms("--modelFile " + path("m.onnx") + " --quantType FULL_QUANT --saveType ONNX --outputFile " + path("q.onnx")).code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("q.onnx")));
}

}  // namespace
}  // namespace ms
