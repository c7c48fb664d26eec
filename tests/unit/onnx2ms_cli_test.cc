// onnx2ms through the built binary: every flag has the effect the users' document gives it, each
// checked against an expectation computed here (models built in the test, outputs run in-process):
// --device (op-support target, recorded in the model), --enable-optimize (Conv+BN fused, same
// outputs), --precision float16/int8 (+ --calib-data, --per-channel), --dump-graph (dot, one box
// per node), --check-model (exit 1 on a structural error, nothing written), --log-level, and the
// refused .ms output (exit 3, nothing written; also `ms convert`).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

Tensor random_tensor(const Shape& s, uint32_t seed, float scale = 0.5f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  Tensor t(DType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(g);
  return t;
}

Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, Attribute> attrs = {}) {
  Node n = test::make_node(op, std::move(in), std::move(out));
  n.name = n.outputs[0] + "_node";
  n.attrs = std::move(attrs);
  return n;
}

// x[batch,3,16,16] -> Conv(8) -> BatchNormalization -> Relu -> Conv(4, 1x1) -> y. `batch` 0: symbolic "N".
Model conv_bn_relu(int64_t batch = 1) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "cbr";
  Shape in = {batch, 3, 16, 16};
  m.graph.inputs = {test::tensor_info("x", DType::Float32, in)};
  if (batch == 0) (*m.graph.inputs[0].type.shape)[0] = Dim::symbol("N");
  auto& init = m.graph.initializers;
  init["w1"] = random_tensor({8, 3, 3, 3}, 1);
  init["b1"] = random_tensor({8}, 2);
  init["bn_s"] = random_tensor({8}, 3, 1.f);
  init["bn_b"] = random_tensor({8}, 4);
  init["bn_m"] = random_tensor({8}, 5);
  Tensor var = random_tensor({8}, 6);
  for (int i = 0; i < 8; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]) + 0.5f;
  init["bn_v"] = var;
  init["w2"] = random_tensor({4, 8, 1, 1}, 7);
  init["b2"] = random_tensor({4}, 8);
  auto& n = m.graph.nodes;
  n.push_back(node("Conv", {"x", "w1", "b1"}, {"c1"}, {{"pads", Attribute::of_ints({1, 1, 1, 1})}}));
  n.push_back(node("BatchNormalization", {"c1", "bn_s", "bn_b", "bn_m", "bn_v"}, {"bn"}, {{"epsilon", Attribute::of_float(1e-3f)}}));
  n.push_back(node("Relu", {"bn"}, {"r1"}));
  n.push_back(node("Conv", {"r1", "w2", "b2"}, {"y"}));
  m.graph.outputs = {{"y", {}}};
  return m;
}

// x[2,6] -> ReduceLogSumExp(axis 1) -> y[2]: an op with a GPU kernel and no Ascend kernel
// (check/targets.cc), static shapes, nothing else for model_check to object to.
Model lse_model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "lse";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 6})};
  m.graph.nodes = {node("ReduceLogSumExp", {"x"}, {"y"}, {{"axes", Attribute::of_ints({1})}, {"keepdims", Attribute::of_int(0)}})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {2})};
  return m;
}

std::vector<std::string> op_types(const Model& m) {
  std::vector<std::string> r;
  for (const auto& n : m.graph.nodes) r.push_back(n.op_type);
  return r;
}

bool has_op(const Model& m, const std::string& op) {
  auto t = op_types(m);
  return std::find(t.begin(), t.end(), op) != t.end();
}

Tensor run1(const Model& m, const Tensor& x) {
  Session s(std::make_shared<const Model>(m));
  return s.run(std::vector<Value>{Value(x)}).at(0).tensor;
}

double cosine(const Tensor& a, const Tensor& b) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < a.numel(); ++i) ab += a.as_double(i) * b.as_double(i), aa += a.as_double(i) * a.as_double(i), bb += b.as_double(i) * b.as_double(i);
  return ab / std::sqrt(aa * bb);
}

class Onnx2msCli : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("onnx2ms_cli"); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write_onnx(const std::string& name, const Model& m) {
    save_model(m, path(name), ModelFormat::Onnx);
    return path(name);
  }
  test::CmdResult onnx2ms(const std::string& args) {
    return test::run_command(std::string(MS_BINARY) + " onnx2ms " + args + " 2>&1");
  }
  std::filesystem::path dir;
};

