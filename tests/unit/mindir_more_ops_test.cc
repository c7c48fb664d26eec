// MaxUnpool, Unique, DFT / STFT and the project's fused ops written to MindIR: the primitives and
// attributes MindSpore (Lite) uses for them, and the round trip computing what the ONNX op (or the
// fused op's reference kernel) computes. Expected values are worked out here independently: index
// placement by hand, the ONNX Unique documentation's examples, DFT sums in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numeric>

#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_value.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "ops/ms_domain.h"
#include "passes/pipelines.h"
#include "passes_test_util.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

struct Written {
  std::map<std::string, std::map<std::string, mind_ir::AttributeProto>> prims;  // op_type -> attributes (last instance)
  std::multiset<std::string> node_prims;                                       // op_type of each node
};

Written inspect(const std::string& bytes) {
  mind_ir::ModelProto p;
  EXPECT_TRUE(p.ParseFromString(bytes));
  Written w;
  std::map<std::string, std::string> type_of;
  for (const auto& pr : p.primitives()) {
    type_of[pr.name()] = pr.op_type();
    auto& attrs = w.prims[pr.op_type()];
    for (const auto& a : pr.attribute()) attrs[a.name()] = a;
  }
  for (const auto& n : p.graph().node())
    if (n.op_type().rfind("REF::", 0) == 0 && type_of.count(n.op_type().substr(5))) w.node_prims.insert(type_of[n.op_type().substr(5)]);
  return w;
}

std::vector<int64_t> ints_of(const mind_ir::AttributeProto& a) { return mindir::decode_value(a, a.name()).as_ints(); }

std::vector<Value> run(const Model& m, const std::vector<Value>& feeds, bool reference = false) {
  SessionOptions o;
  o.reference_kernels = reference;
  Session s(std::make_shared<const Model>(m), o);
  return s.run(feeds);
}

Model round_trip(const Model& m, Written* w = nullptr) {
  std::string bytes = mindir::export_mindir_bytes(m);
  if (w) *w = inspect(bytes);
  return mindir::import_mindir_bytes(bytes, "t.mindir");
}

Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out, std::map<std::string, Attribute> attrs = {},
          const std::string& domain = "") {
  Node n = test::make_node(op, std::move(in), std::move(out), op + "_node");
  n.attrs = std::move(attrs);
  n.domain = domain;
  return n;
}

Model single(Node n, std::vector<ValueInfo> inputs, std::vector<ValueInfo> outputs) {
  Model m;
  m.opsets[""] = 17;
  if (!n.domain.empty()) m.opsets[n.domain] = kMsDomainVersion;
  m.graph.name = "g";
  m.graph.inputs = std::move(inputs);
  m.graph.outputs = std::move(outputs);
  m.graph.nodes.push_back(std::move(n));
  return m;
}

ValueInfo out_info(const std::string& name, DType dt = DType::Float32) {
  ValueInfo v;
  v.name = name;
  v.type = TypeInfo::tensor_unknown_shape(dt);
  return v;
}

