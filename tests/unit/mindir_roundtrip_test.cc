// MindIR writer and reader: IR -> MindIR -> IR runs to the same outputs, the written file follows
// MindSpore's exporter conventions (checked structurally) and decodes with protoc against the
// project's mind_ir.proto, weights over the threshold are split, unsupported ops are all listed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>

#include "formats/io/tensor_file.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "formats/model_io.h"
#include "mind_ir.pb.h"
#include "passes/basic_passes.h"
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
  Node n = test::make_node(op, std::move(in), std::move(out), out.empty() ? op : out[0] + "_node");
  n.name = n.outputs.empty() ? op : n.outputs[0] + "_node";
  n.attrs = std::move(attrs);
  return n;
}

// A small CNN touching the irregular conversions: Conv (bias, pads, strides), BatchNorm, Relu,
// MaxPool, AveragePool, Concat, Split, Transpose, Reshape, ReduceMean, Gemm, Softmax, Unsqueeze/Squeeze.
Model cnn_model() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "cnn";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 16, 16})};
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
  init["fc_w"] = random_tensor({10, 64}, 8);
  init["fc_b"] = random_tensor({10}, 9);
  init["shape"] = Tensor::from_vector<int64_t>({1, -1}, {2});
  init["split"] = Tensor::from_vector<int64_t>({2, 2}, {2});
  init["axes"] = Tensor::from_vector<int64_t>({0}, {1});
  auto& n = m.graph.nodes;
  n.push_back(node("Conv", {"x", "w1", "b1"}, {"c1"}, {{"pads", Attribute::of_ints({1, 1, 1, 1})}, {"strides", Attribute::of_ints({1, 1})}}));
  n.push_back(node("BatchNormalization", {"c1", "bn_s", "bn_b", "bn_m", "bn_v"}, {"bn"}, {{"epsilon", Attribute::of_float(1e-3f)}}));
  n.push_back(node("Relu", {"bn"}, {"r1"}));
  n.push_back(node("MaxPool", {"r1"}, {"p1"}, {{"kernel_shape", Attribute::of_ints({2, 2})}, {"strides", Attribute::of_ints({2, 2})}}));
  n.push_back(node("Conv", {"p1", "w2"}, {"c2"}, {{"auto_pad", Attribute::of_string("SAME_UPPER")}}));
  n.push_back(node("Split", {"c2", "split"}, {"s0", "s1"}, {{"axis", Attribute::of_int(1)}}));
  n.push_back(node("Concat", {"s1", "s0"}, {"cat"}, {{"axis", Attribute::of_int(1)}}));
  n.push_back(node("AveragePool", {"cat"}, {"p2"}, {{"kernel_shape", Attribute::of_ints({2, 2})}, {"strides", Attribute::of_ints({2, 2})}}));
  n.push_back(node("Transpose", {"p2"}, {"t"}, {{"perm", Attribute::of_ints({0, 1, 3, 2})}}));
  n.push_back(node("Reshape", {"t", "shape"}, {"flat"}));
  n.push_back(node("Gemm", {"flat", "fc_w", "fc_b"}, {"fc"}, {{"transB", Attribute::of_int(1)}}));
  n.push_back(node("Softmax", {"fc"}, {"prob"}, {{"axis", Attribute::of_int(-1)}}));
  n.push_back(node("ReduceMean", {"r1"}, {"gap"}, {{"axes", Attribute::of_ints({2, 3})}, {"keepdims", Attribute::of_int(0)}}));
  n.push_back(node("Unsqueeze", {"gap", "axes"}, {"gap3"}));
  n.push_back(node("Squeeze", {"gap3", "axes"}, {"gap2"}));
  m.graph.outputs = {{"prob", {}}, {"gap2", {}}};
  return m;
}

std::vector<Value> run(const Model& m, const std::vector<Value>& feeds) {
  Session s(std::make_shared<const Model>(m));
  return s.run(feeds);
}

void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.as_double(i), b.as_double(i), tol) << "element " << i;
}