TEST_F(Onnx2msCli, DeviceSelectsTheOpSupportTargetAndIsRecorded) {
  auto nz = write_onnx("lse.onnx", lse_model());
  // --check: Ascend has no ReduceLogSumExp kernel, GPU and CPU have one (any case is accepted).
  auto a = onnx2ms("--model " + nz + " --check --device Ascend");
  EXPECT_EQ(a.code, 1) << a.output;
  EXPECT_NE(a.output.find("Unsupported ops: [ReduceLogSumExp]"), std::string::npos) << a.output;
  auto g = onnx2ms("--model " + nz + " --check --device gpu");
  EXPECT_EQ(g.code, 0) << g.output;
  EXPECT_NE(g.output.find("Supported ops: 1/1, Unsupported ops: []"), std::string::npos) << g.output;
  // --check-model: the same verdict on a real conversion; nothing written for Ascend.
  auto ca = onnx2ms("--model " + nz + " --output " + path("nz_ascend.mindir") + " --check-model --device ASCEND");
  EXPECT_EQ(ca.code, 1) << ca.output;
  EXPECT_NE(ca.output.find("MC-TARGET-001"), std::string::npos) << ca.output;
  EXPECT_FALSE(std::filesystem::exists(path("nz_ascend.mindir")));
  auto cg = onnx2ms("--model " + nz + " --output " + path("nz_gpu.mindir") + " --check-model --device GPU");
  EXPECT_EQ(cg.code, 0) << cg.output;
  EXPECT_TRUE(std::filesystem::exists(path("nz_gpu.mindir")));
  EXPECT_NE(onnx2ms("--model " + nz + " --check --device NPU").code, 0);

  // The device is recorded in the model: read back here and by `ms info`.
  auto cbr = write_onnx("cbr.onnx", conv_bn_relu());
  for (std::string dev : {"Ascend", "GPU", "CPU"}) {
    std::string out = path("cbr_" + dev + ".mindir");
    auto r = onnx2ms("--model " + cbr + " --output " + out + " --device " + dev);
    ASSERT_EQ(r.code, 0) << r.output;
    Model back = load_model(out, ModelFormat::MindIR);
    EXPECT_EQ(back.metadata["ms.device"], dev);
    auto info = test::run_command(std::string(MS_BINARY) + " info --json --modelFile " + out + " 2>/dev/null");
    ASSERT_EQ(info.code, 0) << info.output;
    auto j = nlohmann::json::parse(info.output);
    EXPECT_EQ(j["metadata"]["ms.device"], dev) << info.output;
  }
}

TEST_F(Onnx2msCli, EnableOptimizeFusesBatchNormAndKeepsTheOutputs) {
  Model m = conv_bn_relu();
  auto in = write_onnx("cbr.onnx", m);
  auto plain = onnx2ms("--model " + in + " --output " + path("plain.mindir"));
  ASSERT_EQ(plain.code, 0) << plain.output;
  EXPECT_TRUE(has_op(load_model(path("plain.mindir"), ModelFormat::MindIR), "BatchNormalization"));
  auto opt = onnx2ms("--model " + in + " --output " + path("opt.mindir") + " --enable-optimize --device CPU");
  ASSERT_EQ(opt.code, 0) << opt.output;
  Model o = load_model(path("opt.mindir"), ModelFormat::MindIR);
  EXPECT_FALSE(has_op(o, "BatchNormalization")) << opt.output;
  EXPECT_TRUE(has_op(o, "Conv"));
  EXPECT_LT(o.graph.nodes.size(), m.graph.nodes.size());
  EXPECT_EQ(o.metadata["ms.optimize"], "cpu");
  Tensor x = random_tensor({1, 3, 16, 16}, 11, 1.f);
  Tensor want = run1(m, x), got = run1(o, x);
  ASSERT_EQ(want.shape(), got.shape());
  for (int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.as_double(i), want.as_double(i), 1e-4 * (1 + std::fabs(want.as_double(i))));
}

TEST_F(Onnx2msCli, PrecisionFloat16StoresHalfWeights) {
  auto in = write_onnx("cbr.onnx", conv_bn_relu());
  ASSERT_EQ(onnx2ms("--model " + in + " --output " + path("f32.mindir")).code, 0);
  auto r = onnx2ms("--model " + in + " --output " + path("f16.mindir") + " --precision FLOAT16");
  ASSERT_EQ(r.code, 0) << r.output;
  Model f32 = load_model(path("f32.mindir"), ModelFormat::MindIR), f16 = load_model(path("f16.mindir"), ModelFormat::MindIR);
  auto weight_dtype = [](const Model& m) {
    for (const auto& [k, t] : m.graph.initializers)
      if (t.numel() == 8 * 3 * 3 * 3) return t.dtype();
    return DType::Undefined;
  };
  EXPECT_EQ(weight_dtype(f32), DType::Float32);
  EXPECT_EQ(weight_dtype(f16), DType::Float16);
  EXPECT_EQ(f16.metadata["ms.precision"], "float16");
}