template <typename T>
std::vector<T> values(const Value& v) {
  const Tensor& t = v.tensor;
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

// ---------------------------------------------------------------------------------------------
// MaxUnpool

TEST(MindirMoreOps, MaxUnpoolBecomesMaxUnpool2DWithPlaneIndicesAndAnExplicitOutputShape) {
  // 2 channels, pooled 2x2 by a 2x2 kernel with stride 2 (default output 4x4), unpooled into 5x5.
  Model m = single(node("MaxUnpool", {"x", "i", "shape"}, {"y"}, {{"kernel_shape", Attribute::of_ints({2, 2})}, {"strides", Attribute::of_ints({2, 2})}}),
                   {test::tensor_info("x", DType::Float32, {1, 2, 2, 2}), test::tensor_info("i", DType::Int64, {1, 2, 2, 2})},
                   {out_info("y")});
  m.graph.initializers["shape"] = Tensor::from_vector<int64_t>({1, 2, 5, 5}, {4});
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("MaxUnpool2D"));
  auto& a = w.prims["MaxUnpool2D"];
  EXPECT_EQ(ints_of(a["ksize"]), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(ints_of(a["strides"]), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(ints_of(a["pads"]), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(ints_of(a["output_shape"]), (std::vector<int64_t>{1, 2, 5, 5}));
  EXPECT_EQ(a["data_format"].s(), "NCHW");
  EXPECT_TRUE(w.node_prims.count("FloorMod"));  // ONNX's flat indices made plane-local

  // ONNX indices are flat over the default [1, 2, 4, 4] output; each element keeps its (h, w).
  std::vector<int64_t> idx{5, 2, 8, 15, 16 + 0, 16 + 7, 16 + 9, 16 + 14};
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> want(2 * 25, 0.f);
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t c = idx[k] / 16, h = idx[k] % 16 / 4, wd = idx[k] % 4;
    want[c * 25 + h * 5 + wd] = x[k];
  }
  auto y = run(back, {Value(Tensor::from_vector<float>(x, {1, 2, 2, 2})), Value(Tensor::from_vector<int64_t>(idx, {1, 2, 2, 2}))});
  EXPECT_EQ(y[0].tensor.shape(), (Shape{1, 2, 5, 5}));
  EXPECT_EQ(values<float>(y[0]), want);
}

TEST(MindirMoreOps, MaxUnpool3DKeepsEachValueAtItsIndex) {
  // [1, 1, 1, 2, 2] pooled by 2x2x2 with stride 2: default output [1, 1, 2, 4, 4].
  Model m = single(node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", Attribute::of_ints({2, 2, 2})}, {"strides", Attribute::of_ints({2, 2, 2})}}),
                   {test::tensor_info("x", DType::Float32, {1, 1, 1, 2, 2}), test::tensor_info("i", DType::Int64, {1, 1, 1, 2, 2})},
                   {out_info("y")});
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("MaxUnpool3D"));
  EXPECT_EQ(ints_of(w.prims["MaxUnpool3D"]["ksize"]), (std::vector<int64_t>{1, 1, 2, 2, 2}));
  std::vector<int64_t> idx{0, 19, 10, 31};
  auto y = run(back, {Value(Tensor::from_vector<float>({1, 2, 3, 4}, {1, 1, 1, 2, 2})), Value(Tensor::from_vector<int64_t>(idx, {1, 1, 1, 2, 2}))});
  std::vector<float> want(32, 0.f);
  for (size_t k = 0; k < idx.size(); ++k) want[idx[k]] = static_cast<float>(k + 1);
  EXPECT_EQ(y[0].tensor.shape(), (Shape{1, 1, 2, 4, 4}));
  EXPECT_EQ(values<float>(y[0]), want);
}

TEST(MindirMoreOps, MaxUnpoolWithAsymmetricPadsIsRefusedNamingTheNode) {
  Model m = single(node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", Attribute::of_ints({2, 2})}, {"pads", Attribute::of_ints({0, 0, 1, 0})}}),
                   {test::tensor_info("x", DType::Float32, {1, 1, 2, 2}), test::tensor_info("i", DType::Int64, {1, 1, 2, 2})},
                   {out_info("y")});
  try {
    mindir::export_mindir_bytes(m);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("MaxUnpool_node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("symmetric"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Unique (expected values: the examples of the ONNX Unique documentation)

Model unique_model(std::map<std::string, Attribute> attrs, const Shape& shape) {
  return single(node("Unique", {"x"}, {"Y", "indices", "inverse", "counts"}, std::move(attrs)),
                {test::tensor_info("x", DType::Float32, shape)},
                {out_info("Y"), out_info("indices", DType::Int64), out_info("inverse", DType::Int64), out_info("counts", DType::Int64)});
}

TEST(MindirMoreOps, UniqueUnsortedIsUnique2PlusFirstOccurrenceOrder) {
  Written w;
  Model back = round_trip(unique_model({{"sorted", Attribute::of_int(0)}}, {6}), &w);
  EXPECT_TRUE(w.prims.count("Unique2"));
  EXPECT_FALSE(w.prims.count("Unique"));
  auto y = run(back, {Value(Tensor::from_vector<float>({2, 1, 1, 3, 4, 3}, {6}))});
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(values<int64_t>(y[1]), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(values<int64_t>(y[2]), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(values<int64_t>(y[3]), (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST(MindirMoreOps, UniqueSortedOverAnAxisIsUniqueDim) {
  Written w;
  Model back = round_trip(unique_model({{"sorted", Attribute::of_int(1)}, {"axis", Attribute::of_int(0)}}, {3, 3}), &w);
  EXPECT_TRUE(w.prims.count("UniqueDim"));
  auto y = run(back, {Value(Tensor::from_vector<float>({1, 0, 0, 1, 0, 0, 2, 3, 4}, {3, 3}))});
  EXPECT_EQ(y[0].tensor.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(values<int64_t>(y[1]), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(values<int64_t>(y[2]), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(values<int64_t>(y[3]), (std::vector<int64_t>{2, 1}));
}

// ---------------------------------------------------------------------------------------------
// DFT / STFT

// X[k] = sum_t x[t] exp(-+2 pi i k t / n) (/ n when inverse), in double.
std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, bool inverse) {
  size_t n = x.size();
  std::vector<std::complex<double>> r(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t t = 0; t < n; ++t) r[k] += x[t] * std::polar(1.0, (inverse ? 2 : -2) * M_PI * double(k * t) / double(n));
    if (inverse) r[k] /= double(n);
  }
  return r;
}

void expect_pairs(const Value& v, const std::vector<std::complex<double>>& want) {
  auto got = values<float>(v);
  ASSERT_EQ(got.size(), 2 * want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(got[2 * k], want[k].real(), 1e-4) << k;
    EXPECT_NEAR(got[2 * k + 1], want[k].imag(), 1e-4) << k;
  }
}

TEST(MindirMoreOps, OneSidedDftOfARealSignalIsRfft) {
  Model m = single(node("DFT", {"x"}, {"y"}, {{"axis", Attribute::of_int(1)}, {"onesided", Attribute::of_int(1)}}),
                   {test::tensor_info("x", DType::Float32, {1, 8, 1})}, {out_info("y")});
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("RFFT"));
  EXPECT_TRUE(w.prims.count("Real") && w.prims.count("Imag"));
  std::vector<float> x{0.5f, -1, 2, 0.25f, 3, -2, 1, 0};
  auto y = run(back, {Value(Tensor::from_vector<float>(x, {1, 8, 1}))});
  EXPECT_EQ(y[0].tensor.shape(), (Shape{1, 5, 2}));
  auto full = dft(std::vector<std::complex<double>>(x.begin(), x.end()), false);
  expect_pairs(y[0], std::vector<std::complex<double>>(full.begin(), full.begin() + 5));
}

TEST(MindirMoreOps, InverseDftOfAComplexSignalIsIfftOfComplex) {
  Model m = single(node("DFT", {"x"}, {"y"}, {{"axis", Attribute::of_int(1)}, {"inverse", Attribute::of_int(1)}}),
                   {test::tensor_info("x", DType::Float32, {1, 4, 2})}, {out_info("y")});
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("IFFT"));
  EXPECT_TRUE(w.prims.count("Complex"));
  std::vector<float> x{1, 0.5f, -2, 1, 0, -1, 3, 2};
  auto y = run(back, {Value(Tensor::from_vector<float>(x, {1, 4, 2}))});
  std::vector<std::complex<double>> cx;
  for (int k = 0; k < 4; ++k) cx.emplace_back(x[2 * k], x[2 * k + 1]);
  expect_pairs(y[0], dft(cx, true));
}

TEST(MindirMoreOps, StftWithRunTimeFrameStepIsFramesTimesWindowThroughRfft) {
  Model m = single(node("STFT", {"signal", "step", "window"}, {"y"}),
                   {test::tensor_info("signal", DType::Float32, {1, 16, 1}), test::tensor_info("step", DType::Int64, {})},
                   {out_info("y")});
  std::vector<float> win{0.f, 0.5f, 1.f, 0.5f};
  m.graph.initializers["window"] = Tensor::from_vector<float>(win, {4});
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("RFFT"));
  std::vector<float> s(16);
  for (int t = 0; t < 16; ++t) s[t] = std::sin(0.7f * t) + 0.1f * t;
  auto y = run(back, {Value(Tensor::from_vector<float>(s, {1, 16, 1})), Value(Tensor::scalar<int64_t>(3))});
  // frames at 0, 3, 6, 9, 12: (16 - 4) / 3 + 1 = 5; 4 / 2 + 1 = 3 bins each.
  EXPECT_EQ(y[0].tensor.shape(), (Shape{1, 5, 3, 2}));
  std::vector<std::complex<double>> want;
  for (int f = 0; f < 5; ++f) {
    std::vector<std::complex<double>> frame;
    for (int j = 0; j < 4; ++j) frame.emplace_back(s[3 * f + j] * win[j]);
    auto spec = dft(frame, false);
    want.insert(want.end(), spec.begin(), spec.begin() + 3);
  }
  expect_pairs(y[0], want);
}

// ---------------------------------------------------------------------------------------------
// com.mstools fused ops: compared with the fused op's reference kernel (the oracle of the op)

Tensor ramp(const Shape& s, float scale, float offset) {
  Tensor t(DType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(0.37f * static_cast<float>(i)) * scale + offset;
  return t;
}

void expect_close(const Value& a, const Value& b, float tol) {
  ASSERT_EQ(a.tensor.shape(), b.tensor.shape());
  auto x = values<float>(a), y = values<float>(b);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], tol) << i;
}

TEST(MindirMoreOps, FusedConvWithResidualIsConv2DFusionThenAddFusionCarryingTheActivation) {
  Model m = single(node("FusedConv", {"x", "w", "b", "z"}, {"y"},
                        {{"kernel_shape", Attribute::of_ints({3, 3})}, {"pads", Attribute::of_ints({1, 1, 1, 1})},
                         {"activation", Attribute::of_string("Relu")}},
                        kMsDomain),
                   {test::tensor_info("x", DType::Float32, {1, 3, 6, 6}), test::tensor_info("z", DType::Float32, {1, 4, 6, 6})},
                   {out_info("y")});
  m.graph.initializers["w"] = ramp({4, 3, 3, 3}, 0.3f, 0.f);
  m.graph.initializers["b"] = ramp({4}, 0.1f, 0.f);
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("Conv2DFusion") && w.prims.count("AddFusion"));
  EXPECT_EQ(w.prims["Conv2DFusion"]["activation_type"].i(), 0);
  EXPECT_EQ(w.prims["AddFusion"]["activation_type"].i(), 1);  // RELU
  EXPECT_EQ(ints_of(w.prims["Conv2DFusion"]["pad_list"]), (std::vector<int64_t>{1, 1, 1, 1}));
  std::vector<Value> in{Value(ramp({1, 3, 6, 6}, 1.f, 0.f)), Value(ramp({1, 4, 6, 6}, 0.5f, -0.2f))};
  expect_close(run(back, in, true)[0], run(m, in, true)[0], 1e-5f);
}

TEST(MindirMoreOps, FusedMatMulWithLeakyReluIsMatMulFusionThenLiteActivation) {
  Model m = single(node("FusedMatMul", {"a", "b", "bias"}, {"y"},
                        {{"activation", Attribute::of_string("LeakyRelu")}, {"activation_params", Attribute::of_floats({0.1f})}}, kMsDomain),
                   {test::tensor_info("a", DType::Float32, {2, 3, 8})}, {out_info("y")});
  m.graph.initializers["b"] = ramp({8, 5}, 0.5f, 0.f);
  m.graph.initializers["bias"] = ramp({5}, 0.2f, 0.f);
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("MatMulFusion") && w.prims.count("Activation"));
  EXPECT_EQ(w.prims["MatMulFusion"]["activation_type"].i(), 0);
  EXPECT_EQ(w.prims["Activation"]["activation_type"].i(), 5);  // LEAKY_RELU
  EXPECT_FLOAT_EQ(w.prims["Activation"]["alpha"].f(), 0.1f);
  std::vector<Value> in{Value(ramp({2, 3, 8}, 1.f, 0.f))};
  expect_close(run(back, in, true)[0], run(m, in, true)[0], 1e-5f);
}

TEST(MindirMoreOps, FusedGemmWithAlphaAndBetaIsScaledMatMulFusion) {
  Model m = single(node("FusedGemm", {"a", "b", "c"}, {"y"},
                        {{"alpha", Attribute::of_float(0.5f)}, {"beta", Attribute::of_float(2.f)}, {"transB", Attribute::of_int(1)},
                         {"activation", Attribute::of_string("Sigmoid")}},
                        kMsDomain),
                   {test::tensor_info("a", DType::Float32, {3, 4})}, {out_info("y")});
  m.graph.initializers["b"] = ramp({5, 4}, 0.5f, 0.f);
  m.graph.initializers["c"] = ramp({3, 5}, 0.2f, 0.f);
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("MatMulFusion") && w.prims.count("MulFusion") && w.prims.count("AddFusion"));
  EXPECT_TRUE(w.prims["MatMulFusion"]["transpose_b"].i());
  EXPECT_EQ(w.prims["AddFusion"]["activation_type"].i(), 2);  // SIGMOID
  std::vector<Value> in{Value(ramp({3, 4}, 1.f, 0.f))};
  expect_close(run(back, in, true)[0], run(m, in, true)[0], 1e-5f);
}

TEST(MindirMoreOps, MultiHeadAttentionIsWrittenAsBatchMatMulAndSoftmax) {
  Model m = single(node("MultiHeadAttention", {"q", "k", "v"}, {"y"}, {{"num_heads", Attribute::of_int(2)}}, kMsDomain),
                   {test::tensor_info("q", DType::Float32, {1, 3, 8}), test::tensor_info("k", DType::Float32, {1, 5, 8}),
                    test::tensor_info("v", DType::Float32, {1, 5, 8})},
                   {out_info("y")});
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_EQ(w.node_prims.count("BatchMatMul"), 2u);
  EXPECT_EQ(w.node_prims.count("Softmax"), 1u);
  std::vector<Value> in{Value(ramp({1, 3, 8}, 1.f, 0.f)), Value(ramp({1, 5, 8}, 0.7f, 0.1f)), Value(ramp({1, 5, 8}, 0.9f, -0.1f))};
  expect_close(run(back, in, true)[0], run(m, in, true)[0], 1e-5f);
}

TEST(MindirMoreOps, DetectionPostProcessIsLitesPrimitiveAndReadsBack) {
  Model m = single(node("DetectionPostProcess", {"boxes", "scores", "anchors"}, {"db", "dc", "ds", "dn"},
                        {{"max_detections", Attribute::of_int(3)}, {"num_classes", Attribute::of_int(2)},
                         {"nms_score_threshold", Attribute::of_float(0.1f)}, {"nms_iou_threshold", Attribute::of_float(0.4f)}},
                        kMsDomain),
                   {test::tensor_info("boxes", DType::Float32, {1, 6, 4}), test::tensor_info("scores", DType::Float32, {1, 6, 3})},
                   {out_info("db"), out_info("dc"), out_info("ds"), out_info("dn")});
  std::vector<float> anchors;
  for (int i = 0; i < 6; ++i) anchors.insert(anchors.end(), {0.1f + 0.15f * i, 0.5f, 0.2f, 0.3f});
  m.graph.initializers["anchors"] = Tensor::from_vector<float>(anchors, {6, 4});
  Written w;
  Model back = round_trip(m, &w);
  ASSERT_TRUE(w.prims.count("DetectionPostProcess"));
  auto& a = w.prims["DetectionPostProcess"];
  EXPECT_EQ(a["max_detections"].i(), 3);
  EXPECT_EQ(a["num_classes"].i(), 2);
  std::vector<Value> in{Value(ramp({1, 6, 4}, 0.5f, 0.f)), Value(ramp({1, 6, 3}, 0.4f, 0.5f))};
  auto got = run(back, in, true), want = run(m, in, true);
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < 4; ++i) expect_close(got[i], want[i], 0.f);
}

// ---------------------------------------------------------------------------------------------
// Quantization ops (expected values: the ONNX operator documentation's examples)

TEST(MindirMoreOps, DynamicQuantizeLinearIsComposedOfMindSporeArithmetic) {
  Model m = single(node("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"}), {test::tensor_info("x", DType::Float32, {6})},
                   {out_info("y", DType::UInt8), out_info("scale"), out_info("zp", DType::UInt8)});
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("ReduceMin") && w.prims.count("Round") && w.prims.count("ClipByValue"));
  auto y = run(back, {Value(Tensor::from_vector<float>({0.f, 2.f, -3.f, -2.5f, 1.34f, 0.5f}, {6}))});
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  EXPECT_FLOAT_EQ(values<float>(y[1])[0], 5.f / 255.f);
  EXPECT_EQ(values<uint8_t>(y[2])[0], 153);
  // All zeros: scale 0, zero point 0, y 0 (no division by zero).
  auto z = run(back, {Value(Tensor::from_vector<float>(std::vector<float>(6, 0.f), {6}))});
  EXPECT_EQ(values<uint8_t>(z[0]), std::vector<uint8_t>(6, 0));
  EXPECT_EQ(values<float>(z[1])[0], 0.f);
  EXPECT_EQ(values<uint8_t>(z[2])[0], 0);
}

