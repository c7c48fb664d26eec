// MindIR files written by hand, the way MindSpore's exporter and MindSpore Lite's converter write
// them, independently of the project's writer (tests/data/mindir_outside/*.txtpb, protobuf text
// format, encoded with protoc at test time), are read and run; the expected values are computed
// here with plain loops over the same numbers the fixtures state in their header comments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "formats/mindir/mindir_reader.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

fs::path fixture_dir() { return fs::path(MS_SOURCE_DIR) / "tests/data/mindir_outside"; }

// Encodes fixture `name`.txtpb into `dir`/`file_name` with protoc and the project's schema.
fs::path encode(const std::string& name, const fs::path& dir, const std::string& file_name = "") {
  fs::path out = dir / (file_name.empty() ? name + ".mindir" : file_name);
  std::string cmd = std::string("'") + MS_PROTOC + "' --encode=mind_ir.ModelProto -I '" + MS_SOURCE_DIR +
                    "/src/formats/mindir' mind_ir.proto < '" + (fixture_dir() / (name + ".txtpb")).string() + "' > '" +
                    out.string() + "' 2>&1";
  auto r = test::run_command(cmd);
  if (r.code != 0) {
    std::ifstream f(out);
    std::string msg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ADD_FAILURE() << "protoc could not encode " << name << ".txtpb: " << msg;
  }
  return out;
}

class MindirOutsideFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("mindir_outside"); }
  void TearDown() override { fs::remove_all(dir_); }
  Model load(const std::string& name) { return mindir::load_mindir(encode(name, dir_).string()); }
  fs::path dir_;
};

std::vector<Value> run(const Model& m, const std::vector<Value>& feeds) {
  Session s(std::make_shared<const Model>(m));
  return s.run(feeds);
}

Tensor f32(const std::vector<float>& v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }

void expect_values(const Value& v, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_TRUE(v.is_tensor()) << what;
  const Tensor& t = v.tensor;
  ASSERT_EQ(static_cast<size_t>(t.numel()), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.as_double(static_cast<int64_t>(i)), want[i], tol) << what << " [" << i << "]";
}

// ---------------------------------------------------------------------------------------------

TEST_F(MindirOutsideFiles, LiteCnnWithFusionPrimitives) {
  Model m = load("lite_cnn");
  std::vector<float> x(16), w(18), fw(24);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>((i % 7 - 3) * 0.25);
  for (int k = 0; k < 18; ++k) w[k] = static_cast<float>((k % 5 - 2) * 0.5);
  for (int k = 0; k < 24; ++k) fw[k] = static_cast<float>((k % 7 - 3) * 0.125);
  const double cb[2] = {0.25, -0.5}, fb[3] = {0.1, -0.2, 0.3};
  double conv[2][4][4];
  for (int o = 0; o < 2; ++o)
    for (int h = 0; h < 4; ++h)
      for (int q = 0; q < 4; ++q) {
        double s = cb[o];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            int y = h + i - 1, z = q + j - 1;
            if (y >= 0 && y < 4 && z >= 0 && z < 4) s += x[y * 4 + z] * w[o * 9 + i * 3 + j];
          }
        conv[o][h][q] = std::max(s, 0.0);
      }
  double flat[8];
  for (int o = 0; o < 2; ++o)
    for (int h = 0; h < 2; ++h)
      for (int q = 0; q < 2; ++q) {
        double mx = -1e30, sum = 0;
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            mx = std::max(mx, conv[o][2 * h + i][2 * q + j]);
            sum += conv[o][2 * h + i][2 * q + j];
          }
        flat[o * 4 + h * 2 + q] = std::clamp(mx + sum / 4, 0.0, 6.0);
      }
  std::vector<double> want(3);
  for (int j = 0; j < 3; ++j) {
    double s = fb[j];
    for (int k = 0; k < 8; ++k) s += flat[k] * fw[j * 8 + k];
    want[j] = std::tanh(s);
  }
  auto out = run(m, {Value(f32(x, {1, 1, 4, 4}))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], want, 1e-5, "y");
}