TEST(MindirRoundTrip, CnnRunsToTheSameOutputs) {
  Model a = cnn_model();
  std::string bytes = mindir::export_mindir_bytes(a);
  Model b = mindir::import_mindir_bytes(bytes, "cnn.mindir");
  std::vector<Value> feeds{Value(random_tensor({1, 3, 16, 16}, 42, 1.f))};
  auto ya = run(a, feeds), yb = run(b, feeds);
  ASSERT_EQ(ya.size(), yb.size());
  for (size_t i = 0; i < ya.size(); ++i) expect_close(ya[i].tensor, yb[i].tensor, 1e-6);
  // value names come back
  EXPECT_EQ(b.graph.inputs.at(0).name, "x");
  EXPECT_EQ(b.graph.outputs.at(0).name, "prob");
  EXPECT_EQ(b.graph.outputs.at(1).name, "gap2");
  EXPECT_TRUE(b.graph.initializers.count("w1"));
}

// Structural checks of MindSpore's exporter conventions.
TEST(MindirWriter, FollowsMindSporeExporterConventions) {
  std::string bytes = mindir::export_mindir_bytes(cnn_model());
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  EXPECT_EQ(p.ir_version(), "0.1.1");
  EXPECT_EQ(p.producer_name(), "MindSpore");
  EXPECT_FALSE(p.model_version().empty());
  EXPECT_TRUE(p.has_little_endian());
  EXPECT_EQ(p.mind_ir_version(), 1);
  std::map<std::string, const mind_ir::PrimitiveProto*> prims;
  for (const auto& pr : p.primitives()) prims[pr.name()] = &pr;
  const auto& g = p.graph();
  std::set<std::string> defined;
  for (const auto& in : g.input()) {
    EXPECT_EQ(in.name().rfind(g.name() + ":", 0), 0u) << in.name();
    defined.insert(in.name());
  }
  for (const auto& t : g.parameter()) {
    EXPECT_EQ(t.name(), g.name() + ":" + t.ref_key());
    EXPECT_TRUE(t.has_raw_data());
    defined.insert(t.name());
  }
  std::set<std::string> prim_types;
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) EXPECT_TRUE(defined.count(i)) << n.name() << " uses " << i << " before it is defined";
    defined.insert(n.output(0));
    ASSERT_EQ(n.output_size(), 1);
    if (n.op_type() == "Constant") {
      ASSERT_EQ(n.attribute_size(), 1);
      EXPECT_EQ(n.attribute(0).name(), "value");
      continue;
    }
    ASSERT_EQ(n.op_type().rfind("REF::", 0), 0u) << n.op_type();
    auto it = prims.find(n.op_type().substr(5));
    ASSERT_NE(it, prims.end()) << n.op_type();
    ASSERT_GE(n.attribute_size(), 1);
    EXPECT_EQ(n.attribute(0).name(), "shape");
    const auto& pr = *it->second;
    prim_types.insert(pr.op_type());
    std::map<std::string, const mind_ir::AttributeProto*> at;
    for (const auto& a : pr.attribute()) at[a.name()] = &a;
    if (pr.op_type() == "Conv2D") {
      EXPECT_EQ(at.at("pad_mode")->s(), "pad");
      EXPECT_EQ(at.at("stride")->type(), mind_ir::AttributeProto::TUPLE);
      EXPECT_EQ(at.at("stride")->values_size(), 4);
      EXPECT_EQ(at.at("pad_list")->values_size(), 4);
      EXPECT_EQ(at.at("format")->s(), "NCHW");
      EXPECT_EQ(at.at("out_channel")->type(), mind_ir::AttributeProto::INT64);
    }
    if (pr.op_type() == "MaxPool" || pr.op_type() == "AvgPool") {
      EXPECT_EQ(at.at("pad_mode")->s(), "VALID");
      EXPECT_EQ(at.at("kernel_size")->values_size(), 4);
    }
    if (pr.op_type() == "MatMul") {
      EXPECT_EQ(at.at("transpose_b")->type(), mind_ir::AttributeProto::BOOL);
    }
  }
  for (const char* t : {"Conv2D", "BiasAdd", "BatchNorm", "TupleGetItem", "MaxPool", "AvgPool", "MakeTuple", "Concat",
                        "Split", "Transpose", "Reshape", "MatMul", "Softmax", "ReduceMean", "ExpandDims", "Squeeze"})
    EXPECT_TRUE(prim_types.count(t)) << t;
  ASSERT_EQ(g.output_size(), 1);  // several outputs go through one MakeTuple
  EXPECT_EQ(g.output(0).attr_info().type(), mind_ir::AttributeProto::TUPLE);
}

