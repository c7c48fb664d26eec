// ms quant accuracy tools: loss definitions against hand-computed values, the sensitivity ranking
// and the fewest-layers fallback on a model whose per-layer error is known in closed form, bias
// correction against the exact shift it must remove, the MindSpore config file, and the CLI
// (--maxAccuracyLoss, --report, --configFile, bad input).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "analysis/input_samples.h"
#include "formats/model_io.h"
#include "quant/accuracy.h"
#include "quant/bias_correction.h"
#include "quant/calibrate.h"
#include "quant/config_file.h"
#include "quant/observer.h"
#include "quant/quant_params.h"
#include "quant/quantizer.h"
#include "quant/sensitivity.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

analysis::InputSamples one_sample(const Tensor& x) {
  return analysis::InputSamples({analysis::InputSamples::Column::single(Value(x), "x")});
}

// y = x + e_1 + ... + e_n, each e_l an initializer added by node "layer<l>"; the "quantized" form
// of layer l adds its error vector, the float form adds zeros. The loss of any subset of quantized
// layers is then a closed-form function of the error vectors.
Model additive_model(const std::vector<std::vector<float>>& errors, const std::set<std::string>& float_layers) {
  Model m;
  m.opsets[""] = 17;
  const int64_t n = int64_t(errors[0].size());
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {n})};
  std::string prev = "x";
  for (size_t l = 0; l < errors.size(); ++l) {
    const std::string name = "layer" + std::to_string(l), e = "e" + std::to_string(l), out = "y" + std::to_string(l);
    std::vector<float> v = float_layers.count(name) ? std::vector<float>(size_t(n), 0.0f) : errors[l];
    m.graph.initializers[e] = Tensor::from_vector<float>(v, {n});
    m.graph.nodes.push_back(test::make_node("Add", {prev, e}, {out}, name));
    prev = out;
  }
  m.graph.outputs = {test::tensor_info(prev, DType::Float32, {n})};
  return m;
}

double cosine_loss_of(const std::vector<float>& x, const std::vector<float>& err) {
  double dot = 0, a = 0, b = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double y = x[i] + err[i];
    dot += y * x[i], a += y * y, b += double(x[i]) * x[i];
  }
  return 1 - dot / std::sqrt(a * b);
}

