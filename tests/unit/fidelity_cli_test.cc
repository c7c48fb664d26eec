// Real-world fidelity of the CLI (issue 19): raw .bin data for dynamic-batch models, --inputShape on
// run/benchmark/profile, ms info's Constant-node parameters and doc/metadata, --renameIO, and the
// model summary model_check's text opens with. Each check runs the built `ms` binary.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "test_util.h"

namespace ms {
namespace {

// Exit code and stdout+stderr together.
test::CmdResult run_ms(const std::string& args) { return test::run_command(std::string(MS_BINARY) + " " + args + " 2>&1"); }

// Exit code and stdout only (for --json).
test::CmdResult run_ms_stdout(const std::string& args) {
  return test::run_command(std::string(MS_BINARY) + " " + args + " 2>/dev/null");
}

Tensor random_tensor(Shape s, std::mt19937& rng, float sd) {
  std::normal_distribution<float> d(0.0f, sd);
  Tensor t(DType::Float32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

// A small ResNet-like classifier as PyTorch exports it with dynamic_axes {0: 'batch_size'}:
// input float32[batch_size,3,12,12] -> Conv+BN+Relu -> Conv -> Add (residual) -> Relu -> GAP ->
// Flatten -> Gemm -> output float32[batch_size,10].
Model dynamic_batch_cnn() {
  std::mt19937 rng(11);
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "resnet_like";
  m.graph.inputs = {{"input", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch_size"), Dim::fixed(3),
                                                                                 Dim::fixed(12), Dim::fixed(12)})}};
  m.graph.outputs = {{"output", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::symbol("batch_size"), Dim::fixed(10)})}};
  auto& init = m.graph.initializers;
  init["w1"] = random_tensor({8, 3, 3, 3}, rng, 0.3f);
  init["b1"] = random_tensor({8}, rng, 0.1f);
  init["bn_scale"] = random_tensor({8}, rng, 0.2f);
  for (int i = 0; i < 8; ++i) init["bn_scale"].data<float>()[i] += 1.0f;
  init["bn_bias"] = random_tensor({8}, rng, 0.1f);
  init["bn_mean"] = random_tensor({8}, rng, 0.1f);
  init["bn_var"] = Tensor::from_vector<float>(std::vector<float>(8, 0.8f), {8});
  init["w2"] = random_tensor({8, 8, 3, 3}, rng, 0.2f);
  init["b2"] = random_tensor({8}, rng, 0.1f);
  init["wfc"] = random_tensor({10, 8}, rng, 0.5f);
  init["bfc"] = random_tensor({10}, rng, 0.1f);
  Node c1 = test::make_node("Conv", {"input", "w1", "b1"}, {"c1"}, "conv1");
  c1.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node c2 = test::make_node("Conv", {"r1", "w2", "b2"}, {"c2"}, "conv2");
  c2.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node fc = test::make_node("Gemm", {"flat", "wfc", "bfc"}, {"output"}, "fc");
  fc.attrs["transB"] = Attribute::of_int(1);
  m.graph.nodes = {c1,
                   test::make_node("BatchNormalization", {"c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"n1"}, "bn1"),
                   test::make_node("Relu", {"n1"}, {"r1"}, "relu1"),
                   c2,
                   test::make_node("Add", {"c2", "r1"}, {"sum"}, "add"),
                   test::make_node("Relu", {"sum"}, {"r2"}, "relu2"),
                   test::make_node("GlobalAveragePool", {"r2"}, {"gap"}, "gap"),
                   test::make_node("Flatten", {"gap"}, {"flat"}, "flatten"),
                   fc};
  return m;
}

// x float32[1,3,H,W] (H, W dynamic) -> Conv 3->8, kernel 3, stride 2, no padding -> y.
Model dynamic_hw_conv() {
  std::mt19937 rng(5);
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "hw";
  m.graph.inputs = {{"x", TypeInfo::tensor(DType::Float32, std::vector<Dim>{Dim::fixed(1), Dim::fixed(3), Dim::symbol("h"),
                                                                             Dim::symbol("w")})}};
  m.graph.outputs = {{"y", TypeInfo::tensor_unknown_shape(DType::Float32)}};
  m.graph.initializers["w"] = random_tensor({8, 3, 3, 3}, rng, 0.3f);
  Node c = test::make_node("Conv", {"x", "w"}, {"y"}, "conv");
  c.attrs["strides"] = Attribute::of_ints({2, 2});
  m.graph.nodes = {c};
  return m;
}

// N samples of 3x12x12 float32 back to back, as np.stack(images).tofile() writes them.
std::vector<float> write_samples(const std::string& path, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.5f, 1.5f);
  std::vector<float> v(static_cast<size_t>(n) * 3 * 12 * 12);
  for (auto& x : v) x = d(rng);
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  return v;
}

double cosine(const Tensor& a, const Tensor& b) {
  auto x = a.to_double_vector(), y = b.to_double_vector();
  double xy = 0, xx = 0, yy = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    xy += x[i] * y[i];
    xx += x[i] * x[i];
    yy += y[i] * y[i];
  }
  return xy / std::sqrt(xx * yy);
}

