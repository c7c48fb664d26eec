// Real TFLite models (MediaPipe's, from npm packages) imported and run by mstools, compared with
// the outputs of TFLite's own runtime (tfjs-tflite's WebAssembly build) that
// make_tflite_references.js stored in data/tflite/ (see data/tflite/manifest.json).
//
// Each model runs as imported and after a round trip through an ONNX and a MindIR file (what
// `ms convert --fmk TFLITE --saveType ONNX|MINDIR` writes).
// For every output: same shape, and max |got - want| <= 1e-3 * scale + 1e-6, where scale is the
// larger of the output's range and its largest magnitude (single-score outputs have no range).
// The model files are not committed: scripts/fetch_models.sh installs them into
// tests/real_models/node_modules. When they are missing the test fails (it does not skip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/error.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "runtime/session.h"

namespace {

namespace fs = std::filesystem;
constexpr double kRelTolerance = 1e-3, kAbsTolerance = 1e-6;

struct Case {
  std::string name, model;
  std::vector<std::string> inputs, outputs, output_names;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const fs::path kData = fs::path(MS_REAL_MODELS_DATA_DIR) / "tflite";

std::vector<Case> load_cases() {
  std::ifstream in(kData / "manifest.json");
  nlohmann::json j;
  if (!in) return {{"missing_manifest", "", {}, {}, {}}};
  in >> j;
  std::vector<Case> cases;
  for (const auto& m : j.at("models"))
    cases.push_back({m.at("name"), m.at("model"), m.at("inputs"), m.at("outputs"), m.value("output_names", std::vector<std::string>{})});
  return cases;
}

// How the imported model is run: directly, or after `ms convert --saveType ONNX|MINDIR` written to
// a file and read back, or imported with --keepLayout (every NHWC tensor of the file kept).
enum class Route { Direct, ViaOnnx, ViaMindIR, KeepLayout };

ms::Model imported(const fs::path& model_path, Route route, const std::string& name) {
  ms::LoadOptions lo;
  lo.keep_layout = route == Route::KeepLayout;
  ms::Model m = ms::load_model(model_path.string(), ms::ModelFormat::TFLite, lo);
  if (route == Route::Direct || route == Route::KeepLayout) return m;
  bool onnx = route == Route::ViaOnnx;
  fs::path out = fs::temp_directory_path() / ("ms_tflite_" + name + std::to_string(::getpid()) + (onnx ? ".onnx" : ".mindir"));
  std::string written = ms::save_model(m, out.string(), onnx ? ms::ModelFormat::Onnx : ms::ModelFormat::MindIR);
  ms::Model back = ms::load_model(written);
  fs::remove(written);
  return back;
}

class TfliteModel : public ::testing::TestWithParam<std::tuple<Case, Route>> {};

TEST_P(TfliteModel, MatchesTfliteRuntime) {
  const Case& c = std::get<0>(GetParam());
  const Route route = std::get<1>(GetParam());
  ASSERT_FALSE(c.model.empty()) << "cannot read " << kData / "manifest.json";
  const fs::path model_path = fs::path(MS_REAL_MODELS_NODE_MODULES) / c.model;
  ASSERT_TRUE(fs::exists(model_path)) << model_path << " is missing: run scripts/fetch_models.sh";
  std::vector<ms::Value> feeds;
  for (const auto& f : c.inputs) feeds.emplace_back(ms::io::read_npy((kData / f).string()));
  std::vector<ms::Value> outs;
  std::vector<std::string> names;
  try {
    ms::Model m = imported(model_path, route, c.name);
    for (const auto& o : m.graph.outputs) names.push_back(o.name);
    ms::Session s(std::make_shared<const ms::Model>(std::move(m)));
    outs = s.run(feeds);
  } catch (const ms::Error& e) {
    FAIL() << c.name << ": " << e.what();
  }
  ASSERT_EQ(outs.size(), c.outputs.size()) << c.name;
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    if (i < c.output_names.size()) {
      EXPECT_EQ(names[i], c.output_names[i]) << c.name << " output order";
    }
    ms::Tensor want = ms::io::read_npy((kData / c.outputs[i]).string());
    const ms::Tensor& got = outs[i].tensor;
    ASSERT_EQ(got.shape(), want.shape()) << c.name << " output " << i;
    auto g = got.to_double_vector(), w = want.to_double_vector();
    auto [lo, hi] = std::minmax_element(w.begin(), w.end());
    double scale = std::max({*hi - *lo, std::fabs(*hi), std::fabs(*lo)}), max_err = 0;
    for (size_t k = 0; k < w.size(); ++k) max_err = std::max(max_err, std::isfinite(g[k]) ? std::fabs(g[k] - w[k]) : INFINITY);
    std::printf("[ tflite ] %-34s output %zu scale %.4g max_abs_err %.3g err/scale %.3g\n", c.name.c_str(), i, scale, max_err,
                max_err / scale);
    EXPECT_LE(max_err, kRelTolerance * scale + kAbsTolerance) << c.name << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(MediaPipe, TfliteModel,
                         ::testing::Combine(::testing::ValuesIn(load_cases()),
                                            ::testing::Values(Route::Direct, Route::ViaOnnx, Route::ViaMindIR, Route::KeepLayout)),
                         [](const auto& info) {
                           Route r = std::get<1>(info.param);
                           return std::get<0>(info.param).name + (r == Route::Direct    ? ""
                                                                  : r == Route::ViaOnnx ? "_onnx"
                                                                  : r == Route::ViaMindIR ? "_mindir"
                                                                                        : "_keep_layout");
                         });

// --inputLayout NCHW: the same models with channels-first image inputs (the TFLite inputs transposed
// here by index arithmetic) give TFLite's outputs, and no Transpose reads a graph input any more.
ms::Tensor nhwc_to_nchw(const ms::Tensor& x) {
  if (x.rank() != 4) return x;
  const int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  auto v = x.to_double_vector();
  std::vector<float> y(v.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        for (int64_t c = 0; c < C; ++c) y[((n * C + c) * H + h) * W + w] = float(v[((n * H + h) * W + w) * C + c]);
  return ms::Tensor::from_vector(y, {N, C, H, W});
}

class TfliteModelNchwInput : public ::testing::TestWithParam<Case> {};

TEST_P(TfliteModelNchwInput, MatchesTfliteRuntime) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.model.empty()) << "cannot read " << kData / "manifest.json";
  const fs::path model_path = fs::path(MS_REAL_MODELS_NODE_MODULES) / c.model;
  ASSERT_TRUE(fs::exists(model_path)) << model_path << " is missing: run scripts/fetch_models.sh";
  ms::LoadOptions lo;
  lo.input_layout = "NCHW";
  ms::Model m = ms::load_model(model_path.string(), ms::ModelFormat::TFLite, lo);
  for (const auto& n : m.graph.nodes) {
    if (n.op_type != "Transpose") continue;
    for (const auto& in : m.graph.inputs) EXPECT_NE(n.inputs[0], in.name) << c.name << ": Transpose " << n.name << " reads the input";
  }
  std::vector<ms::Value> feeds;
  for (const auto& f : c.inputs) feeds.emplace_back(nhwc_to_nchw(ms::io::read_npy((kData / f).string())));
  ms::Session s(std::make_shared<const ms::Model>(std::move(m)));
  auto outs = s.run(feeds);
  ASSERT_EQ(outs.size(), c.outputs.size()) << c.name;
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    ms::Tensor want = ms::io::read_npy((kData / c.outputs[i]).string());
    ASSERT_EQ(outs[i].tensor.shape(), want.shape()) << c.name << " output " << i;
    auto g = outs[i].tensor.to_double_vector(), w = want.to_double_vector();
    auto [lo_it, hi_it] = std::minmax_element(w.begin(), w.end());
    double scale = std::max({*hi_it - *lo_it, std::fabs(*hi_it), std::fabs(*lo_it)}), max_err = 0;
    for (size_t k = 0; k < w.size(); ++k) max_err = std::max(max_err, std::isfinite(g[k]) ? std::fabs(g[k] - w[k]) : INFINITY);
    EXPECT_LE(max_err, kRelTolerance * scale + kAbsTolerance) << c.name << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(MediaPipe, TfliteModelNchwInput, ::testing::ValuesIn(load_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
