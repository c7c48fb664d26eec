// TFLite models built by the project from FlatBuffers JSON (tests/tflite/models, compiled by flatc at
// build time): quantized int8 and uint8 networks as TFLite's converter writes them, and a float
// model with WHILE and IF (run on two inputs, one per branch). Each runs in
// mstools (as imported, after an ONNX and a MindIR round trip, and through `ms run`) and is compared
// with the outputs of TFLite's own runtime (tfjs-tflite's WebAssembly build) that
// make_models.js stored in data/ (data/manifest.json).
//
// Tolerance: one quantization step of each output (data/manifest.json "output_steps": the output's
// scale when it is dequantized to float, 1 when it stays int8/uint8). TFLite's integer kernels
// requantize with fixed-point multipliers and round ties away from zero or up; the QDQ IR computes
// in float and rounds half to even, so a value at or near a rounding boundary may land one step
// away. Where such differences meet downstream the manifest allows more ("tolerance_steps", each
// explained in make_models.js). Float outputs: "output_steps" is 1e-5 of the output's largest
// magnitude, integer outputs must be equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "ops/infer_graph.h"
#include "ops/op.h"
#include "runtime/session.h"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name, model;
  std::vector<std::string> inputs, outputs;
  std::vector<double> steps, tolerance_steps;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const fs::path kData = MS_TFLITE_TEST_DATA;
const fs::path kModels = MS_TFLITE_TEST_MODELS;

std::vector<Case> load_cases() {
  std::ifstream in(kData / "manifest.json");
  if (!in) return {{"missing_manifest", "", {}, {}, {}, {}}};
  nlohmann::json j;
  in >> j;
  std::vector<Case> cases;
  for (const auto& m : j.at("models"))
    cases.push_back({m.at("name"), m.at("model"), m.at("inputs"), m.at("outputs"), m.at("output_steps"), m.at("tolerance_steps")});
  return cases;
}

enum class Route { Direct, ViaOnnx, ViaMindIR, Cli };

fs::path scratch(const std::string& name) { return fs::temp_directory_path() / ("ms_tflite_built_" + name + "_" + std::to_string(::getpid())); }

// An op with no standard ONNX form (DetectionPostProcess) makes the ONNX writer refuse the model.
bool has_op_without_onnx_form(const ms::Model& m) {
  return std::any_of(m.graph.nodes.begin(), m.graph.nodes.end(), [](const ms::Node& n) {
    const ms::OpDef* d = ms::OpRegistry::global().find(n.domain, n.op_type);
    return d && (d->traits & ms::kTraitNoOnnxForm);
  });
}

std::vector<ms::Tensor> run_in_process(const Case& c, Route route) {
  ms::Model m = ms::load_model((kModels / c.model).string());
  if (route != Route::Direct) {
    bool onnx = route == Route::ViaOnnx;
    fs::path out = scratch(c.name).string() + (onnx ? ".onnx" : ".mindir");
    std::string written = ms::save_model(m, out.string(), onnx ? ms::ModelFormat::Onnx : ms::ModelFormat::MindIR);
    m = ms::load_model(written);
    fs::remove(written);
  }
  std::vector<ms::Value> feeds;
  for (const auto& f : c.inputs) feeds.emplace_back(ms::io::read_npy((kData / f).string()));
  ms::Session s(std::make_shared<const ms::Model>(std::move(m)));
  std::vector<ms::Tensor> outs;
  for (auto& v : s.run(feeds)) outs.push_back(std::move(v.tensor));
  return outs;
}

// The command line users run: `ms run --modelFile m.tflite --inDataFile ... --outputDir D`.
std::vector<ms::Tensor> run_cli(const Case& c) {
  fs::path dir = scratch(c.name);
  fs::remove_all(dir);
  std::string inputs;
  for (const auto& f : c.inputs) inputs += (inputs.empty() ? "" : ",") + (kData / f).string();
  std::string cmd = std::string(MS_BINARY) + " run --modelFile '" + (kModels / c.model).string() + "' --inDataFile '" + inputs +
                    "' --outputDir '" + dir.string() + "' > /dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
  std::vector<ms::Tensor> outs;
  for (size_t i = 0; i < c.outputs.size(); ++i) outs.push_back(ms::io::read_npy((dir / ("output_" + std::to_string(i) + ".npy")).string()));
  fs::remove_all(dir);
  return outs;
}

std::string route_suffix(Route r) {
  switch (r) {
    case Route::Direct: return "";
    case Route::ViaOnnx: return "_onnx";
    case Route::ViaMindIR: return "_mindir";
    case Route::Cli: return "_cli";
  }
  return "";
}

class TfliteBuiltModel : public ::testing::TestWithParam<std::tuple<Case, Route>> {};

