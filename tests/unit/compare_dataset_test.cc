// compare's inputs: datasets (.bin back to back, .npy with a leading sample axis, folders),
// aggregation over samples, top-1 accuracy against labels, and seeded random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "analysis/compare.h"
#include "analysis/labels.h"
#include "formats/io/tensor_file.h"
#include "test_util.h"

namespace ms::analysis {
namespace {

// y = op(x) for x: float32[1,4].
Model unary_model(const std::string& op, const std::string& file) {
  Model m;
  m.opsets[""] = 17;
  m.source_path = file;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 4})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4})};
  m.graph.nodes = {test::make_node(op, {"x"}, {"y"}, op)};
  return m;
}

class CompareDataset : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("compare_dataset"); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  // Three samples: all positive, mixed signs, all positive.
  const std::vector<float> data{1, 2, 3, 4, /**/ 1, -1, 1, -1, /**/ 0.5f, 0.5f, 2, 9};
  Graph graph() { return unary_model("Relu", "").graph; }
  std::filesystem::path dir;

  void check_relu_against_identity(const InputSamples& samples) {
    ASSERT_EQ(samples.count(), 3u);
    CompareOptions opts;
    opts.tolerance.min_cosine = 0.999;
    auto r = compare_models(unary_model("Relu", "relu.onnx"), unary_model("Identity", "id.onnx"), samples, opts);
    const MetricSummary& m = r.outputs.at(0).metrics;
    EXPECT_EQ(m.samples, 3u);
    EXPECT_EQ(m.failing_samples, 1u);
    EXPECT_EQ(m.worst_sample, 1u);
    // Sample 1: relu [1,0,1,0] against [1,-1,1,-1]: cosine 2 / (sqrt(2) * 2).
    EXPECT_NEAR(m.worst.cosine, 1 / std::sqrt(2.0), 1e-7);
    EXPECT_NEAR(m.mean.cosine, (2 + 1 / std::sqrt(2.0)) / 3, 1e-7);
    EXPECT_NEAR(m.mean.max_abs, 1.0 / 3, 1e-7);
    EXPECT_FALSE(r.pass());
  }
};

TEST_F(CompareDataset, BinFileWithSamplesBackToBack) {
  std::ofstream(path("d.bin"), std::ios::binary).write(reinterpret_cast<const char*>(data.data()), data.size() * 4);
  auto samples = open_input_files(graph(), {path("d.bin")});
  EXPECT_EQ(samples.label(2), path("d.bin") + "[2]");
  check_relu_against_identity(samples);
}

TEST_F(CompareDataset, NpyWithLeadingSampleAxis) {
  io::write_npy(path("d3.npy"), Tensor::from_vector<float>(data, {3, 1, 4}));
  check_relu_against_identity(open_input_files(graph(), {path("d3.npy")}));
  // [N, 4] for an input declared [1, 4]: each sample keeps the leading 1.
  io::write_npy(path("d2.npy"), Tensor::from_vector<float>(data, {3, 4}));
  check_relu_against_identity(open_input_files(graph(), {path("d2.npy")}));
}

TEST_F(CompareDataset, FolderOfSampleFiles) {
  std::filesystem::create_directories(dir / "samples");
  for (int i = 0; i < 3; ++i)
    io::write_npy(path("samples/s" + std::to_string(i) + ".npy"),
                  Tensor::from_vector<float>({data.begin() + 4 * i, data.begin() + 4 * i + 4}, {1, 4}));
  auto samples = open_input_files(graph(), {path("samples")});
  EXPECT_EQ(samples.label(1), path("samples/s1.npy"));
  check_relu_against_identity(samples);
}