TEST_F(Onnx2msCli, PrecisionInt8QuantizesWithCalibrationData) {
  Model m = conv_bn_relu();
  auto in = write_onnx("cbr.onnx", m);
  // 8 calibration samples, [8, 1, 3, 16, 16] (leading sample axis).
  Tensor calib = random_tensor({8, 1, 3, 16, 16}, 21, 1.f);
  io::write_npy(path("calib.npy"), calib);
  auto no_data = onnx2ms("--model " + in + " --output " + path("q.mindir") + " --precision int8");
  EXPECT_EQ(no_data.code, 2) << no_data.output;
  EXPECT_NE(no_data.output.find("--calib-data"), std::string::npos) << no_data.output;
  EXPECT_FALSE(std::filesystem::exists(path("q.mindir")));

  auto count_int8 = [](const Model& q, int64_t& scales_of_w1) {
    int n = 0;
    scales_of_w1 = -1;
    for (const auto& [k, t] : q.graph.initializers)
      if (t.dtype() == DType::Int8 || t.dtype() == DType::UInt8) ++n;
    for (const auto& node : q.graph.nodes)
      if (node.op_type == "DequantizeLinear" && q.graph.initializers.count(node.inputs[0]) &&
          q.graph.initializers.at(node.inputs[0]).numel() == 8 * 3 * 3 * 3 && q.graph.initializers.count(node.inputs[1]))
        scales_of_w1 = q.graph.initializers.at(node.inputs[1]).numel();
    return n;
  };
  Tensor x(DType::Float32, {1, 3, 16, 16});
  std::copy(calib.data<float>(), calib.data<float>() + x.numel(), x.data<float>());
  const Tensor want = run1(m, x);
  for (bool per_channel : {false, true}) {
    std::string out = path(per_channel ? "q_pc.mindir" : "q_pl.mindir");
    auto r = onnx2ms("--model " + in + " --output " + out + " --precision int8 --calib-data " + path("calib.npy") +
                     (per_channel ? " --per-channel" : ""));
    ASSERT_EQ(r.code, 0) << r.output;
    Model q = load_model(out, ModelFormat::MindIR);
    int64_t scales = 0;
    EXPECT_GE(count_int8(q, scales), 2) << r.output;  // both convolutions' weights
    EXPECT_EQ(scales, per_channel ? 8 : 1) << r.output;
    EXPECT_EQ(q.metadata["ms.quant_granularity"], per_channel ? "per-channel" : "per-layer");
    Tensor got = run1(q, x);
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_GT(cosine(got, want), 0.99) << r.output;
  }
  // --per-channel and --calib-data belong to int8.
  EXPECT_EQ(onnx2ms("--model " + in + " --output " + path("pc.mindir") + " --per-channel").code, 2);
  EXPECT_EQ(onnx2ms("--model " + in + " --output " + path("cd.mindir") + " --calib-data " + path("calib.npy")).code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("pc.mindir")));
}

TEST_F(Onnx2msCli, DumpGraphWritesDotWithOneBoxPerNode) {
  auto in = write_onnx("cbr.onnx", conv_bn_relu());
  auto r = onnx2ms("--model " + in + " --output " + path("g.mindir") + " --dump-graph");
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(path("g.dot"))) << r.output;
  std::ifstream f(path("g.dot"));
  std::string dot((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Model g = load_model(path("g.mindir"), ModelFormat::MindIR);
  std::regex box("\\n  n[0-9]+ \\[shape=box");
  auto boxes = std::distance(std::sregex_iterator(dot.begin(), dot.end(), box), std::sregex_iterator());
  EXPECT_EQ(size_t(boxes), g.graph.nodes.size()) << dot;
  EXPECT_EQ(dot.rfind("digraph ", 0), 0u) << dot;
  EXPECT_NE(dot.find("-> out0"), std::string::npos) << dot;
  for (const auto& n : g.graph.nodes) EXPECT_NE(dot.find("\"" + n.op_type), std::string::npos) << n.op_type;
  if (test::run_command("command -v dot").code == 0) {
    auto svg = test::run_command("dot -Tsvg " + path("g.dot") + " -o " + path("g.svg") + " 2>&1");
    EXPECT_EQ(svg.code, 0) << svg.output;
  }
}

TEST_F(Onnx2msCli, CheckModelRefusesAStructuralError) {
  Model m = conv_bn_relu();
  m.graph.nodes.push_back(node("Neg", {"r1"}, {"unused"}));  // a dead node: an error of model_check
  auto in = write_onnx("dead.onnx", m);
  auto r = onnx2ms("--model " + in + " --output " + path("dead.mindir") + " --check-model");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("FAILED"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("dead.mindir")));
  auto ok = onnx2ms("--model " + write_onnx("ok.onnx", conv_bn_relu()) + " --output " + path("ok.mindir") + " --check-model");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("PASSED"), std::string::npos) << ok.output;
  // Without --check-model the same model converts (the basic flow does not check).
  EXPECT_EQ(onnx2ms("--model " + in + " --output " + path("dead2.mindir")).code, 0);
}