TEST_P(TfliteBuiltModel, MatchesTfliteRuntime) {
  const Case& c = std::get<0>(GetParam());
  const Route route = std::get<1>(GetParam());
  ASSERT_FALSE(c.model.empty()) << "cannot read " << kData / "manifest.json";
  if (route == Route::ViaOnnx) {
    ms::Model m = ms::load_model((kModels / c.model).string());
    if (has_op_without_onnx_form(m)) {  // the route's expected outcome is the writer's refusal
      const fs::path out = scratch(c.name).string() + ".onnx";
      try {
        ms::save_model(m, out.string(), ms::ModelFormat::Onnx);
        ADD_FAILURE() << c.name << ": written as ONNX although an op has no ONNX form";
      } catch (const ms::Error& e) {
        EXPECT_EQ(e.code(), ms::ErrorCode::Unsupported) << e.what();
      }
      EXPECT_FALSE(fs::exists(out)) << "a refused model was written";
      return;
    }
  }
  std::vector<ms::Tensor> outs;
  try {
    outs = route == Route::Cli ? run_cli(c) : run_in_process(c, route);
  } catch (const std::exception& e) {
    FAIL() << c.name << ": " << e.what();
  }
  ASSERT_EQ(outs.size(), c.outputs.size()) << c.name;
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    ms::Tensor want = ms::io::read_npy((kData / c.outputs[i]).string());
    const ms::Tensor& got = outs[i];
    ASSERT_EQ(got.shape(), want.shape()) << c.name << " output " << i;
    EXPECT_EQ(got.dtype(), want.dtype()) << c.name << " output " << i;
    auto g = got.to_double_vector(), w = want.to_double_vector();
    double worst = 0;
    size_t off = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      double d = std::isfinite(g[k]) ? std::fabs(g[k] - w[k]) : INFINITY;
      worst = std::max(worst, d);
      off += d > 1e-6 * c.steps[i];
    }
    std::printf("[ tflite ] %-18s output %zu: %zu values, %zu differ, worst %.3g steps\n", c.name.c_str(), i, w.size(), off,
                worst / c.steps[i]);
    EXPECT_LE(worst, c.tolerance_steps[i] * c.steps[i] * (1 + 1e-4)) << c.name << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Built, TfliteBuiltModel,
                         ::testing::Combine(::testing::ValuesIn(load_cases()),
                                            ::testing::Values(Route::Direct, Route::ViaOnnx, Route::ViaMindIR, Route::Cli)),
                         [](const auto& info) { return std::get<0>(info.param).name + route_suffix(std::get<1>(info.param)); });

// --keepLayout: every activation tensor of the file is a value of the IR under its name, with the
// file's (NHWC) shape, the graph's inputs and outputs are as in the file, and the model still runs to
// TFLite's outputs. The default import cancels the layout Transposes between channels-first ops.
std::vector<std::pair<std::string, ms::Shape>> file_activations(const std::string& model_name) {
  std::ifstream in(fs::path(MS_SOURCE_DIR_TFLITE_MODELS) / (model_name + ".json"));
  nlohmann::json j;
  in >> j;
  std::vector<std::pair<std::string, ms::Shape>> out;
  for (const auto& t : j.at("subgraphs").at(0).at("tensors"))
    if (t.value("buffer", 0) == 0 && t.at("shape").size() == 4) out.emplace_back(t.at("name"), t.at("shape").get<ms::Shape>());
  return out;
}

size_t count_transposes(const ms::Model& m) {
  return std::count_if(m.graph.nodes.begin(), m.graph.nodes.end(), [](const ms::Node& n) { return n.op_type == "Transpose"; });
}

TEST(TfliteKeepLayout, EveryTensorKeepsItsNameAndNhwcShape) {
  for (const std::string name : {"int8_cnn", "uint8_mobilenet"}) {
    const fs::path file = kModels / (name + ".tflite");
    ms::LoadOptions keep;
    keep.keep_layout = true;
    ms::Model kept = ms::load_model(file.string(), ms::ModelFormat::TFLite, keep);
    ms::Model plain = ms::load_model(file.string());
    EXPECT_GT(count_transposes(kept), count_transposes(plain)) << name;
    ms::GraphInference gi = ms::infer_graph(kept);
    auto activations = file_activations(name);
    ASSERT_GT(activations.size(), 5u) << name;
    for (const auto& [tensor, shape] : activations) {
      const ms::TypeInfo* t = gi.type_of(kept.graph, tensor);
      ASSERT_NE(t, nullptr) << name << ": no value '" << tensor << "'";
      ASSERT_TRUE(t->has_static_shape()) << name << ": " << tensor;
      EXPECT_EQ(t->static_shape(), shape) << name << ": " << tensor;
    }
    ASSERT_EQ(kept.graph.inputs.size(), plain.graph.inputs.size());
    for (size_t i = 0; i < kept.graph.inputs.size(); ++i) EXPECT_EQ(kept.graph.inputs[i].type.str(), plain.graph.inputs[i].type.str());
  }
}

TEST(TfliteKeepLayout, RunsToTflitesOutputs) {
  for (const Case& c : load_cases()) {
    ms::LoadOptions keep;
    keep.keep_layout = true;
    ms::Model m = ms::load_model((kModels / c.model).string(), ms::ModelFormat::TFLite, keep);
    std::vector<ms::Value> feeds;
    for (const auto& f : c.inputs) feeds.emplace_back(ms::io::read_npy((kData / f).string()));
    ms::Session s(std::make_shared<const ms::Model>(std::move(m)));
    auto outs = s.run(feeds);
    ASSERT_EQ(outs.size(), c.outputs.size()) << c.name;
    for (size_t i = 0; i < outs.size(); ++i) {
      auto g = outs[i].tensor.to_double_vector(), w = ms::io::read_npy((kData / c.outputs[i]).string()).to_double_vector();
      ASSERT_EQ(g.size(), w.size()) << c.name;
      for (size_t k = 0; k < w.size(); ++k)
        ASSERT_LE(std::fabs(g[k] - w[k]), c.tolerance_steps[i] * c.steps[i] * (1 + 1e-4)) << c.name << " output " << i << " [" << k << "]";
    }
  }
}

TEST(TfliteKeepLayout, ExcludesChannelsFirstInputs) {
  const std::string model = (kModels / "int8_cnn.tflite").string();
  std::string cmd = std::string(MS_BINARY) + " convert --fmk TFLITE --modelFile '" + model + "' --outputFile '" +
                    scratch("keep").string() + "' --keepLayout --inputLayout NCHW > /dev/null 2>&1";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(fs::exists(scratch("keep").string() + ".mindir"));
}

}  // namespace
