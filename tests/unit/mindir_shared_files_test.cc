// Every real MindSpore-written file in tests/data/mindir (copied from the project's shared data set,
// see tests/data/mindir/SOURCES.md) is read; the exported nets run to the
// values MindSpore computes. Expected values: small formulas computed here, and for LeNet, LSTM and
// TBNet the .npy files in tests/data/mindir made once by tests/mindir_reference/compute_expected.py
// (an independent pure-Python implementation of the primitives; see its header).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "formats/io/tensor_file.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/model_io.h"
#include "runtime/session.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

fs::path data_dir() { return fs::path(MS_SOURCE_DIR) / "tests/data/mindir"; }

Model load(const std::string& name) { return mindir::load_mindir((data_dir() / name).string()); }

std::vector<Value> run(const Model& m, std::vector<Value> feeds) {
  Session s(std::make_shared<const Model>(m));
  return s.run(feeds);
}

TEST(MindirSharedFiles, EveryFileIsReadOrRefusedWithItsReason) {
  int read = 0;
  for (const auto& e : fs::directory_iterator(data_dir())) {
    std::string name = e.path().filename().string();
    // Beside the model files lie their tests' .npy inputs/outputs and the SOURCES/SHA256SUMS notes.
    if (e.path().extension() != ".mindir" && e.path().extension() != ".ms") continue;
    SCOPED_TRACE(name);
    if (name.find("aesgcm") != std::string::npos) {
      try {
        load_model(e.path().string());
        ADD_FAILURE() << "encrypted file was read";
      } catch (const Error& err) {
        EXPECT_NE(std::string(err.what()).find("encrypted"), std::string::npos) << err.what();
        EXPECT_NE(std::string(err.what()).find("AES-GCM"), std::string::npos) << err.what();
      }
      continue;
    }
    if (e.path().extension() == ".ms") {  // Lite FlatBuffers: refused with a clear reason
      try {
        load_model(e.path().string());
        ADD_FAILURE() << ".ms file was read";
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), ErrorCode::Unsupported);
        EXPECT_NE(std::string(err.what()).find("MindSpore Lite"), std::string::npos) << err.what();
      }
      continue;
    }
    Model m = load_model(e.path().string());
    EXPECT_FALSE(m.graph.nodes.empty());
    EXPECT_NO_THROW(Session(std::make_shared<const Model>(m)));
    ++read;
  }
  EXPECT_EQ(read, 11);
}

TEST(MindirSharedFiles, Ms110AddLegacy) {
  Model m = load("ms110_add_no_encrypt.mindir");
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}), y = Tensor::from_vector<float>({0.5f, -1, 2, 0.25f}, {2, 2});
  auto out = run(m, {Value(x), Value(y)});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[0].tensor.data<float>()[i], x.data<float>()[i] + y.data<float>()[i]);
}

TEST(MindirSharedFiles, Ms150Relu) {
  Model m = load("ms150_relu.mindir");
  auto out = run(m, {Value(Tensor::from_vector<float>({-1, 2, -3, 4}, {1, 1, 2, 2}))});
  std::vector<float> want{0, 2, 0, 4};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[0].tensor.data<float>()[i], want[i]);
}

TEST(MindirSharedFiles, Ms250LogOnFloat64) {
  Model m = load("ms250_test_ops_log_cast_primitive_attribute_fp32_to_fp64.mindir");
  auto out = run(m, {Value(Tensor::from_vector<double>({1, 2.5, 10}, {3}))});
  ASSERT_EQ(out[0].tensor.dtype(), DType::Float64);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(out[0].tensor.data<double>()[i], std::log(std::vector<double>{1, 2.5, 10}[i]));
}

double celu(double x, double a) { return std::max(0.0, x) + std::min(0.0, a * (std::exp(x / a) - 1)); }

