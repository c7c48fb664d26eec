// compare --bisect on models with one node broken on purpose: it must name exactly that node, for
// ONNX -> ONNX, ONNX -> MindIR and original -> --optimize basic; unbroken conversions agree.
#include <gtest/gtest.h>

#include "analysis/compare.h"
#include "compare_models.h"

namespace ms::analysis {
namespace {

enum class Route { Onnx, MindIR, OptimizeBasic };

std::string route_name(Route r) {
  switch (r) {
    case Route::Onnx: return "onnx";
    case Route::MindIR: return "mindir";
    case Route::OptimizeBasic: return "optimize_basic";
  }
  return "";
}

std::string fault_name(test::Fault f) {
  switch (f) {
    case test::Fault::PerturbedWeights: return "perturbed_weights";
    case test::Fault::WrongAttribute: return "wrong_attribute";
    case test::Fault::SwappedInputs: return "swapped_inputs";
    case test::Fault::PerturbedFusedWeights: return "perturbed_fused_weights";
  }
  return "";
}

class CompareBisect : public ::testing::TestWithParam<std::tuple<Route, test::Fault>> {
 protected:
  void SetUp() override { dir = test::temp_dir("compare_bisect"); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The model as the route delivers it, read back from its file.
  Model deliver(const Model& m, Route r, const std::string& stem) {
    switch (r) {
      case Route::Onnx: return test::through_file(m, dir / (stem + ".onnx"), ModelFormat::Onnx);
      case Route::MindIR: return test::through_file(m, dir / (stem + ".mindir"), ModelFormat::MindIR);
      case Route::OptimizeBasic:
        return test::through_file(test::optimized_basic(m), dir / (stem + "_opt.onnx"), ModelFormat::Onnx);
    }
    return m;
  }

  CompareResult compare(const Model& model, const Model& ref) {
    CompareOptions opts;
    opts.tolerance.min_cosine = 0.9999;
    opts.bisect = true;
    auto inputs = random_inputs(required_inputs(ref.graph), {3, std::nullopt});
    return compare_models(model, ref, inputs, opts);
  }

  std::filesystem::path dir;
};

std::string op_of(const Model& m, const std::string& node) {
  for (const auto& n : m.graph.nodes)
    if (n.name == node) return n.op_type;
  return "?";
}

TEST_P(CompareBisect, NamesExactlyTheBrokenNode) {
  auto [route, fault] = GetParam();
  Model original = test::through_file(test::compare_cnn(), dir / "original.onnx", ModelFormat::Onnx);
  auto [broken, culprit] = test::break_one_node(original, fault);
  Model delivered = deliver(broken, route, "broken");
  CompareResult r = compare(delivered, original);

  EXPECT_FALSE(r.pass()) << "the broken model's output should fail the tolerance";
  ASSERT_TRUE(r.divergence) << "no divergence found";
  const Divergence& d = *r.divergence;
  std::string expected = culprit + " (" + op_of(original, culprit) + ")";
  EXPECT_EQ(d.ref_nodes, std::vector<std::string>{expected});
  // Files of the ONNX routes keep node names. MindIR keeps none (and may express a node with other
  // primitives, a Gemm as MatMul + Add), so there the reference side names it.
  if (route != Route::MindIR) {
    EXPECT_EQ(d.nodes, std::vector<std::string>{expected});
  }
  EXPECT_FALSE(d.nodes.empty());
  // Every tensor it is computed from agrees, and its own output does not.
  for (size_t i : d.input_layers) EXPECT_TRUE(r.layers[i].metrics.pass()) << r.layers[i].pair.name;
  EXPECT_FALSE(r.layers[d.layer].metrics.pass());
  // Every paired tensor before it in topological order agrees.
  for (size_t i = 0; i < d.layer; ++i)
    EXPECT_TRUE(r.layers[i].metrics.pass() || !r.layers[i].skipped.empty()) << r.layers[i].pair.name;
  EXPECT_TRUE(r.marking_changes.empty());
}

TEST_P(CompareBisect, BrokenReferenceIsFoundFromTheOtherSide) {
  auto [route, fault] = GetParam();
  Model original = test::through_file(test::compare_cnn(), dir / "original.onnx", ModelFormat::Onnx);
  auto [broken, culprit] = test::break_one_node(original, fault);
  Model delivered = deliver(original, route, "good");
  Model broken_ref = test::through_file(broken, dir / "broken_ref.onnx", ModelFormat::Onnx);
  CompareResult r = compare(delivered, broken_ref);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->ref_nodes, std::vector<std::string>{culprit + " (" + op_of(original, culprit) + ")"});
}

INSTANTIATE_TEST_SUITE_P(AllRoutesAndFaults, CompareBisect,
                         ::testing::Combine(::testing::Values(Route::Onnx, Route::MindIR, Route::OptimizeBasic),
                                            ::testing::Values(test::Fault::PerturbedWeights, test::Fault::WrongAttribute,
                                                              test::Fault::SwappedInputs, test::Fault::PerturbedFusedWeights)),
                         [](const auto& info) {
                           return route_name(std::get<0>(info.param)) + "_" + fault_name(std::get<1>(info.param));
                         });

class CompareUnbroken : public ::testing::TestWithParam<Route> {};

TEST_P(CompareUnbroken, ConversionAgreesEverywhere) {
  auto dir = test::temp_dir("compare_unbroken");
  Model original = test::through_file(test::compare_cnn(), dir / "original.onnx", ModelFormat::Onnx);
  Model delivered;
  switch (GetParam()) {
    case Route::Onnx: delivered = test::through_file(original, dir / "copy.onnx", ModelFormat::Onnx); break;
    case Route::MindIR: delivered = test::through_file(original, dir / "copy.mindir", ModelFormat::MindIR); break;
    case Route::OptimizeBasic: delivered = test::optimized_basic(original); break;
  }
  CompareOptions opts;
  opts.tolerance.min_cosine = 0.99999;
  opts.bisect = true;
  auto inputs = random_inputs(required_inputs(original.graph), {11, std::pair{-2.0, 2.0}});
  CompareResult r = compare_models(delivered, original, inputs, opts);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(r.pass());
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_GE(r.outputs[0].metrics.worst.cosine, 0.99999);
  EXPECT_FALSE(r.divergence);
  EXPECT_GE(r.layers.size(), 7u);  // every node but the folded weight computation pairs
  for (const auto& l : r.layers) EXPECT_TRUE(l.metrics.pass()) << l.pair.name;
}

TEST(CompareLayers, IntegerTensorsAreNotComparedWithFloatOnes) {
  // Model: t = Cast<int32>(x), y = Cast<float>(t). Reference: t = Floor(x), y = Identity(t). For
  // x >= 0 both compute y = floor(x), but t holds integers on one side and floats on the other.
  auto make = [](bool integer) {
    Model m;
    m.opsets[""] = 17;
    m.source_path = integer ? "int.onnx" : "float.onnx";
    m.graph.inputs = {test::tensor_info("x", DType::Float32, {6})};
    m.graph.outputs = {test::tensor_info("y", DType::Float32, {6})};
    Node a = test::make_node(integer ? "Cast" : "Floor", {"x"}, {"t"}, "to_t");
    Node b = test::make_node(integer ? "Cast" : "Identity", {"t"}, {"y"}, "to_y");
    if (integer) {
      a.attrs["to"] = Attribute::of_int(static_cast<int64_t>(DType::Int32));
      b.attrs["to"] = Attribute::of_int(static_cast<int64_t>(DType::Float32));
    }
    m.graph.nodes = {a, b};
    return m;
  };
  CompareOptions opts;
  opts.tolerance.atol = 0;
  opts.bisect = true;
  auto r = compare_models(make(true), make(false), random_inputs(required_inputs(make(true).graph), {1, std::pair{0.0, 9.0}}), opts);
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].skipped, "int32 against float32");
  EXPECT_TRUE(r.layers[1].metrics.pass());
  EXPECT_TRUE(r.pass());
  EXPECT_FALSE(r.divergence);
}

INSTANTIATE_TEST_SUITE_P(AllRoutes, CompareUnbroken, ::testing::Values(Route::Onnx, Route::MindIR, Route::OptimizeBasic),
                         [](const auto& info) { return route_name(info.param); });

}  // namespace
}  // namespace ms::analysis