TEST(MindirMoreOps, MatMulIntegerIsAnInt32MatMulOfShiftedOperands) {
  Model m = single(node("MatMulInteger", {"a", "b", "azp", "bzp"}, {"y"}), {test::tensor_info("a", DType::UInt8, {4, 3})},
                   {out_info("y", DType::Int32)});
  m.graph.initializers["b"] = Tensor::from_vector<uint8_t>({1, 4, 2, 5, 3, 6}, {3, 2});
  m.graph.initializers["azp"] = Tensor::scalar<uint8_t>(12);
  m.graph.initializers["bzp"] = Tensor::scalar<uint8_t>(0);
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("MatMul"));
  auto y = run(back, {Value(Tensor::from_vector<uint8_t>({11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, {4, 3}))});
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

// The ONNX operator documentation's example (test_convinteger_with_padding), then a convolution
// with groups, strides, asymmetric pads and uint8 weights with a per-channel zero point against
// the reference ConvInteger kernel on the ONNX model (exact int32 arithmetic on both sides).
TEST(MindirMoreOps, ConvIntegerIsAnInt32Im2colBatchMatMul) {
  Model m = single(node("ConvInteger", {"x", "w", "xz"}, {"y"}, {{"pads", Attribute::of_ints({1, 1, 1, 1})}}),
                   {test::tensor_info("x", DType::UInt8, {1, 1, 3, 3})}, {out_info("y", DType::Int32)});
  m.graph.initializers["w"] = Tensor::from_vector<uint8_t>({1, 1, 1, 1}, {1, 1, 2, 2});
  m.graph.initializers["xz"] = Tensor::scalar<uint8_t>(1);
  Written w;
  Model back = round_trip(m, &w);
  EXPECT_TRUE(w.prims.count("BatchMatMul") && w.prims.count("StridedSlice"));
  auto y = run(back, {Value(Tensor::from_vector<uint8_t>({2, 3, 4, 5, 6, 7, 8, 9, 10}, {1, 1, 3, 3}))});
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));

  Model g = single(node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"},
                        {{"group", Attribute::of_int(2)}, {"strides", Attribute::of_ints({2, 1})},
                         {"dilations", Attribute::of_ints({1, 2})}, {"pads", Attribute::of_ints({1, 0, 0, 2})}}),
                   {test::tensor_info("x", DType::UInt8, {2, 4, 7, 6})}, {out_info("y", DType::Int32)});
  std::vector<uint8_t> wv(6 * 2 * 3 * 2), xv(2 * 4 * 7 * 6), wz(6);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = uint8_t((i * 97 + 13) % 256);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = uint8_t((i * 53 + 7) % 256);
  for (size_t m = 0; m < wz.size(); ++m) wz[m] = uint8_t(100 + 11 * m);
  g.graph.initializers["w"] = Tensor::from_vector<uint8_t>(wv, {6, 2, 3, 2});
  g.graph.initializers["xz"] = Tensor::scalar<uint8_t>(131);
  g.graph.initializers["wz"] = Tensor::from_vector<uint8_t>(wz, {6});
  Model gb = round_trip(g);
  const std::vector<Value> in{Value(Tensor::from_vector<uint8_t>(xv, {2, 4, 7, 6}))};
  auto got = run(gb, in), want = run(g, in, true);
  ASSERT_EQ(got[0].tensor.shape(), want[0].tensor.shape());
  EXPECT_EQ(values<int32_t>(got[0]), values<int32_t>(want[0]));
}