TEST_F(CompareDataset, LabelsGiveTopOneAccuracyOfBothModels) {
  // Reference y = x predicts argmax(x); the model y = -x predicts argmin(x).
  std::vector<float> x{1, 2, 3, 4, /**/ 4, 3, 2, 1, /**/ 2, 9, 1, 5};
  io::write_npy(path("x.npy"), Tensor::from_vector<float>(x, {3, 1, 4}));
  std::ofstream(path("labels.txt")) << "3\n3\n2\n";
  CompareOptions opts;
  opts.labels = read_labels(path("labels.txt"));
  auto r = compare_models(unary_model("Neg", "neg.onnx"), unary_model("Identity", "id.onnx"),
                          open_input_files(graph(), {path("x.npy")}), opts);
  ASSERT_TRUE(r.accuracy);
  EXPECT_EQ(r.accuracy->rows, 3u);
  EXPECT_NEAR(r.accuracy->ref_top1, 1.0 / 3, 1e-12);    // argmax 3, 0, 1 against 3, 3, 2
  EXPECT_NEAR(r.accuracy->model_top1, 2.0 / 3, 1e-12);  // argmin 0, 3, 2 against 3, 3, 2
  // Labels are also read from .npy, and their count must match the rows.
  io::write_npy(path("labels.npy"), Tensor::from_vector<int64_t>({3, 3}, {2}));
  opts.labels = read_labels(path("labels.npy"));
  EXPECT_THROW(compare_models(unary_model("Neg", "neg.onnx"), unary_model("Identity", "id.onnx"),
                              open_input_files(graph(), {path("x.npy")}), opts),
               Error);
}

TEST_F(CompareDataset, BadDataNamesTheFile) {
  std::ofstream(path("odd.bin"), std::ios::binary).write(reinterpret_cast<const char*>(data.data()), 10);
  try {
    open_input_files(graph(), {path("odd.bin")});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("odd.bin"), std::string::npos) << e.what();
  }
  io::write_npy(path("wrong.npy"), Tensor::from_vector<float>({1, 2, 3, 4, 5}, {5}));
  EXPECT_THROW(open_input_files(graph(), {path("wrong.npy")}), Error);
  EXPECT_THROW(open_input_files(graph(), {path("missing.npy")}), Error);
  EXPECT_THROW(open_input_files(graph(), {}), Error);
  std::ofstream(path("bad_labels.txt")) << "1 2 cat\n";
  EXPECT_THROW(read_labels(path("bad_labels.txt")), Error);
}

TEST(CompareRandomInputs, RespectDtypeRangeAndSeed) {
  std::vector<ValueInfo> ins{test::tensor_info("f", DType::Float32, {200}), test::tensor_info("i", DType::Int64, {200}),
                             test::tensor_info("b", DType::Bool, {200}), test::tensor_info("u", DType::UInt8, {200})};
  auto a = random_inputs(ins, {5, std::pair{-3.0, 3.0}}).sample(0);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].tensor.dtype(), DType::Float32);
  EXPECT_EQ(a[1].tensor.dtype(), DType::Int64);
  EXPECT_EQ(a[2].tensor.dtype(), DType::Bool);
  std::set<double> ints;
  for (double v : a[0].tensor.to_double_vector()) EXPECT_TRUE(v >= -3 && v < 3) << v;
  for (double v : a[1].tensor.to_double_vector()) ints.insert(v);
  EXPECT_EQ(ints, (std::set<double>{-3, -2, -1, 0, 1, 2, 3}));
  for (double v : a[3].tensor.to_double_vector()) EXPECT_LE(v, 3);  // uint8: [0, 3]
  auto same = random_inputs(ins, {5, std::pair{-3.0, 3.0}}).sample(0);
  auto other = random_inputs(ins, {6, std::pair{-3.0, 3.0}}).sample(0);
  EXPECT_EQ(a[0].tensor.to_double_vector(), same[0].tensor.to_double_vector());
  EXPECT_NE(a[0].tensor.to_double_vector(), other[0].tensor.to_double_vector());
  // Dynamic shapes need data or --inputShape.
  ValueInfo dyn{"d", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("N"), Dim::fixed(3)})};
  EXPECT_THROW(random_inputs({dyn}, {}), Error);
  EXPECT_THROW(random_inputs(ins, {0, std::pair{1.0, 1.0}}), Error);
}

}  // namespace
}  // namespace ms::analysis