TEST(QuantAccuracy, LossDefinitionsMatchHandComputation) {
  const std::vector<float> x = {1, 0, 0, 0};
  const std::vector<std::vector<float>> errs = {{0, 0.5f, 0, 0}};
  const Model fp = additive_model(errs, {"layer0"});
  const Model q = additive_model(errs, {});
  const auto samples = one_sample(Tensor::from_vector<float>(x, {4}));
  // cosine: 1 - 1/sqrt(1.25).
  const quant::AccuracyProbe cos(fp, samples, quant::AccuracyMetric::Cosine, {});
  EXPECT_NEAR(cos.score(q).loss, 1 - 1 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(cos.score(fp).loss, 0, 1e-12);
  // psnr: MSE = 0.25/4, peak 1 -> PSNR = 10 log10(16) = 12.04 dB, loss = 60 - 12.04.
  const quant::AccuracyProbe psnr(fp, samples, quant::AccuracyMetric::Psnr, {});
  EXPECT_NEAR(psnr.score(q).loss, 60 - 10 * std::log10(16.0), 1e-4);
  // top1: [1, 0.5, 0, 0] keeps the argmax; an error of 2 on class 1 moves it: 100 points lost.
  const quant::AccuracyProbe top1(fp, samples, quant::AccuracyMetric::Top1, {});
  EXPECT_NEAR(top1.score(q).loss, 0, 1e-12);
  EXPECT_NEAR(top1.score(additive_model({{0, 2, 0, 0}}, {})).loss, 100, 1e-9);
  // with labels: the float model (argmax 0) is right on label 0, so the moved argmax loses 100 points
  const quant::AccuracyProbe labelled(fp, samples, quant::AccuracyMetric::Top1, {}, std::vector<int64_t>{0});
  EXPECT_NEAR(labelled.score(additive_model({{0, 2, 0, 0}}, {})).loss, 100, 1e-9);
  EXPECT_THROW(quant::AccuracyProbe(fp, samples, quant::AccuracyMetric::Top1, {}, std::vector<int64_t>{0, 1}), Error);
  EXPECT_THROW(quant::parse_accuracy_metric("mse"), Error);
}

TEST(QuantAccuracy, OnlyTheChosenOutputsCount) {
  const std::vector<float> x = {1, 0, 0, 0};
  const std::vector<std::vector<float>> errs = {{0, 0, 0, 0}, {0, 0.5f, 0, 0}};
  auto with_side_output = [&](const std::set<std::string>& f) {
    Model m = additive_model(errs, f);
    m.graph.outputs.insert(m.graph.outputs.begin(), test::tensor_info("y0", DType::Float32, {4}));  // exact
    return m;
  };
  const auto samples = one_sample(Tensor::from_vector<float>(x, {4}));
  const Model fp = with_side_output({"layer0", "layer1"}), q = with_side_output({});
  EXPECT_NEAR(quant::AccuracyProbe(fp, samples, quant::AccuracyMetric::Cosine, {}).score(q).loss, 1 - 1 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(quant::AccuracyProbe(fp, samples, quant::AccuracyMetric::Cosine, {}, std::nullopt, {"y0"}).score(q).loss, 0, 1e-12);
  EXPECT_THROW(quant::AccuracyProbe(fp, samples, quant::AccuracyMetric::Cosine, {}, std::nullopt, {"nope"}), Error);
}

TEST(QuantSensitivity, RanksLayersAndRevertsTheFewestNeeded) {
  const std::vector<float> x = {1, 0, 0, 0};
  // Orthogonal to x and to each other: each layer's error adds independently (in squares).
  const std::vector<std::vector<float>> errs = {{0, 0.1f, 0, 0}, {0, 0, 0.5f, 0}, {0, 0, 0, 0.2f}};
  const auto samples = one_sample(Tensor::from_vector<float>(x, {4}));
  const Model fp = additive_model(errs, {"layer0", "layer1", "layer2"});
  const quant::AccuracyProbe probe(fp, samples, quant::AccuracyMetric::Cosine, {});
  const quant::BuildQuantized build = [&](const std::set<std::string>& f) { return additive_model(errs, f); };
  const auto ranking = quant::rank_layers({"layer0", "layer1", "layer2"}, build, probe);
  ASSERT_EQ(ranking.size(), 3u);
  EXPECT_EQ(ranking[0].node, "layer1");
  EXPECT_EQ(ranking[1].node, "layer2");
  EXPECT_EQ(ranking[2].node, "layer0");
  EXPECT_NEAR(ranking[0].loss, cosine_loss_of(x, errs[1]), 1e-6);

  // All quantized: 1 - 1/sqrt(1.30) = 0.1229; reverting layer1 leaves 1 - 1/sqrt(1.05) = 0.0241;
  // reverting layer1 and layer2 leaves 1 - 1/sqrt(1.01) = 0.00496.
  auto r = quant::fit_loss_budget(ranking, 0.02, build, probe);
  EXPECT_TRUE(r.met);
  EXPECT_EQ(r.reverted, (std::vector<std::string>{"layer1", "layer2"}));
  EXPECT_NEAR(r.all_quantized.loss, 1 - 1 / std::sqrt(1.30), 1e-6);
  EXPECT_NEAR(r.final_score.loss, 1 - 1 / std::sqrt(1.01), 1e-6);
  EXPECT_EQ(quant::fit_loss_budget(ranking, 0.03, build, probe).reverted, std::vector<std::string>{"layer1"});
  EXPECT_TRUE(quant::fit_loss_budget(ranking, 0.2, build, probe).reverted.empty());
  const auto all = quant::fit_loss_budget(ranking, 0.0, build, probe);
  EXPECT_EQ(all.reverted.size(), 3u);
  EXPECT_TRUE(all.met);
}

// Conv 1x1 with 2 groups over 4 input channels, or Gemm with transB: the expected shift of weight
// rounding is sum (W_q - W) * E[x] per output channel, computed here by hand from the layout.
TEST(QuantBiasCorrection, ShiftOfAGroupedConvMatchesHandComputation) {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(-1, 1);
  Tensor w(DType::Float32, {4, 2, 1, 1});  // M=4, C/group=2, group=2
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  Node conv = test::make_node("Conv", {"x", "W"}, {"y"}, "conv");
  conv.attrs["group"] = Attribute::of_int(2);
  const auto spec = *quant_weight_spec(conv, 4);
  const Tensor wq = quant::dequantize_weight(quant::quantize_weight(w, 0));
  const std::vector<double> mean = {0.5, -1.0, 2.0, 3.0};
  const auto shift = quant::expected_output_shift(w, wq, spec, mean);
  ASSERT_EQ(shift.size(), 4u);
  for (int m = 0; m < 4; ++m) {
    const int group = m / 2;  // outputs 0,1 read inputs 0,1; outputs 2,3 read inputs 2,3
    double want = 0;
    for (int r = 0; r < 2; ++r) want += (wq.data<float>()[m * 2 + r] - w.data<float>()[m * 2 + r]) * mean[group * 2 + r];
    EXPECT_NEAR(shift[m], want, 1e-9) << m;
  }
}

// On inputs that are constant per channel (so the calibration mean is exact), the corrected
// weight-quantized model reproduces the float model up to float rounding, where the uncorrected one
// is off by the full shift.
Model conv_no_bias() {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 4, 4})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 5, 4, 4})};
  std::mt19937 g(3);
  std::normal_distribution<float> d(0, 1);
  Tensor w(DType::Float32, {5, 3, 1, 1});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  w.data<float>()[0] = 9;  // an outlier: channel 0's step is coarse, its rounding error large
  m.graph.initializers["W"] = w;
  m.graph.nodes = {test::make_node("Conv", {"x", "W"}, {"y"}, "conv")};
  return m;
}