TEST(MindirMoreOps, QLinearMatMulIsAnIntegerProductRequantizedInFloat32) {
  Model m = single(node("QLinearMatMul", {"a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"}, {"y"}),
                   {test::tensor_info("a", DType::UInt8, {2, 4})}, {out_info("y", DType::UInt8)});
  auto& init = m.graph.initializers;
  init["as"] = Tensor::scalar<float>(0.0066f);
  init["azp"] = Tensor::scalar<uint8_t>(113);
  init["b"] = Tensor::from_vector<uint8_t>({152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}, {4, 3});
  init["bs"] = Tensor::scalar<float>(0.00705f);
  init["bzp"] = Tensor::scalar<uint8_t>(114);
  init["ys"] = Tensor::scalar<float>(0.0107f);
  init["yzp"] = Tensor::scalar<uint8_t>(118);
  Model back = round_trip(m);
  auto y = run(back, {Value(Tensor::from_vector<uint8_t>({208, 236, 0, 238, 3, 214, 255, 29}, {2, 4}))});
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{168, 115, 255, 1, 66, 151}));
}

TEST(MindirMoreOps, AnOptimizedResNetBlockConvertsToMindIRAndRunsTheSame) {
  test::TestGraph g;
  g.input("x", {1, 4, 6, 6}).weight("w1", {4, 4, 3, 3}).weight("w2", {4, 4, 3, 3});
  g.weight("g1", {4}, 0.5f, 1.5f).weight("b1", {4}).weight("m1", {4}).weight("v1", {4}, 0.5f, 2.f);
  g.node("Conv", {"x", "w1"}, {"c1"}, {{"pads", test::ints_attr({1, 1, 1, 1})}});
  g.node("BatchNormalization", {"c1", "g1", "b1", "m1", "v1"}, {"n1"}).node("Relu", {"n1"}, {"r1"});
  g.node("Conv", {"r1", "w2"}, {"c2"}, {{"pads", test::ints_attr({1, 1, 1, 1})}});
  g.node("Add", {"c2", "x"}, {"s"}).node("Relu", {"s"}, {"y"}).output("y");
  Model opt = g.m;
  passes::optimize_model(opt, {});
  ASSERT_EQ(test::count_ops(opt, "FusedConv"), 2u);
  Written w;
  Model back = round_trip(opt, &w);
  EXPECT_EQ(w.node_prims.count("Conv2DFusion"), 2u);
  EXPECT_EQ(w.node_prims.count("AddFusion"), 1u);
  test::expect_same_outputs(g.m, back);
}

}  // namespace
}  // namespace ms