TEST(MindirWriter, ListsEveryUnsupportedOp) {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 2})};
  m.graph.nodes = {node("MelWeightMatrix", {"x"}, {"d"}), node("Relu", {"x"}, {"r"}), node("StringNormalizer", {"r"}, {"u"})};
  m.graph.outputs = {{"d", {}}, {"u", {}}};
  try {
    mindir::export_mindir_bytes(m);
    FAIL() << "expected an Unsupported error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string msg = e.what();
    EXPECT_NE(msg.find("MelWeightMatrix"), std::string::npos) << msg;
    EXPECT_NE(msg.find("StringNormalizer"), std::string::npos) << msg;
  }
  EXPECT_EQ(mindir::mindir_unsupported_ops(m), (std::set<std::string>{"MelWeightMatrix", "StringNormalizer"}));
}

std::string sh(const std::string& cmd, int* code) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(MindirWriter, DecodesWithProtocAgainstTheSchema) {
  auto dir = test::temp_dir("mindir_protoc");
  std::string file = (dir / "cnn.mindir").string();
  save_model(cnn_model(), file, ModelFormat::MindIR);
  std::string proto_dir = (std::filesystem::path(MS_SOURCE_DIR) / "src/formats/mindir").string();
  int code = 0;
  std::string out = sh("protoc --decode=mind_ir.ModelProto -I " + proto_dir + " " + proto_dir + "/mind_ir.proto < " + file, &code);
  if (code == 127) GTEST_SKIP() << "protoc not installed";
  EXPECT_EQ(code, 0) << out.substr(0, 2000);
  EXPECT_NE(out.find("op_type: \"REF::Conv2D:"), std::string::npos);
  EXPECT_NE(out.find("producer_name: \"MindSpore\""), std::string::npos);
  EXPECT_NE(out.find("mind_ir_version: 1"), std::string::npos);
}

TEST(MindirWriter, SplitsLargeWeightsLikeMindSpore) {
  auto dir = test::temp_dir("mindir_split");
  mindir::WriteOptions o;
  o.split_threshold = 1024;  // force the split form
  Model a = cnn_model();
  std::string written = mindir::save_mindir(a, (dir / "net.mindir").string(), o);
  EXPECT_EQ(std::filesystem::path(written).filename(), "net_graph.mindir");
  auto data = dir / "net_variables" / "data_0";
  ASSERT_TRUE(std::filesystem::exists(data));
  std::ifstream f(data, std::ios::binary);
  std::string blob((std::istreambuf_iterator<char>(f)), {});
  ASSERT_GE(blob.size(), 64u);
  EXPECT_EQ(blob[0], 1);
  EXPECT_EQ(blob.size() % 64, 0u);
  mind_ir::ModelProto p;
  std::ifstream g(written, std::ios::binary);
  ASSERT_TRUE(p.ParseFromIstream(&g));
  for (const auto& t : p.graph().parameter()) {
    EXPECT_FALSE(t.has_raw_data());
    ASSERT_TRUE(t.has_external_data());
    EXPECT_EQ(t.external_data().location(), "net_variables/data_0");
    EXPECT_EQ(t.external_data().offset() % 64, 0);
  }
  Model b = load_model(written);
  std::vector<Value> feeds{Value(random_tensor({1, 3, 16, 16}, 5, 1.f))};
  auto ya = run(a, feeds), yb = run(b, feeds);
  for (size_t i = 0; i < ya.size(); ++i) expect_close(ya[i].tensor, yb[i].tensor, 1e-6);
}

TEST(MindirWriter, Fp16WeightsStillRun) {
  Model a = cnn_model();
  Model h = a;
  EXPECT_GT(passes::weights_to_fp16(h), 0u);
  Model b = mindir::import_mindir_bytes(mindir::export_mindir_bytes(h), "h.mindir");
  bool has_fp16 = false;
  for (const auto& [k, t] : b.graph.initializers) has_fp16 = has_fp16 || t.dtype() == DType::Float16;
  EXPECT_TRUE(has_fp16);
  std::vector<Value> feeds{Value(random_tensor({1, 3, 16, 16}, 5, 1.f))};
  auto ya = run(a, feeds), yb = run(b, feeds);
  for (size_t i = 0; i < ya.size(); ++i) expect_close(ya[i].tensor, yb[i].tensor, 2e-2);
}