Tensor constant_channels(const std::vector<float>& c) {
  Tensor x(DType::Float32, {1, 3, 4, 4});
  for (int64_t k = 0; k < x.numel(); ++k) x.data<float>()[k] = c[size_t(k / 16)];
  return x;
}

TEST(QuantBiasCorrection, CorrectedModelReproducesFloatOnTheMeanInput) {
  const Model fp = conv_no_bias();
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  const auto inputs = quant::bias_correction_inputs(fp, o);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs.at("x"), 1);
  const Tensor x = constant_channels({3.0f, -2.0f, 5.0f});
  const auto samples = one_sample(x);
  quant::CalibOptions co;
  co.session.reference_kernels = true;
  const auto stats = quant::calibrate_stats(fp, {}, inputs, samples, co);
  ASSERT_EQ(stats.channel_means.at("x"), (std::vector<double>{3, -2, 5}));

  Model plain = fp, corrected = fp;
  quant::quantize_model(plain, o, {});
  const auto done = quant::correct_biases(corrected, o, stats.channel_means);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_GT(done[0].max_shift, 1e-3);
  ASSERT_EQ(corrected.graph.nodes[0].inputs.size(), 3u);  // a bias was added
  quant::quantize_model(corrected, o, {});
  SessionOptions so;
  so.reference_kernels = true;
  auto run = [&](const Model& m) { return Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})[0].tensor; };
  const Tensor yf = run(fp), yp = run(plain), yc = run(corrected);
  double plain_err = 0, corrected_err = 0;
  for (int64_t i = 0; i < yf.numel(); ++i) {
    plain_err = std::max(plain_err, double(std::fabs(yp.data<float>()[i] - yf.data<float>()[i])));
    corrected_err = std::max(corrected_err, double(std::fabs(yc.data<float>()[i] - yf.data<float>()[i])));
  }
  EXPECT_NEAR(plain_err, done[0].max_shift, 1e-4);
  EXPECT_LT(corrected_err, 1e-5);
}

TEST(QuantObserver, OverflowIsTheShareOfValuesOutsideTheRange) {
  quant::Observer o(quant::CalibMethod::Percentile, 99.0);
  std::vector<float> v(100001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) / 100000.0f;  // U(0, 1)
  o.observe(Tensor::from_vector<float>(v, {int64_t(v.size())}));
  EXPECT_NEAR(o.overflow(o.range()), 0.02, 1e-3);        // 1% below the 1st, 1% above the 99th percentile
  EXPECT_NEAR(o.overflow({0.0f, 0.5f}), 0.5, 1e-3);
  EXPECT_EQ(o.overflow({-1.0f, 2.0f}), 0.0);
}

TEST(QuantObserver, AutoClipsOnlyFarOutliers) {
  // U(0, 1) body: p99.99 ~ 1. One value at 10 (range 10x the body's): clipped to the percentile
  // range. One value at 2 (2x): kept, MAX_MIN's range.
  std::vector<float> v(100001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) / 100000.0f;
  for (float outlier : {10.0f, 2.0f}) {
    quant::Observer o(quant::CalibMethod::Auto, 99.99);
    std::vector<float> w = v;
    w.push_back(outlier);
    o.observe(Tensor::from_vector<float>(w, {int64_t(w.size())}));
    if (outlier > quant::kAutoOutlierRatio) {
      EXPECT_NEAR(o.range().hi, 0.9999, 2e-3);
      EXPECT_NEAR(o.range().lo, 0.0001, 2e-3);  // the percentile at the other end too
    } else {
      EXPECT_FLOAT_EQ(o.range().hi, outlier);
      EXPECT_FLOAT_EQ(o.range().lo, 0.0f);
    }
  }
  EXPECT_EQ(quant::parse_calib_method("AUTO"), quant::CalibMethod::Auto);
}