class Fidelity : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("fidelity"); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  std::filesystem::path dir;
};

// Seed 001's pipeline on a dynamic-batch model: convert, model_check, optimize, quant from a .bin of
// N samples (read at batch 1), then the quantized model against the float one.
TEST_F(Fidelity, DynamicBatchPipelineQuantizesFromRawBin) {
  save_model(dynamic_batch_cnn(), path("m.onnx"), ModelFormat::Onnx);
  const int n = 16;
  write_samples(path("calib_data.bin"), n, 1);
  const std::vector<float> all = write_samples(path("eval.bin"), 6, 2);
  auto conv = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --outputFile " + path("m.mindir"));
  ASSERT_EQ(conv.code, 0) << conv.output;
  auto check = run_ms("model_check --checkModel 1 --modelFile " + path("m.mindir"));
  EXPECT_NE(check.output.find("inputs:  input float32[?,3,12,12]"), std::string::npos) << check.output;
  auto opt = run_ms("optimize --modelFile " + path("m.mindir") + " --optimize general --outputFile " + path("m_opt.mindir"));
  ASSERT_EQ(opt.code, 0) << opt.output;
  auto q = run_ms("quant --modelFile " + path("m_opt.mindir") + " --inputFile " + path("calib_data.bin") +
                  " --quantType FULL_QUANT --outputFile " + path("q.mindir"));
  ASSERT_EQ(q.code, 0) << q.output;
  // Said once: which input and which shape.
  const std::string note = "input 'input' is float32[?,3,12,12]: raw .bin data is read as float32[1,3,12,12] (batch 1)";
  auto at = q.output.find(note);
  ASSERT_NE(at, std::string::npos) << q.output;
  EXPECT_EQ(q.output.find(note, at + 1), std::string::npos) << q.output;

  // ms run of the 6-sample file: one batch of 6, float vs int8.
  auto rf = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("eval.bin") + " --outputDir " + path("of"));
  ASSERT_EQ(rf.code, 0) << rf.output;
  auto rq = run_ms("run --modelFile " + path("q.mindir") + " --inDataFile " + path("eval.bin") + " --outputDir " + path("oq"));
  ASSERT_EQ(rq.code, 0) << rq.output;
  Tensor f = io::read_npy(path("of/output_0.npy")), qo = io::read_npy(path("oq/output_0.npy"));
  EXPECT_EQ(f.shape(), (Shape{6, 10}));
  ASSERT_EQ(qo.shape(), (Shape{6, 10}));
  const double cos = cosine(f, qo);
  EXPECT_GT(cos, 0.99) << "int8 vs float cosine " << cos;
  std::cout << "dynamic-batch FULL_QUANT from " << n << " .bin samples: cosine vs float " << cos << "\n";

  // One sample at batch 1 gives the first row of the batch-6 run (the file's first 3x12x12 floats).
  {
    std::ofstream one(path("one.bin"), std::ios::binary);
    one.write(reinterpret_cast<const char*>(all.data()), 3 * 12 * 12 * sizeof(float));
  }
  auto r1 = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("one.bin") + " --outputDir " + path("o1"));
  ASSERT_EQ(r1.code, 0) << r1.output;
  Tensor f1 = io::read_npy(path("o1/output_0.npy"));
  ASSERT_EQ(f1.shape(), (Shape{1, 10}));
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(f1.data<float>()[k], f.data<float>()[k], 1e-4f);

  // compare and evaluation data read the same file as 6 samples.
  auto cmp = run_ms("compare --modelFile " + path("m_opt.mindir") + " --refModel " + path("m.onnx") + " --inDataFile " +
                    path("eval.bin"));
  EXPECT_EQ(cmp.code, 0) << cmp.output;
  auto qe = run_ms("quant --modelFile " + path("m.onnx") + " --inputFile " + path("calib_data.bin") + " --evalFile " +
                   path("eval.bin") + " --quantType FULL_QUANT --outputFile " + path("q2.onnx"));
  EXPECT_EQ(qe.code, 0) << qe.output;
}