TEST(MindirReader, RefusesEncryptedAndGarbage) {
  std::string enc = std::string("\xD8\x5E\x3A\x7F", 4) + std::string(100, 'x');
  try {
    mindir::import_mindir_bytes(enc, "enc.mindir");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("encrypted"), std::string::npos) << e.what();
  }
  EXPECT_THROW(mindir::import_mindir_bytes(std::string("\x0a\xff\xff\xff", 4), "bad.mindir"), Error);
  EXPECT_THROW(mindir::import_mindir_bytes("", "empty.mindir"), Error);
}

TEST(MindirPasses, BasicFoldsConstantsAndRemovesDeadNodes) {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2})};
  m.graph.initializers["a"] = Tensor::from_vector<float>({1, 2}, {2});
  m.graph.initializers["b"] = Tensor::from_vector<float>({3, 4}, {2});
  m.graph.nodes = {node("Add", {"a", "b"}, {"c"}), node("Mul", {"x", "c"}, {"y"}), node("Neg", {"x"}, {"dead"})};
  m.graph.outputs = {{"y", {}}};
  passes::run_basic_pipeline(m);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Mul");
  EXPECT_EQ(m.graph.initializers.count("a"), 0u);
  auto y = run(m, {Value(Tensor::from_vector<float>({1, 1}, {2}))});
  EXPECT_FLOAT_EQ(y[0].tensor.data<float>()[0], 4.f);
  EXPECT_FLOAT_EQ(y[0].tensor.data<float>()[1], 6.f);
}

// The CLI: ms convert (extension appended, summary), ms info / ms run on .mindir, onnx2ms --check.
TEST(MindirCli, ConvertInfoRunAndOnnx2ms) {
  auto dir = test::temp_dir("mindir_cli");
  std::string onnx = (dir / "cnn.onnx").string();
  save_model(cnn_model(), onnx, ModelFormat::Onnx);
  int code = 0;
  std::string out = sh(std::string(MS_BINARY) + " convert --fmk ONNX --modelFile " + onnx + " --outputFile " + (dir / "cnn").string(), &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir / "cnn.mindir")) << out;
  EXPECT_NE(out.find("parameters:"), std::string::npos) << out;
  EXPECT_NE(out.find("time:"), std::string::npos) << out;
  out = sh(std::string(MS_BINARY) + " info --modelFile " + (dir / "cnn.mindir").string(), &code);
  EXPECT_EQ(code, 0) << out;
  io::write_npy((dir / "x.npy").string(), random_tensor({1, 3, 16, 16}, 3, 1.f));
  out = sh(std::string(MS_BINARY) + " run --modelFile " + (dir / "cnn.mindir").string() + " --inDataFile " + (dir / "x.npy").string() +
               " --outputDir " + (dir / "out").string(), &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "output_0.npy"));
  // back to ONNX
  out = sh(std::string(MS_BINARY) + " convert --fmk MINDIR --modelFile " + (dir / "cnn.mindir").string() + " --saveType ONNX --outputFile " +
               (dir / "back").string(), &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir / "back.onnx"));
  // onnx2ms entry point through `ms onnx2ms`
  std::string onnx2ms = std::string(MS_BINARY) + " onnx2ms";
  out = sh(onnx2ms + " --model " + onnx + " --check", &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("Supported ops: "), std::string::npos) << out;
  EXPECT_NE(out.find("Unsupported ops: []"), std::string::npos) << out;
  out = sh(onnx2ms + " --model " + onnx + " --output " + (dir / "o2m").string() + " --input-shape x:[1,3,16,16] --precision float16 --enable-optimize", &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_TRUE(std::filesystem::exists(dir / "o2m.mindir"));
  out = sh(onnx2ms + " --model " + onnx + " --output " + (dir / "bad").string() + " --input-shape nope:[1]", &code);
  EXPECT_EQ(code, 2) << out;
}

}  // namespace
}  // namespace ms