class QuantConfig : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("quant_config"); }
  std::string write(const std::string& text) {
    const auto p = (dir / "q.cfg").string();
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path dir;
};

TEST_F(QuantConfig, MindSporeKeysBecomeFlags) {
  const auto c = quant::read_quant_config(write(
      "[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\nmin_quant_weight_size=0\nmin_quant_weight_channel=16\n"
      "skip_quant_node=conv1,conv2\n[full_quant_param]\nactivation_quant_method=REMOVAL_OUTLIER\nbias_correction=false\n"
      "per_channel=true\n[data_preprocess_param]\ncalibrate_path=x:/data/x_dir,y:/data/y_dir\ncalibrate_size=10\n"
      "input_type=BIN\n[some_converter_section]\nwhatever=1\n"));
  EXPECT_EQ(c.flags.at("--quantType"), "FULL_QUANT");
  EXPECT_EQ(c.flags.at("--minQuantWeightChannel"), "16");
  EXPECT_EQ(c.flags.at("--skipNodes"), "conv1,conv2");
  EXPECT_EQ(c.flags.at("--calibMethod"), "PERCENTILE");
  EXPECT_EQ(c.flags.at("--biasCorrection"), "false");
  ASSERT_EQ(c.calibrate_path.size(), 2u);
  EXPECT_EQ(c.calibrate_path[1], (std::pair<std::string, std::string>{"y", "/data/y_dir"}));
  EXPECT_EQ(c.calibrate_size, 10u);
}