// Dynamic dims other than the leading one: raw .bin needs --inputShape, and the error names it.
TEST_F(Fidelity, RawBinWithOtherDynamicDimsNamesInputShape) {
  save_model(dynamic_hw_conv(), path("m.onnx"), ModelFormat::Onnx);
  std::vector<float> x(3 * 11 * 15, 0.5f);
  std::ofstream(path("x.bin"), std::ios::binary).write(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  auto bad = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("x.bin") + " --outputDir " + path("o"));
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--inputShape \"x:1,3,1,1\""), std::string::npos) << bad.output;
  auto q = run_ms("quant --modelFile " + path("m.onnx") + " --inputFile " + path("x.bin") +
                  " --quantType FULL_QUANT --outputFile " + path("q.onnx"));
  EXPECT_EQ(q.code, 2) << q.output;
  EXPECT_NE(q.output.find("--inputShape"), std::string::npos) << q.output;
  auto ok = run_ms("run --modelFile " + path("m.onnx") + " --inputShape x:1,3,11,15 --inDataFile " + path("x.bin") +
                   " --outputDir " + path("o"));
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_EQ(io::read_npy(path("o/output_0.npy")).shape(), (Shape{1, 8, 5, 7}));
}

// --inputShape on run, benchmark and profile: output shape floor((H - 3) / 2) + 1.
TEST_F(Fidelity, RunBenchmarkProfileTakeInputShape) {
  save_model(dynamic_hw_conv(), path("m.onnx"), ModelFormat::Onnx);
  for (auto [h, w] : {std::pair{11, 15}, std::pair{20, 9}}) {
    const std::string shape = fmt::format(" --inputShape \"x:1,3,{},{}\"", h, w);
    auto r = run_ms("run --modelFile " + path("m.onnx") + shape + " --outputDir " + path("o"));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(io::read_npy(path("o/output_0.npy")).shape(), (Shape{1, 8, (h - 3) / 2 + 1, (w - 3) / 2 + 1}));
  }
  auto b = run_ms("benchmark --modelFile " + path("m.onnx") + " --inputShape x:1,3,16,16 --loopCount 2 --warmUpLoopCount 0");
  EXPECT_EQ(b.code, 0) << b.output;
  auto p = run_ms("profile --modelFile " + path("m.onnx") + " --inputShape x:1,3,16,16 --loopCount 2 --warmUpLoopCount 0");
  EXPECT_EQ(p.code, 0) << p.output;
  // Without it, random inputs cannot be made, and the message says what to give.
  auto none = run_ms("profile --modelFile " + path("m.onnx") + " --loopCount 1");
  EXPECT_EQ(none.code, 2) << none.output;
  EXPECT_NE(none.output.find("--inputShape"), std::string::npos) << none.output;
  auto unknown = run_ms("run --modelFile " + path("m.onnx") + " --inputShape y:1,3,16,16 --outputDir " + path("o"));
  EXPECT_EQ(unknown.code, 2) << unknown.output;
}