TEST(MindirSharedFiles, Ms250CeluVariants) {
  std::vector<double> xs{-2, -0.5, 0.75, 3};
  for (const char* f : {"ms250_test_ops_celu_cast_float_fp32_value_node_to_fp64.mindir",
                        "ms250_test_ops_celu_cast_float_fp32_parameter_node_to_fp64.mindir",
                        "ms250_test_ops_celu_cast_float_fp32_cnode_to_fp64.mindir",
                        "ms250_test_ops_celu_cast_float_fp32_cnode_to_fp64_v2.mindir"}) {
    SCOPED_TRACE(f);
    Model m = load(f);
    std::vector<Value> feeds;
    double alpha = 0;
    for (const auto& in : m.graph.inputs) {
      if (in.type.shape && in.type.shape->empty()) {  // alpha as a scalar graph input
        feeds.push_back(Value(Tensor::scalar<float>(1.5f)));
        alpha = 1.5;
      } else if (in.type.dtype == DType::Int64) {     // NonZero input: 3 non-zeros of 5
        feeds.push_back(Value(Tensor::from_vector<int64_t>({0, 4, 0, 1, 7}, {5})));
      } else {
        DType dt = in.type.dtype;
        Tensor t(dt, {2, 2});
        for (int i = 0; i < 4; ++i) {
          if (dt == DType::Float64) t.data<double>()[i] = xs[i];
          else t.data<float>()[i] = static_cast<float>(xs[i]);
        }
        feeds.push_back(Value(t));
      }
    }
    std::string fs(f);
    if (fs.find("value_node") != std::string::npos) alpha = static_cast<double>(0.99f);        // Constant FLOAT 0.99
    if (fs.find("cnode_to_fp64.") != std::string::npos) alpha = static_cast<double>(1.5f + 0.01f);  // ScalarAdd(alpha, 0.01)
    if (fs.find("_v2") != std::string::npos) alpha = static_cast<double>(3 * 0.5f);            // ScalarMul(#nonzero, 0.5)
    auto out = run(m, feeds);
    ASSERT_EQ(out.size(), 1u);
    const Tensor& y = out[0].tensor;
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(y.as_double(i), celu(xs[i], alpha), 1e-6) << i;
    }
  }
}

TEST(MindirSharedFiles, Ms250UpsampleNearest3D) {
  Model m = load("ms250_test_ops_upsample_cast_tuple_float_fp32_value_node_to_fp64.mindir");
  Tensor x(DType::Float64, {1, 2, 2, 2, 2});
  for (int i = 0; i < 16; ++i) x.data<double>()[i] = i;
  auto out = run(m, {Value(x)});
  const Tensor& y = out[0].tensor;
  ASSERT_EQ(y.shape(), (Shape{1, 2, 1, 3, 5}));
  std::vector<double> sc{0.5, 1.5, 2.5};
  Shape in{2, 2, 2}, os{1, 3, 5};
  for (int c = 0; c < 2; ++c)
    for (int d = 0; d < 1; ++d)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 5; ++w) {
          auto src = [&](int o, int k) { return std::min<int64_t>(static_cast<int64_t>(std::floor(o / sc[k])), in[k] - 1); };
          double want = x.data<double>()[((c * 2 + src(d, 0)) * 2 + src(h, 1)) * 2 + src(w, 2)];
          EXPECT_EQ(y.data<double>()[((c * 1 + d) * 3 + h) * 5 + w], want);
        }
}

void check_against_reference(const std::string& name, int n_inputs, int n_outputs) {
  if (!fs::is_directory(data_dir())) GTEST_SKIP() << "no " << data_dir();
  Model m = load(name + ".mindir");
  std::vector<Value> feeds;
  for (int i = 0; i < n_inputs; ++i)
    feeds.push_back(Value(io::read_npy((data_dir() / (name + ".input_" + std::to_string(i) + ".npy")).string())));
  auto out = run(m, feeds);
  ASSERT_EQ(static_cast<int>(out.size()), n_outputs);
  for (int k = 0; k < n_outputs; ++k) {
    Tensor want = io::read_npy((data_dir() / (name + ".output_" + std::to_string(k) + ".npy")).string());
    const Tensor& got = out[k].tensor;
    ASSERT_EQ(got.numel(), want.numel()) << "output " << k;
    for (int64_t i = 0; i < want.numel(); ++i)
      EXPECT_NEAR(got.as_double(i), want.as_double(i), 1e-4 + 1e-4 * std::fabs(want.as_double(i))) << "output " << k << " [" << i << "]";
  }
}

TEST(MindirSharedFiles, Ms200LeNetLikeMatchesReference) { check_against_reference("ms200a0_ori_net_lenet_like", 1, 1); }
TEST(MindirSharedFiles, Ms161LstmMatchesReference) { check_against_reference("ms161_lstm_old_version_2", 3, 1); }
TEST(MindirSharedFiles, Ms1100TbnetMatchesReference) { check_against_reference("ms1100_tbnet_model", 6, 4); }

}  // namespace
}  // namespace ms