TEST_F(MindirOutsideFiles, LiteElementwiseFusionsAndActivations) {
  Model m = load("lite_ops");
  const std::vector<double> x{-2, -0.5, 0, 0.5, 1.5, 3}, y{1, -1, 2, 0.25, -3, 0.5}, div{2, 4, -8};
  std::vector<std::vector<double>> rows(9, std::vector<double>(6));
  auto relu6 = [](double v) { return std::clamp(v, 0.0, 6.0); };
  for (int i = 0; i < 6; ++i) {
    double v = x[i];
    rows[0][i] = std::max(v - y[i], 0.0);
    rows[1][i] = relu6(v * y[i]);
    rows[2][i] = v / div[i % 3];
    rows[3][i] = v < 0 ? 0.1 * v : v;
    rows[4][i] = 1 / (1 + std::exp(-v));
    rows[5][i] = v * relu6(v + 3) / 6;
    rows[6][i] = relu6(v + 3) / 6;
    rows[7][i] = std::clamp(v, -0.5, 0.5);
    rows[8][i] = v < 0 ? std::exp(v) - 1 : v;
  }
  // concat along axis 0: row r of the [18,3] result is rows[r / 2][(r % 2) * 3 + c]
  double cat[18][3], sm[18][3];
  for (int r = 0; r < 18; ++r)
    for (int c = 0; c < 3; ++c) cat[r][c] = rows[r / 2][(r % 2) * 3 + c];
  for (int r = 0; r < 18; ++r) {
    double z = 0;
    for (int c = 0; c < 3; ++c) z += std::exp(cat[r][c]);
    for (int c = 0; c < 3; ++c) sm[r][c] = std::exp(cat[r][c]) / z;
  }
  std::vector<double> want0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 18; ++r) want0.push_back(sm[r][c]);
  std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
  auto out = run(m, {Value(f32(xf, {2, 3})), Value(f32(yf, {2, 3}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], want0, 1e-6, "softmax^T");
  expect_values(out[1], rows[3], 1e-6, "leaky_relu");
}

TEST_F(MindirOutsideFiles, Version2PrimitiveFunctionInputs) {
  Model m = load("v2_prim_function");
  std::vector<float> x(8);
  double w[3][4], r[2][3], sm[2][3];
  const double b[3] = {0.5, -0.25, 0.1};
  for (int i = 0; i < 8; ++i) x[i] = static_cast<float>((i % 5 - 2) * 0.5);
  for (int k = 0; k < 12; ++k) w[k / 4][k % 4] = ((3 * k) % 7 - 3) * 0.25;
  for (int i = 0; i < 2; ++i) {
    double z = 0;
    for (int j = 0; j < 3; ++j) {
      double s = b[j];
      for (int k = 0; k < 4; ++k) s += x[i * 4 + k] * w[j][k];
      r[i][j] = std::max(s, 0.0);
      z += std::exp(r[i][j]);
    }
    for (int j = 0; j < 3; ++j) sm[i][j] = std::exp(r[i][j]) / z;
  }
  // reshape [2,3] -> [3,2] keeps the flat order; transposing gives tp[i][j] = flat[j * 2 + i]
  std::vector<double> flat{sm[0][0], sm[0][1], sm[0][2], sm[1][0], sm[1][1], sm[1][2]};
  std::vector<double> mean(2), cast;
  for (int i = 0; i < 2; ++i) {
    double s = 0;
    for (int j = 0; j < 3; ++j) s += flat[j * 2 + i] + sm[i][j];
    mean[i] = s / 6;
    for (int j = 0; j < 3; ++j) cast.push_back(static_cast<float>(r[i][j]));
  }
  auto out = run(m, {Value(f32(x, {2, 4}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], mean, 1e-6, "reduce_mean");
  EXPECT_EQ(out[1].tensor.dtype(), DType::Float64);
  expect_values(out[1], cast, 1e-6, "cast");
}

Tensor flag(bool b) {
  Tensor t(DType::Bool, {});
  t.data<bool>()[0] = b;
  return t;
}

TEST_F(MindirOutsideFiles, IfAsSwitchOverClosures) {
  Model m = load("if_switch");
  for (std::vector<float> x : {std::vector<float>{1, -0.5, 2}, std::vector<float>{-1, 0.25, -3}}) {
    std::vector<float> y{0.5, 2, -1.5};
    bool positive = x[0] + x[1] + x[2] > 0;
    std::vector<double> want;
    for (int i = 0; i < 3; ++i) want.push_back((positive ? x[i] + y[i] : x[i] - y[i]) * y[i]);
    auto out = run(m, {Value(f32(x, {3})), Value(f32(y, {3}))});
    ASSERT_EQ(out.size(), 1u);
    expect_values(out[0], want, 1e-6, positive ? "true branch" : "false branch");
  }
}

TEST_F(MindirOutsideFiles, IfOverPartialsWithCallArgumentsAndTupleResults) {
  Model m = load("if_partial");
  std::vector<float> x{1.5, -2}, y{0.5, 4};
  for (bool f : {true, false}) {
    std::vector<double> first, second;
    for (int i = 0; i < 2; ++i) {
      first.push_back(f ? x[i] + y[i] : x[i] - 3 * y[i]);
      second.push_back(f ? x[i] * y[i] : 3 * y[i]);
    }
    auto out = run(m, {Value(f32(x, {2})), Value(f32(y, {2})), Value(flag(f))});
    ASSERT_EQ(out.size(), 2u);
    expect_values(out[0], first, 1e-6, f ? "then[0]" : "else[0]");
    expect_values(out[1], second, 1e-6, f ? "then[1]" : "else[1]");
  }
}

TEST_F(MindirOutsideFiles, WhileAsTailRecursionOverClosures) {
  Model m = load("while_loop");
  std::vector<float> x{1, -0.5};
  auto out = run(m, {Value(f32(x, {2}))});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (float v : x) {
    double s = v;
    for (int i = 0; i < 3; ++i) s = 2 * s + 1;
    want.push_back(s);
  }
  expect_values(out[0], want, 1e-6, "x");
}

TEST_F(MindirOutsideFiles, WhileOverPartialsCarryingATupleWithANestedIf) {
  Model m = load("while_partial_tuple");
  std::vector<float> a0{1, -0.5}, b0{2, 3};
  std::vector<double> a(a0.begin(), a0.end()), b(b0.begin(), b0.end());
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 2; ++k) {
      a[k] += b[k];
      b[k] = i > 1 ? 2 * b[k] : b[k] - 1;
    }
  auto out = run(m, {Value(f32(a0, {2})), Value(f32(b0, {2}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], a, 1e-6, "a");
  expect_values(out[1], b, 1e-6, "b");
}

TEST_F(MindirOutsideFiles, Version1CorePrimitivesWithMonads) {
  Model m = load("v1_core_monads");
  std::vector<float> x(9);
  double w[8], fc[24];
  for (int i = 0; i < 9; ++i) x[i] = static_cast<float>((i % 4 - 1.5) * 0.5);
  for (int k = 0; k < 8; ++k) w[k] = (k % 3 - 1) * 0.5;
  for (int k = 0; k < 24; ++k) fc[k] = (k % 5 - 2) * 0.25;
  const double bias[2] = {0.1, -0.1}, gamma[2] = {1.5, 0.5}, beta[2] = {0, 0.2}, mean[2] = {0.1, -0.1},
               var[2] = {0.25, 4};
  double act[2][3][3];
  for (int o = 0; o < 2; ++o)
    for (int h = 0; h < 3; ++h)
      for (int q = 0; q < 3; ++q) {
        double s = bias[o];  // padding only at the bottom and the right
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            if (h + i < 3 && q + j < 3) s += x[(h + i) * 3 + q + j] * w[o * 4 + i * 2 + j];
        s = gamma[o] * (s - mean[o]) / std::sqrt(var[o] + 1e-5) + beta[o];
        act[o][h][q] = std::max(s, 0.0);
      }
  double flat[8];
  for (int o = 0; o < 2; ++o)
    for (int h = 0; h < 2; ++h)
      for (int q = 0; q < 2; ++q)
        flat[o * 4 + h * 2 + q] = std::max({act[o][h][q], act[o][h + 1][q], act[o][h][q + 1], act[o][h + 1][q + 1]});
  std::vector<double> want(3);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 8; ++k) want[j] += flat[k] * fc[j * 8 + k];
  auto out = run(m, {Value(f32(x, {1, 1, 3, 3}))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], want, 1e-5, "y");
}

TEST_F(MindirOutsideFiles, ConstantsOfEveryFormAndANestedTupleOutput) {
  Model m = load("consts_tuples");
  std::vector<float> x{-1.5, 0.25, 2, 3.5, -0.75, 1};
  auto at = [&](int r, int c) { return static_cast<double>(x[r * 3 + c]); };
  std::vector<double> tiled, halved, swapped, third, sliced, scaled, shifted, squeezed, ints;
  double summed = 0;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 6; ++i) tiled.push_back(x[i]);
  for (int r = 0; r < 2; ++r) {
    third.push_back(at(r, 2));
    for (int c = 0; c < 3; ++c) {
      halved.push_back(at(r, c) * 0.5);
      swapped.push_back(at(1 - r, c));
      scaled.push_back(at(r, c) * 2);
      shifted.push_back(at(r, c) + c + 1);
      squeezed.push_back(at(r, c));
      ints.push_back(std::trunc(at(r, c)));
      summed += at(r, c);
      if (c >= 1) sliced.push_back(at(r, c));
    }
  }
  auto out = run(m, {Value(f32(x, {2, 3}))});
  ASSERT_EQ(out.size(), 10u);  // the nested tuple, flattened in order
  expect_values(out[0], tiled, 0, "tiled");
  expect_values(out[1], halved, 0, "halved");
  expect_values(out[2], swapped, 0, "swapped");
  expect_values(out[3], third, 0, "third");
  expect_values(out[4], sliced, 0, "sliced");
  EXPECT_EQ(out[5].tensor.dtype(), DType::Float32);  // the DOUBLE scalar does not promote x
  expect_values(out[5], scaled, 0, "scaled");
  expect_values(out[6], shifted, 0, "shifted");
  expect_values(out[7], squeezed, 0, "squeezed");
  EXPECT_EQ(out[8].tensor.dtype(), DType::Int32);
  expect_values(out[8], ints, 0, "ints");
  expect_values(out[9], {summed}, 1e-6, "summed");
}

TEST_F(MindirOutsideFiles, Float16AndIntegerParameters) {
  Model m = load("fp16_int_params");
  std::vector<float> x{1.5, -2};
  const double w[4] = {0.5, -1.25, 2, 0.125};
  std::vector<int32_t> idx{3, 0, 2};
  std::vector<int64_t> n{5, 7};
  std::vector<double> y0{x[0] * w[0] + x[1] * w[2], x[0] * w[1] + x[1] * w[3]}, y1;
  for (int32_t r : idx)
    for (int c = 0; c < 2; ++c) y1.push_back((r * 2 + c) * 0.25 - 1);
  auto out = run(m, {Value(f32(x, {1, 2})), Value(Tensor::from_vector<int32_t>(idx, {3})), Value(Tensor::from_vector<int64_t>(n, {2}))});
  ASSERT_EQ(out.size(), 3u);
  expect_values(out[0], y0, 1e-6, "x . w16");
  expect_values(out[1], y1, 0, "embedding rows");
  EXPECT_EQ(out[2].tensor.dtype(), DType::Int64);
  expect_values(out[2], {15, 4}, 0, "n + offs");
}

// The data file of the split form, written here from the numbers the fixture states.
void write_variables(const fs::path& dir) {
  fs::create_directories(dir / "external_weights_variables");
  std::vector<char> blob(192, 0);
  blob[0] = 1;  // little endian
  const float bias[2] = {0.5f, -1.f}, weight[6] = {1, 2, 3, -1, 0.5f, 0.25f};
  std::memcpy(blob.data() + 64, bias, sizeof bias);
  std::memcpy(blob.data() + 128, weight, sizeof weight);
  std::ofstream(dir / "external_weights_variables/data_0", std::ios::binary).write(blob.data(), static_cast<std::streamsize>(blob.size()));
}

TEST_F(MindirOutsideFiles, SplitWeightsInVariablesFiles) {
  write_variables(dir_);
  Model m = mindir::load_mindir(encode("external_weights_graph", dir_).string());
  std::vector<float> x{2, -1, 4};
  auto out = run(m, {Value(f32(x, {1, 3}))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], {2 * 1 - 1 * 2 + 4 * 3 + 0.5, 2 * -1 - 1 * 0.5 + 4 * 0.25 - 1}, 1e-6, "y");
}

TEST_F(MindirOutsideFiles, SplitWeightsWithAMissingDataFileAreRefusedWithTheirPath) {
  try {
    mindir::load_mindir(encode("external_weights_graph", dir_).string());
    ADD_FAILURE() << "read without its data file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("external_weights_variables/data_0"), std::string::npos) << e.what();
  }
}

TEST_F(MindirOutsideFiles, LinearQuantWeightsAreDequantizedPerChannel) {
  Model m = load("weight_quant_params");
  const int q[2][3] = {{10, -20, 30}, {127, -128, 0}};
  const double scale[2] = {0.05, 0.01}, zp[2] = {0, 2};
  std::vector<float> x{1, -0.5, 2};
  std::vector<double> want(2);
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 3; ++k) want[c] += x[k] * (q[c][k] - zp[c]) * scale[c];
  auto out = run(m, {Value(f32(x, {1, 3}))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], want, 1e-5, "y");
}

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

TEST_F(MindirOutsideFiles, LstmPrimitiveWithFlatWeights) {
  Model m = load("lstm");
  const int I = 2, H = 2, S = 3;
  std::vector<double> w(48);
  for (int k = 0; k < 48; ++k) w[k] = ((5 * k) % 11 - 5) * 0.1;
  const double* w_ih = w.data();                  // [4H, I]
  const double* w_hh = w_ih + 4 * H * I;          // [4H, H]
  const double* b_ih = w_hh + 4 * H * H;          // [4H]
  const double* b_hh = b_ih + 4 * H;              // [4H]
  std::vector<float> x{0.5, -1, 1.5, 0.25, -0.75, 2}, h0{0.1, -0.2}, c0{0.3, 0.05};
  std::vector<double> h(h0.begin(), h0.end()), c(c0.begin(), c0.end()), ys;
  for (int t = 0; t < S; ++t) {
    double g[4 * H];
    for (int r = 0; r < 4 * H; ++r) {
      g[r] = b_ih[r] + b_hh[r];
      for (int k = 0; k < I; ++k) g[r] += w_ih[r * I + k] * x[t * I + k];
      for (int k = 0; k < H; ++k) g[r] += w_hh[r * H + k] * h[k];
    }
    for (int j = 0; j < H; ++j) {  // gates i, f, g, o
      c[j] = sigmoid(g[H + j]) * c[j] + sigmoid(g[j]) * std::tanh(g[2 * H + j]);
      h[j] = sigmoid(g[3 * H + j]) * std::tanh(c[j]);
    }
    ys.insert(ys.end(), h.begin(), h.end());
  }
  auto out = run(m, {Value(f32(x, {S, 1, I})), Value(f32(h0, {1, 1, H})), Value(f32(c0, {1, 1, H}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], ys, 1e-5, "y");
  expect_values(out[1], {h[0], h[1], c[0], c[1]}, 1e-5, "(h_n, c_n)");
}

TEST_F(MindirOutsideFiles, PythonLevelCallsAreRefusedNamingTheNode) {
  for (const char* name : {"unsupported_meta_func_graph", "unsupported_class_type"}) {
    SCOPED_TRACE(name);
    auto path = encode(name, dir_);
    auto r = test::run_command(std::string("'") + MS_BINARY + "' run --modelFile '" + path.string() + "' --outputDir '" +
                               (dir_ / "out").string() + "' 2>&1");
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_NE(r.output.find("CNode_1:2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(std::string(name).find("meta") != std::string::npos ? "MetaFuncGraph 'add'" : "Python class"),
              std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "output_0.npy"));
  }
}

TEST_F(MindirOutsideFiles, WhileCarryingAMonadReadsAWeightEachIteration) {
  Model m = load("while_monad");
  std::vector<float> x{1, -0.5};
  const double w[2] = {1.5, -2};
  auto out = run(m, {Value(f32(x, {2}))});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], {x[0] * w[0] * w[0], x[1] * w[1] * w[1]}, 1e-6, "x w^2");
}

TEST_F(MindirOutsideFiles, LiteScalePowLayerNormSliceArgMax) {
  Model m = load("lite_more");
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = static_cast<float>((i % 7 - 3) * 0.5);
  const double scale[2] = {1.5, -0.5}, bias[2] = {0.25, 1}, gamma[3] = {1, 2, 0.5}, beta[3] = {0, 0.1, -0.2};
  double ln[2][2][3];
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h) {
      double p[3], mean = 0, var = 0;
      for (int w = 0; w < 3; ++w) {
        double s = std::max(x[(c * 2 + h) * 3 + w] * scale[c] + bias[c], 0.0);
        p[w] = (s + 0.5) * (s + 0.5);
        mean += p[w] / 3;
      }
      for (int w = 0; w < 3; ++w) var += (p[w] - mean) * (p[w] - mean) / 3;
      for (int w = 0; w < 3; ++w) ln[c][h][w] = (p[w] - mean) / std::sqrt(var + 1e-5) * gamma[w] + beta[w];
    }
  std::vector<double> sliced, argmax;
  for (int h = 0; h < 2; ++h)
    for (int w = 1; w < 3; ++w) sliced.push_back(ln[0][h][w]);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h) argmax.push_back(static_cast<double>(std::max_element(ln[c][h], ln[c][h] + 3) - ln[c][h]));
  auto out = run(m, {Value(f32(x, {1, 2, 2, 3}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], sliced, 1e-4, "slice");
  EXPECT_EQ(out[1].tensor.dtype(), DType::Int32);
  expect_values(out[1], argmax, 0, "argmax");
}

TEST_F(MindirOutsideFiles, LiteSamePaddingAndGlobalPooling) {
  Model m = load("lite_same_global");
  std::vector<float> x(36);
  double w[9], c[3][3], mean = 0;
  for (int i = 0; i < 36; ++i) x[i] = static_cast<float>((i % 9 - 4) * 0.25);
  for (int k = 0; k < 9; ++k) w[k] = (k % 4 - 1.5) * 0.5;
  // SAME, stride 2, 6 -> 3: total padding (3 - 1) * 2 + 3 - 6 = 1, all of it after
  for (int h = 0; h < 3; ++h)
    for (int q = 0; q < 3; ++q) {
      double s = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (2 * h + i < 6 && 2 * q + j < 6) s += x[(2 * h + i) * 6 + 2 * q + j] * w[i * 3 + j];
      c[h][q] = std::clamp(s, 0.0, 6.0);
      mean += c[h][q] / 9;
    }
  std::vector<double> mp;  // 3 -> 2 with one padding cell after: windows [0,1] and [2]
  for (int h = 0; h < 2; ++h)
    for (int q = 0; q < 2; ++q) {
      double v = -1e30;
      for (int i = 2 * h; i < std::min(2 * h + 2, 3); ++i)
        for (int j = 2 * q; j < std::min(2 * q + 2, 3); ++j) v = std::max(v, c[i][j]);
      mp.push_back(v);
    }
  auto out = run(m, {Value(f32(x, {1, 1, 6, 6}))});
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], mp, 1e-6, "maxpool SAME");
  expect_values(out[1], {mean}, 1e-6, "global average");
}

}  // namespace
}  // namespace ms