// PaddleOCR-style weights in Constant nodes count as parameters; doc_string and metadata_props
// are shown, and survive conversion to MindIR (doc_string, user_info).
TEST_F(Fidelity, InfoCountsConstantNodesAndShowsDocAndMetadata) {
  std::mt19937 rng(3);
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "paddle_like";
  m.doc = "preprocess: RGB, resize 224, mean [0.485,0.456,0.406], std [0.229,0.224,0.225]";
  m.metadata["preprocessing"] = "NCHW float32, /255";
  m.metadata["author"] = "seed003";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4})};
  const Tensor w = random_tensor({4, 3, 3, 3}, rng, 0.3f), b = random_tensor({4}, rng, 0.1f);
  Node cw = test::make_node("Constant", {}, {"w"}, "const_w");
  cw.attrs["value"] = Attribute::of_tensor(w);
  Node cb = test::make_node("Constant", {}, {"b"}, "const_b");
  cb.attrs["value"] = Attribute::of_tensor(b);
  Node cs = test::make_node("Constant", {}, {"shape"}, "const_shape");
  cs.attrs["value_ints"] = Attribute::of_ints({1, 4});
  Node conv = test::make_node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  m.graph.nodes = {cw, cb, cs, conv, test::make_node("GlobalAveragePool", {"c"}, {"g"}, "gap"),
                   test::make_node("Reshape", {"g", "shape"}, {"y"}, "reshape")};
  save_model(m, path("m.onnx"), ModelFormat::Onnx);
  const int64_t expected = w.numel() + b.numel() + 2;  // 108 + 4 + 2

  auto r = run_ms_stdout("info --json --modelFile " + path("m.onnx"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["parameters"].get<int64_t>(), expected);
  EXPECT_EQ(j["constant_nodes"].get<int64_t>(), 3);
  EXPECT_EQ(j["doc_string"].get<std::string>(), m.doc);
  EXPECT_EQ(j["metadata"]["preprocessing"].get<std::string>(), "NCHW float32, /255");
  auto text = run_ms("info --modelFile " + path("m.onnx"));
  EXPECT_NE(text.output.find(fmt::format("parameters: {} ", expected)), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("mean [0.485,0.456,0.406]"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("author: seed003"), std::string::npos) << text.output;

  // Through MindIR (doc_string, user_info) and back to ONNX (doc_string, metadata_props).
  ASSERT_EQ(run_ms("convert --fmk ONNX --optimize none --modelFile " + path("m.onnx") + " --outputFile " + path("m.mindir")).code, 0);
  ASSERT_EQ(run_ms("convert --fmk MINDIR --optimize none --modelFile " + path("m.mindir") + " --saveType ONNX --outputFile " +
                   path("back.onnx")).code,
            0);
  for (const char* f : {"m.mindir", "back.onnx"}) {
    auto c = run_ms_stdout(std::string("info --json --modelFile ") + path(f));
    ASSERT_EQ(c.code, 0) << f;
    auto jc = nlohmann::json::parse(c.output);
    EXPECT_EQ(jc["doc_string"].get<std::string>(), m.doc) << f;
    EXPECT_EQ(jc["metadata"]["preprocessing"].get<std::string>(), "NCHW float32, /255") << f;
    EXPECT_EQ(jc["metadata"]["author"].get<std::string>(), "seed003") << f;
  }
}

// x -> Relu -> Add(b) -> y, with TensorFlow-style and dotted names.
Model badly_named() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "names";
  m.graph.inputs = {test::tensor_info("input:0", DType::Float32, {2, 3})};
  m.graph.outputs = {test::tensor_info("out.1", DType::Float32, {2, 3}), test::tensor_info("aux", DType::Float32, {2, 3})};
  m.graph.initializers["b"] = Tensor::from_vector<float>({-1, 0.5f, 2}, {3});
  m.graph.nodes = {test::make_node("Relu", {"input:0"}, {"aux"}, "relu"),
                   test::make_node("Add", {"aux", "b"}, {"out.1"}, "add")};
  return m;
}