TEST_F(QuantConfig, BadContentNamesFileAndLine) {
  try {
    quant::read_quant_config(write("[common_quant_param]\nquant_type=FULL_QUANT\nbit_nmu=8\n"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q.cfg:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bit_nmu"), std::string::npos) << e.what();
  }
  EXPECT_THROW(quant::read_quant_config(write("[full_quant_param]\nbias_correction=maybe\n")), Error);
  try {
    quant::read_quant_config(write("[data_preprocess_param]\ninput_type=IMAGE\nresize_method=CUBIC\n"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("q.cfg:3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(quant::read_quant_config((dir / "missing.cfg").string()), Error);
}

// Two convolutions in a row; the second's input has an outlier channel so that its activation
// quantization is the costly one.
Model two_convs() {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8})};
  m.graph.outputs = {test::tensor_info("z", DType::Float32, {1, 4, 8, 8})};
  std::mt19937 g(11);
  std::normal_distribution<float> d(0, 0.5f);
  Tensor w1(DType::Float32, {6, 3, 3, 3}), w2(DType::Float32, {4, 6, 1, 1});
  for (int64_t i = 0; i < w1.numel(); ++i) w1.data<float>()[i] = d(g);
  for (int64_t i = 0; i < 27; ++i) w1.data<float>()[i] *= 60;  // channel 0 of y is huge: y's range is coarse
  for (int64_t i = 0; i < w2.numel(); ++i) w2.data<float>()[i] = d(g);
  for (int64_t o = 0; o < 4; ++o) w2.data<float>()[o * 6] = 0.001f;  // ...and barely used by conv2
  m.graph.initializers["W1"] = w1;
  m.graph.initializers["W2"] = w2;
  Node c1 = test::make_node("Conv", {"x", "W1"}, {"y"}, "conv1");
  c1.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  m.graph.nodes = {c1, test::make_node("Conv", {"y", "W2"}, {"z"}, "conv2")};
  return m;
}

class QuantAccuracyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir("quant_accuracy_cli");
    save_model(two_convs(), path("m.onnx"), ModelFormat::Onnx);
    std::ofstream o(path("calib.bin"), std::ios::binary);
    std::mt19937 g(5);
    std::uniform_real_distribution<float> d(-1, 1);
    for (int i = 0; i < 4 * 3 * 64; ++i) {
      const float v = d(g);
      o.write(reinterpret_cast<const char*>(&v), 4);
    }
  }
  std::string path(const std::string& f) { return (dir / f).string(); }
  test::CmdResult ms(const std::string& a) { return test::run_command(std::string(MS_BINARY) + " quant " + a + " 2>&1"); }
  std::string base() {
    return "--modelFile " + path("m.onnx") + " --inputFile " + path("calib.bin") + " --outputFile " + path("q.onnx");
  }
  std::filesystem::path dir;
};

TEST_F(QuantAccuracyCli, BudgetRevertsTheSensitiveLayerAndTheReportSaysWhy) {
  auto all = ms(base() + " --quantType FULL_QUANT --report " + path("all.json"));
  ASSERT_EQ(all.code, 0) << all.output;
  const auto rall = nlohmann::json::parse(std::ifstream(path("all.json")));
  const double loss_all = rall["loss"]["final"].get<double>();
  ASSERT_GT(loss_all, 1e-4);  // the outlier channel makes int8 y lossy

  // A budget just under the all-int8 loss: one layer must go back to float, and it must be conv2
  // (its input y is the coarse one).
  const double budget = loss_all * 0.5;
  auto r = ms(base() + " --quantType FULL_QUANT --maxAccuracyLoss " + std::to_string(budget) + " --report " + path("q.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(std::ifstream(path("q.json")));
  EXPECT_TRUE(j["loss"]["budget_met"].get<bool>());
  EXPECT_LE(j["loss"]["final"].get<double>(), budget);
  EXPECT_NEAR(j["loss"]["all_quantized"].get<double>(), loss_all, 1e-9);
  std::map<std::string, nlohmann::json> layers;
  for (const auto& l : j["layers"]) layers[l["node"]] = l;
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers["conv2"]["precision"], "float");
  EXPECT_NE(layers["conv2"]["why_float"].get<std::string>().find("maxAccuracyLoss"), std::string::npos);
  EXPECT_EQ(layers["conv1"]["precision"], "int8");
  EXPECT_EQ(layers["conv2"]["sensitivity_rank"], 1);
  EXPECT_GT(layers["conv2"]["sensitivity"].get<double>(), layers["conv1"]["sensitivity"].get<double>());
  // conv1's weight: 6 per-channel scales, channel 0's = max |w| / 127 of the x60 channel
  EXPECT_EQ(layers["conv1"]["weight"]["channels"], 6);
  const Model fp = two_convs();
  const Tensor& w1 = fp.graph.initializers.at("W1");
  float amax = 0;
  for (int i = 0; i < 27; ++i) amax = std::max(amax, std::fabs(w1.data<float>()[i]));
  EXPECT_NEAR(layers["conv1"]["weight"]["scale_max"].get<double>(), amax / 127, 1e-6);
  // MAX_MIN clips nothing
  EXPECT_EQ(layers["conv1"]["activations"][0]["overflow_rate"], 0.0);
  EXPECT_EQ(layers["conv1"]["activations"][0]["clipping_ratio"], 0.0);
  EXPECT_GT(j["size"]["file_before"].get<double>(), 0);
}

TEST_F(QuantAccuracyCli, HtmlReportIsOneFile) {
  auto r = ms(base() + " --quantType FULL_QUANT --sensitivity true --report " + path("q.html"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(path("q.html"));
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("conv2"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(r.output.find("most sensitive layers"), std::string::npos) << r.output;
}

TEST_F(QuantAccuracyCli, ConfigFileSetsOptionsAndFlagsOverrideIt) {
  std::ofstream(path("q.cfg")) << "[common_quant_param]\nquant_type=FULL_QUANT\nskip_quant_node=conv1\n"
                                  "[full_quant_param]\nbias_correction=false\n";
  auto r = ms(base() + " --configFile " + path("q.cfg"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("conv1 (Conv): --skipNodes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("bias corrected"), std::string::npos) << r.output;
  // The command line wins over the file.
  r = ms(base() + " --configFile " + path("q.cfg") + " --skipNodes conv2 --biasCorrection true");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("conv2 (Conv): --skipNodes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bias corrected"), std::string::npos) << r.output;
}

TEST_F(QuantAccuracyCli, BadInputIsExit2Or3AndWritesNothing) {
  EXPECT_EQ(ms(base() + " --quantType FULL_QUANT --accuracyMetric f1").code, 2);
  EXPECT_EQ(ms(base() + " --quantType FULL_QUANT --maxAccuracyLoss -1").code, 2);
  EXPECT_EQ(ms(base() + " --quantType FULL_QUANT --biasCorrection perhaps").code, 2);
  EXPECT_EQ(ms(base() + " --quantType FULL_QUANT --labels " + path("none.txt")).code, 2);  // needs top1
  auto r = ms(base() + " --configFile " + path("missing.cfg"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("missing.cfg"), std::string::npos) << r.output;
  std::ofstream(path("img.cfg")) << "[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\ninput_type=IMAGE\nresize_method=CUBIC\n";
  EXPECT_EQ(ms(base() + " --configFile " + path("img.cfg")).code, 3);
  EXPECT_EQ(ms("--modelFile " + path("m.onnx") + " --outputFile " + path("q.onnx")).code, 2);  // no quantType anywhere
  EXPECT_FALSE(std::filesystem::exists(path("q.onnx")));
}

}  // namespace
}  // namespace ms