TEST_F(Onnx2msCli, LogLevelChangesWhatIsPrinted) {
  auto in = write_onnx("dyn.onnx", conv_bn_relu(0));  // symbolic batch: a warning
  std::map<std::string, std::string> out;
  for (std::string l : {"DEBUG", "INFO", "WARNING", "ERROR"}) {
    auto r = onnx2ms("--model " + in + " --output " + path("d_" + l + ".mindir") + " --enable-optimize --log-level " + l);
    ASSERT_EQ(r.code, 0) << r.output;
    out[l] = r.output;
  }
  EXPECT_NE(out["DEBUG"].find("DEBUG: pass "), std::string::npos) << out["DEBUG"];
  EXPECT_EQ(out["INFO"].find("DEBUG:"), std::string::npos) << out["INFO"];
  EXPECT_NE(out["INFO"].find("graph optimization completed"), std::string::npos) << out["INFO"];
  EXPECT_NE(out["INFO"].find("converted "), std::string::npos) << out["INFO"];
  EXPECT_NE(out["WARNING"].find("WARNING: input 'x'"), std::string::npos) << out["WARNING"];
  EXPECT_EQ(out["WARNING"].find("INFO:"), std::string::npos) << out["WARNING"];
  EXPECT_EQ(out["WARNING"].find("converted "), std::string::npos) << out["WARNING"];
  EXPECT_EQ(out["ERROR"], "") << out["ERROR"];
  EXPECT_EQ(onnx2ms("--model " + in + " --output " + path("x.mindir") + " --log-level LOUD").code, 2);
}

TEST_F(Onnx2msCli, MsOutputIsRefusedBeforeAnythingIsWritten) {
  auto in = write_onnx("cbr.onnx", conv_bn_relu());
  auto r = onnx2ms("--model " + in + " --output " + path("model.ms") +
                   " --input-shape x:[1,3,16,16] --output-name y --device Ascend --precision float32 --enable-optimize "
                   "--check-model --log-level INFO");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find(".ms FlatBuffers output is not written yet; use .mindir"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("model.ms")));
  // §3.2's --check with --output model.ms writes nothing, so it runs.
  auto chk = onnx2ms("--model " + in + " --output " + path("model.ms") + " --check");
  EXPECT_EQ(chk.code, 0) << chk.output;
  EXPECT_NE(chk.output.find("Supported ops: 3/3"), std::string::npos) << chk.output;
  EXPECT_FALSE(std::filesystem::exists(path("model.ms")));
  // The seed's command with a .mindir output does everything it asks.
  auto ok = onnx2ms("--model " + in + " --output " + path("model.mindir") +
                    " --input-shape x:[1,3,16,16] --output-name y --device Ascend --precision float32 --enable-optimize "
                    "--check-model --log-level INFO");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_TRUE(std::filesystem::exists(path("model.mindir")));
  // ms convert: the same rule for an .ms --outputFile and --saveType MINDIR_LITE.
  std::string convert = std::string(MS_BINARY) + " convert --fmk ONNX --modelFile " + in;
  auto c1 = test::run_command(convert + " --outputFile " + path("c.ms") + " 2>&1");
  EXPECT_EQ(c1.code, 3) << c1.output;
  EXPECT_FALSE(std::filesystem::exists(path("c.ms")));
  auto c2 = test::run_command(convert + " --outputFile " + path("c2") + " --saveType MINDIR_LITE 2>&1");
  EXPECT_EQ(c2.code, 3) << c2.output;
  EXPECT_FALSE(std::filesystem::exists(path("c2")));
  EXPECT_FALSE(std::filesystem::exists(path("c2.mindir")));
  EXPECT_FALSE(std::filesystem::exists(path("c2.ms")));
}

}  // namespace
}  // namespace ms