TEST_F(Fidelity, RenameIOKeepsOutputsUnderNewNames) {
  save_model(badly_named(), path("m.onnx"), ModelFormat::Onnx);
  io::write_npy(path("x.npy"), Tensor::from_vector<float>({-2, -0.5f, 0, 1, 2, 3}, {2, 3}));
  auto check = run_ms("model_check --checkModel 1 --modelFile " + path("m.onnx"));
  EXPECT_NE(check.output.find("--renameIO \"input:0=input_0\""), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("--renameIO \"out.1=out_1\""), std::string::npos) << check.output;

  for (std::string fmt_ : {"mindir", "onnx"}) {
    auto c = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --renameIO \"input:0=input,out.1=prob\" --outputFile " +
                    path("r." + fmt_) + (fmt_ == "onnx" ? " --saveType ONNX" : ""));
    ASSERT_EQ(c.code, 0) << c.output;
    auto info = run_ms_stdout("info --json --modelFile " + path("r." + fmt_));
    ASSERT_EQ(info.code, 0);
    auto j = nlohmann::json::parse(info.output);
    EXPECT_EQ(j["inputs"][0]["name"], "input") << fmt_;
    EXPECT_EQ(j["outputs"][0]["name"], "prob") << fmt_;
    EXPECT_EQ(j["outputs"][1]["name"], "aux") << fmt_;
    auto a = run_ms("run --modelFile " + path("m.onnx") + " --inDataFile " + path("x.npy") + " --outputDir " + path("oa"));
    auto b = run_ms("run --modelFile " + path("r." + fmt_) + " --inDataFile " + path("x.npy") + " --outputDir " + path("ob"));
    ASSERT_EQ(b.code, 0) << b.output;
    EXPECT_NE(b.output.find("'prob'"), std::string::npos) << b.output;
    for (const char* o : {"output_0.npy", "output_1.npy"}) {
      Tensor ta = io::read_npy(path(std::string("oa/") + o)), tb = io::read_npy(path(std::string("ob/") + o));
      ASSERT_EQ(ta.shape(), tb.shape());
      EXPECT_EQ(ta.to_double_vector(), tb.to_double_vector()) << o;
    }
  }
  auto o = run_ms("optimize --modelFile " + path("m.onnx") + " --renameIO input:0=data --outputFile " + path("o.onnx"));
  ASSERT_EQ(o.code, 0) << o.output;
  auto jo = nlohmann::json::parse(run_ms_stdout("info --json --modelFile " + path("o.onnx")).output);
  EXPECT_EQ(jo["inputs"][0]["name"], "data");

  // Unknown names, clashes and invalid names: exit 2 naming them, nothing written.
  auto unknown = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --renameIO nope=x --outputFile " + path("u.onnx"));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.output.find("'nope'"), std::string::npos) << unknown.output;
  auto clash = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --renameIO out.1=aux --outputFile " + path("u.onnx"));
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.output.find("'aux'"), std::string::npos) << clash.output;
  auto twice = run_ms("optimize --modelFile " + path("m.onnx") + " --renameIO input:0=z,out.1=z --outputFile " + path("u.onnx"));
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.output.find("'z'"), std::string::npos) << twice.output;
  auto invalid = run_ms("convert --fmk ONNX --modelFile " + path("m.onnx") + " --renameIO input:0=in:put --outputFile " + path("u.onnx"));
  EXPECT_EQ(invalid.code, 2);
  EXPECT_NE(invalid.output.find("'in:put'"), std::string::npos) << invalid.output;
  EXPECT_FALSE(std::filesystem::exists(path("u.onnx")));
}

TEST_F(Fidelity, ModelCheckTextOpensWithTheModelSummary) {
  save_model(dynamic_batch_cnn(), path("m.onnx"), ModelFormat::Onnx);
  auto r = run_ms("model_check --checkModel 1 --modelFile " + path("m.onnx"));
  const std::string expected = "  model:   " + path("m.onnx") +
                               "\n  inputs:  input float32[batch_size,3,12,12]\n  outputs: output float32[batch_size,10]\n"
                               "  ops:     9 nodes, 7 op types\n";
  auto at = r.output.find(expected);
  ASSERT_NE(at, std::string::npos) << r.output;
  // Before any finding.
  EXPECT_LT(at, r.output.find("MC-")) << r.output;
}

}  // namespace
}  // namespace ms
