// TensorFlow frozen-graph importer: real TF1 graphs (tests/data/tf) and hand-built GraphDefs run
// through the IR and compared with loops written from TensorFlow's documented op semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <set>

#include "formats/model_io.h"
#include "formats/onnx/onnx_exporter.h"
#include "formats/tf/tf_importer.h"
#include "formats/tf/tf_tensor.h"
#include "ops/infer_graph.h"
#include "runtime/session.h"
#include "test_util.h"
#include "tf_graph.pb.h"

namespace ms {
namespace {

// --- building GraphDefs ------------------------------------------------------------------------

struct GraphDefBuilder {
  ms_tf::GraphDef g;

  ms_tf::NodeDef& node(const std::string& name, const std::string& op, std::vector<std::string> inputs = {}) {
    auto* n = g.add_node();
    n->set_name(name);
    n->set_op(op);
    for (auto& i : inputs) n->add_input(i);
    (*n->mutable_attr())["T"].set_type(ms_tf::DT_FLOAT);
    return *n;
  }
  void placeholder(const std::string& name, const Shape& shape) {
    auto& n = node(name, "Placeholder");
    (*n.mutable_attr())["dtype"].set_type(ms_tf::DT_FLOAT);
    auto* s = (*n.mutable_attr())["shape"].mutable_shape();
    for (auto d : shape) s->add_dim()->set_size(d);
  }
  ms_tf::TensorProto& constant(const std::string& name, ms_tf::DataType dt, const Shape& shape) {
    auto& n = node(name, "Const");
    (*n.mutable_attr())["dtype"].set_type(dt);
    auto* t = (*n.mutable_attr())["value"].mutable_tensor();
    t->set_dtype(dt);
    for (auto d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
    return *t;
  }
  void floats(const std::string& name, const std::vector<float>& v, const Shape& shape) {
    constant(name, ms_tf::DT_FLOAT, shape).set_tensor_content(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  }
  void ints(const std::string& name, const std::vector<int32_t>& v, const Shape& shape) {
    auto& t = constant(name, ms_tf::DT_INT32, shape);
    for (auto x : v) t.add_int_val(x);
  }
};

void set_ints(ms_tf::NodeDef& n, const std::string& key, const std::vector<int64_t>& v) {
  auto* l = (*n.mutable_attr())[key].mutable_list();
  for (auto x : v) l->add_i(x);
}
void set_s(ms_tf::NodeDef& n, const std::string& key, const std::string& v) { (*n.mutable_attr())[key].set_s(v); }
void set_i(ms_tf::NodeDef& n, const std::string& key, int64_t v) { (*n.mutable_attr())[key].set_i(v); }
void set_b(ms_tf::NodeDef& n, const std::string& key, bool v) { (*n.mutable_attr())[key].set_b(v); }

// Deterministic values in [-1, 1).
std::vector<float> values(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) % 2000) / 1000.f - 1.f;
  }
  return v;
}

std::vector<Tensor> run(const ms_tf::GraphDef& g, const std::vector<Tensor>& feeds, const std::vector<std::string>& outs = {}) {
  tf_format::ImportOptions o;
  o.output_names = outs;
  auto m = std::make_shared<Model>(tf_format::import_graphdef(g, "test.pb", o));
  Session s(m);
  std::vector<Value> in(feeds.begin(), feeds.end());
  std::vector<Tensor> r;
  for (auto& v : s.run(in)) r.push_back(v.tensor);
  return r;
}

void expect_near(const Tensor& got, const Shape& shape, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got.as_double(i), want[i], tol * (1 + std::fabs(want[i]))) << "element " << i;
}

// NHWC index.
struct Nhwc {
  int64_t N, H, W, C;
  int64_t at(int64_t n, int64_t h, int64_t w, int64_t c) const { return ((n * H + h) * W + w) * C + c; }
};

// TF's SAME: out = ceil(in / s), total pad = max((out-1)*s + k_eff - in, 0) with the dilated extent
// k_eff = (k-1)*d + 1, the smaller half first.
int64_t same_pad_before(int64_t in, int64_t k, int64_t s, int64_t* out, int64_t d = 1) {
  *out = (in + s - 1) / s;
  int64_t total = std::max<int64_t>((*out - 1) * s + (k - 1) * d + 1 - in, 0);
  return total / 2;
}

// --- hand-built graphs ---------------------------------------------------------------------------

// Conv2D (and DepthwiseConv2dNative when depthwise) by direct summation over the NHWC input.
std::vector<float> conv_ref(const std::vector<float>& x, Nhwc xs, const std::vector<float>& f, int64_t kh, int64_t kw,
                            int64_t cout_or_mult, int64_t sh, int64_t sw, bool same, bool depthwise, Nhwc* ys,
                            int64_t dh = 1, int64_t dw = 1) {
  int64_t oh, ow, pt = 0, pl = 0;
  if (same) {
    pt = same_pad_before(xs.H, kh, sh, &oh, dh);
    pl = same_pad_before(xs.W, kw, sw, &ow, dw);
  } else {
    oh = (xs.H - (kh - 1) * dh - 1) / sh + 1;
    ow = (xs.W - (kw - 1) * dw - 1) / sw + 1;
  }
  int64_t co = depthwise ? xs.C * cout_or_mult : cout_or_mult;
  *ys = {xs.N, oh, ow, co};
  std::vector<float> y(xs.N * oh * ow * co, 0.f);
  for (int64_t n = 0; n < xs.N; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < co; ++o) {
          double acc = 0;
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t b = 0; b < kw; ++b) {
              int64_t h = i * sh + a * dh - pt, w = j * sw + b * dw - pl;
              if (h < 0 || h >= xs.H || w < 0 || w >= xs.W) continue;
              if (depthwise) {
                int64_t c = o / cout_or_mult, m = o % cout_or_mult;
                acc += x[xs.at(n, h, w, c)] * f[((a * kw + b) * xs.C + c) * cout_or_mult + m];
              } else {
                for (int64_t c = 0; c < xs.C; ++c) acc += x[xs.at(n, h, w, c)] * f[((a * kw + b) * xs.C + c) * co + o];
              }
            }
          y[ys->at(n, i, j, o)] = static_cast<float>(acc);
        }
  return y;
}

struct ConvCase {
  bool depthwise;
  std::string padding;
  int64_t stride_h, stride_w;
  int64_t dil_h = 1, dil_w = 1;
};

// What `ms convert --saveType ONNX` writes must pass ONNX's checker with its full check (Python's
// onnx.checker.check_model(full_check=True): the checker, then strict shape inference with type
// checks) and name every node uniquely (ONNX Runtime refuses duplicate names). ONNX requires a
// shape on the main graph's inputs: a TF Placeholder of unknown rank (old TF1 exports) is refused
// by the writer (exit 2, naming it and --inputShape) until `shapes` (--inputShape) gives it one.
void expect_valid_onnx(const Model& src, const std::map<std::string, std::vector<int64_t>>& shapes = {}) {
  Model m = src;
  bool unranked = false;
  for (auto& v : m.graph.inputs) {
    if (v.type.shape) continue;
    unranked = true;
    auto it = shapes.find(v.name);
    if (it == shapes.end()) continue;
    std::vector<Dim> dims;
    for (int64_t d : it->second) dims.push_back(Dim::fixed(d));
    v.type.shape = dims;
  }
  if (unranked) {
    try {
      onnx_format::export_onnx_bytes(src);
      ADD_FAILURE() << "a model with an input of unknown rank was written as ONNX";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
      EXPECT_NE(std::string(e.what()).find("--inputShape"), std::string::npos) << e.what();
    }
    GraphInference gi = infer_graph(m);  // the outputs' types after the shapes given (as ms convert does)
    for (auto& o : m.graph.outputs)
      if (const TypeInfo* t = gi.type_of(m.graph, o.name); t && t->kind == TypeInfo::Kind::Tensor && t->shape) o.type = *t;
  }
  for (const auto& v : m.graph.inputs)
    if (!v.type.shape) return;  // refused above, and no shape given to go on with
  onnx::ModelProto p;
  onnx_format::export_onnx(m, &p);
  bool ranked = true;  // outputs whose shape inference does not know stay unshaped (ONNX Runtime loads them)
  for (const auto& v : p.graph().output()) ranked = ranked && v.type().tensor_type().has_shape();
  if (ranked) try {
    onnx::checker::check_model(p);
    onnx::shape_inference::InferShapes(p, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ONNX checker: " << e.what();
  }
  std::set<std::string> names;
  for (const auto& n : p.graph().node()) {
    EXPECT_FALSE(n.name().empty()) << n.op_type();
    EXPECT_TRUE(names.insert(n.name()).second) << "two nodes are named " << n.name();
    // ONNX Runtime: "Dilation not supported for AutoPadType::SAME_UPPER".
    bool same = false, dilated = false;
    for (const auto& a : n.attribute()) {
      if (a.name() == "auto_pad") same = a.s().rfind("SAME", 0) == 0;
      if (a.name() == "dilations")
        for (auto d : a.ints()) dilated = dilated || d != 1;
    }
    EXPECT_FALSE(same && dilated) << n.name() << " is a dilated " << n.op_type() << " with auto_pad SAME";
  }
}

class TfConv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(TfConv, MatchesDirectSummation) {
  const ConvCase& p = GetParam();
  Nhwc xs{2, 7, 6, 3};
  const int64_t kh = 3, kw = 2, co = p.depthwise ? 2 : 4;
  auto x = values(xs.N * xs.H * xs.W * xs.C, 1);
  auto f = values(kh * kw * xs.C * co, 2);
  GraphDefBuilder b;
  b.placeholder("x", {-1, xs.H, xs.W, xs.C});
  b.floats("w", f, {kh, kw, xs.C, co});
  auto& n = b.node("conv", p.depthwise ? "DepthwiseConv2dNative" : "Conv2D", {"x", "w"});
  set_ints(n, "strides", {1, p.stride_h, p.stride_w, 1});
  if (p.dil_h != 1 || p.dil_w != 1) set_ints(n, "dilations", {1, p.dil_h, p.dil_w, 1});
  set_s(n, "padding", p.padding);
  b.node("relu", "Relu", {"conv"});
  Nhwc ys;
  auto want = conv_ref(x, xs, f, kh, kw, co, p.stride_h, p.stride_w, p.padding == "SAME", p.depthwise, &ys, p.dil_h, p.dil_w);
  for (auto& v : want) v = std::max(v, 0.f);
  auto got = run(b.g, {Tensor::from_vector(x, {xs.N, xs.H, xs.W, xs.C})});
  ASSERT_EQ(got.size(), 1u);
  expect_near(got[0], {ys.N, ys.H, ys.W, ys.C}, want);
  Model m = tf_format::import_graphdef(b.g, "test.pb");
  if (p.padding == "SAME") {  // the spatial size is known: SAME is written as explicit pads
    for (const auto& node : m.graph.nodes)
      if (node.op_type == "Conv") {
        EXPECT_FALSE(node.attrs.count("auto_pad")) << node.name;
      }
  }
  expect_valid_onnx(m);
}

INSTANTIATE_TEST_SUITE_P(Cases, TfConv,
                         ::testing::Values(ConvCase{false, "SAME", 1, 1}, ConvCase{false, "SAME", 2, 2}, ConvCase{false, "SAME", 2, 3},
                                           ConvCase{false, "VALID", 1, 1}, ConvCase{false, "VALID", 2, 1},
                                           ConvCase{true, "SAME", 1, 1}, ConvCase{true, "SAME", 2, 2}, ConvCase{true, "VALID", 2, 1},
                                           // atrous (dilated) convolutions
                                           ConvCase{false, "SAME", 1, 1, 2, 2}, ConvCase{false, "SAME", 1, 1, 3, 2},
                                           ConvCase{true, "SAME", 1, 1, 2, 3}, ConvCase{false, "VALID", 1, 1, 2, 1}));

// A dilated SAME convolution over an input whose spatial size is unknown: at stride 1 TF's pads are
// (k-1)*d whatever the size, so they are written explicitly and the converted ONNX needs no
// auto_pad (which ONNX Runtime refuses with dilations); with a stride they depend on the size, and
// the ONNX writer refuses clearly, naming the node, until --inputShape fixes it.
TEST(TfImport, DilatedSameConvOfUnknownSize) {
  Nhwc xs{1, 9, 8, 2};
  auto x = values(xs.N * xs.H * xs.W * xs.C, 21);
  auto f = values(3 * 3 * 2 * 3, 22);
  for (int64_t stride : {1, 2}) {
    GraphDefBuilder b;
    b.placeholder("x", {-1, -1, -1, 2});
    b.floats("w", f, {3, 3, 2, 3});
    auto& n = b.node("atrous", "Conv2D", {"x", "w"});
    set_ints(n, "strides", {1, stride, stride, 1});
    set_ints(n, "dilations", {1, 2, 2, 1});
    set_s(n, "padding", "SAME");
    SCOPED_TRACE("stride " + std::to_string(stride));
    Nhwc ys;
    auto want = conv_ref(x, xs, f, 3, 3, 3, stride, stride, true, false, &ys, 2, 2);
    auto got = run(b.g, {Tensor::from_vector(x, {1, 9, 8, 2})});
    expect_near(got[0], {ys.N, ys.H, ys.W, ys.C}, want);
    Model m = tf_format::import_graphdef(b.g, "test.pb");
    if (stride == 1) {
      expect_valid_onnx(m);
      continue;
    }
    try {
      onnx_format::export_onnx_bytes(m);
      ADD_FAILURE() << "a strided dilated SAME conv of unknown size was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unsupported);
      EXPECT_NE(std::string(e.what()).find("atrous"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--inputShape"), std::string::npos) << e.what();
    }
  }
}

// TF's MatMul is rank 2 by definition: transpose_a / transpose_b need no inferred rank, here of a
// Placeholder without a shape (old TF1 exports) and one with unknown_rank.
TEST(TfImport, MatMulTransposesOperandsOfUnknownRank) {
  const int64_t M = 3, K = 4, N = 5;
  auto a = values(K * M, 31), w = values(N * K, 32);  // a is fed as [K, M], w is [N, K]
  for (bool unknown_rank_attr : {false, true}) {
    GraphDefBuilder b;
    auto& ph = b.node("a", "Placeholder");
    (*ph.mutable_attr())["dtype"].set_type(ms_tf::DT_FLOAT);
    if (unknown_rank_attr) (*ph.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
    b.floats("w", w, {N, K});
    auto& mm = b.node("mm", "MatMul", {"a", "w"});
    set_b(mm, "transpose_a", true);
    set_b(mm, "transpose_b", true);
    // y[i][j] = sum_k a[k][i] * w[j][k]
    std::vector<float> want(M * N, 0.f);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k) want[i * N + j] += a[k * M + i] * w[j * K + k];
    auto got = run(b.g, {Tensor::from_vector(a, {K, M})});
    ASSERT_EQ(got.size(), 1u);
    expect_near(got[0], {M, N}, want);
    expect_valid_onnx(tf_format::import_graphdef(b.g, "test.pb"), {{"a", {K, M}}});
  }
}

// Default outputs are the unconsumed nodes that are results: not NoOp, not what is computed from
// constants alone (a frozen variable's `global_step/read`, a shape folded to constants).
TEST(TfImport, ConstOnlySinksAreNotOutputs) {
  GraphDefBuilder b;
  b.placeholder("x", {2, 3});
  b.floats("global_step", {7.f}, {});
  b.node("global_step/read", "Identity", {"global_step"});
  b.floats("c1", {1.f, 2.f, 3.f}, {3});
  b.floats("c2", {0.5f}, {});
  b.node("folded", "Mul", {"c1", "c2"});
  b.node("folded/relu", "Relu", {"folded"});
  b.node("init", "NoOp", {"^global_step/read"});
  b.node("y", "Add", {"x", "c1"});
  Model m = tf_format::import_graphdef(b.g, "test.pb");
  ASSERT_EQ(m.graph.outputs.size(), 1u);
  EXPECT_EQ(m.graph.outputs[0].name, "y");
  expect_valid_onnx(m);
  // Named explicitly, a const-only node is still an output.
  auto got = run(b.g, {}, {"folded/relu"});
  expect_near(got[0], {3}, {0.5f, 1.f, 1.5f});
  // Nothing but constants: a clear error that says how to name outputs.
  GraphDefBuilder c;
  c.floats("k", {1.f}, {});
  c.node("k/read", "Identity", {"k"});
  try {
    tf_format::import_graphdef(c.g, "consts.pb");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--outputNames"), std::string::npos) << e.what();
  }
}

// One TF node becomes several IR nodes (NHWC Transposes around a Conv, a BiasAdd's Add) that carry
// its name; written ONNX names every node once.
TEST(TfImport, WrittenOnnxNodeNamesAreUnique) {
  GraphDefBuilder b;
  b.placeholder("x", {1, 6, 6, 2});
  b.floats("w", values(3 * 3 * 2 * 4, 41), {3, 3, 2, 4});
  auto& c1 = b.node("conv", "Conv2D", {"x", "w"});
  set_ints(c1, "strides", {1, 2, 2, 1});
  set_s(c1, "padding", "SAME");
  auto& mp = b.node("pool", "MaxPool", {"conv"});
  set_ints(mp, "ksize", {1, 2, 2, 1});
  set_ints(mp, "strides", {1, 1, 1, 1});
  set_s(mp, "padding", "SAME");
  Model m = tf_format::import_graphdef(b.g, "test.pb");
  std::map<std::string, int> ir_names;
  for (const auto& n : m.graph.nodes) ++ir_names[n.name];
  bool shared = false;
  for (const auto& [name, count] : ir_names) shared = shared || count > 1;
  EXPECT_TRUE(shared) << "the case no longer exercises nodes that share a name";
  expect_valid_onnx(m);
}

TEST(TfImport, ConvBatchNormChainKeepsNoInnerTransposes) {
  // conv -> FusedBatchNormV3 -> Relu6 -> conv: the NHWC<->NCHW pairs between them cancel.
  Nhwc xs{1, 5, 5, 2};
  auto x = values(xs.N * xs.H * xs.W * xs.C, 3);
  auto f1 = values(9 * 2 * 3, 4), f2 = values(1 * 1 * 3 * 2, 5);
  std::vector<float> scale{1.5f, -0.5f, 2.f}, offset{0.1f, 0.2f, -0.3f}, mean{0.05f, -0.1f, 0.2f}, var{0.5f, 2.f, 1.f};
  GraphDefBuilder b;
  b.placeholder("x", {1, 5, 5, 2});
  b.floats("w1", f1, {3, 3, 2, 3});
  b.floats("w2", f2, {1, 1, 3, 2});
  b.floats("scale", scale, {3});
  b.floats("offset", offset, {3});
  b.floats("mean", mean, {3});
  b.floats("var", var, {3});
  auto& c1 = b.node("c1", "Conv2D", {"x", "w1"});
  set_ints(c1, "strides", {1, 1, 1, 1});
  set_s(c1, "padding", "SAME");
  auto& bn = b.node("bn", "FusedBatchNormV3", {"c1", "scale", "offset", "mean", "var"});
  set_b(bn, "is_training", false);
  (*bn.mutable_attr())["epsilon"].set_f(0.001f);
  b.node("r6", "Relu6", {"bn"});
  auto& c2 = b.node("c2", "Conv2D", {"r6", "w2"});
  set_ints(c2, "strides", {1, 1, 1, 1});
  set_s(c2, "padding", "VALID");

  Nhwc s1, s2;
  auto y1 = conv_ref(x, xs, f1, 3, 3, 3, 1, 1, true, false, &s1);
  for (int64_t i = 0; i < static_cast<int64_t>(y1.size()); ++i) {
    int64_t c = i % 3;
    float v = (y1[i] - mean[c]) / std::sqrt(var[c] + 0.001f) * scale[c] + offset[c];
    y1[i] = std::min(std::max(v, 0.f), 6.f);
  }
  auto want = conv_ref(y1, s1, f2, 1, 1, 2, 1, 1, false, false, &s2);
  auto m = tf_format::import_graphdef(b.g, "test.pb");
  int transposes = 0;
  for (const auto& n : m.graph.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 2) << "only the graph boundary should change layout";
  auto got = run(b.g, {Tensor::from_vector(x, {1, 5, 5, 2})});
  expect_near(got[0], {1, 5, 5, 2}, want);
}

// --inputLayout NCHW (LoadOptions::input_layout): the image input is channels-first, so only the
// output's Transpose is left, and the values are the NHWC graph's on the transposed input.
TEST(TfImport, InputLayoutNchwDropsTheEntryTranspose) {
  Nhwc xs{1, 5, 5, 2};
  auto x = values(xs.N * xs.H * xs.W * xs.C, 13);
  auto f = values(3 * 3 * 2 * 3, 14);
  GraphDefBuilder b;
  b.placeholder("x", {1, 5, 5, 2});
  b.floats("w", f, {3, 3, 2, 3});
  auto& c = b.node("c", "Conv2D", {"x", "w"});
  set_ints(c, "strides", {1, 1, 1, 1});
  set_s(c, "padding", "SAME");
  b.node("r", "Relu", {"c"});
  Nhwc ys;
  auto want = conv_ref(x, xs, f, 3, 3, 3, 1, 1, true, false, &ys);
  for (auto& v : want) v = std::max(v, 0.f);
  auto dir = test::temp_dir("tf_input_layout");
  std::string file = (dir / "conv.pb").string();
  std::ofstream(file, std::ios::binary) << b.g.SerializeAsString();
  LoadOptions lo;
  lo.input_layout = "NCHW";
  auto m = std::make_shared<Model>(load_model(file, ModelFormat::TF, lo));
  ASSERT_EQ(m->graph.inputs[0].type.str(), "float32[1,2,5,5]");
  int transposes = 0;
  for (const auto& n : m->graph.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 1) << "only the output should change layout";
  std::vector<float> x_nchw(x.size());
  for (int64_t h = 0; h < 5; ++h)
    for (int64_t w = 0; w < 5; ++w)
      for (int64_t ch = 0; ch < 2; ++ch) x_nchw[(ch * 5 + h) * 5 + w] = x[(h * 5 + w) * 2 + ch];
  Session s(m);
  auto got = s.run({Value(Tensor::from_vector(x_nchw, {1, 2, 5, 5}))});
  expect_near(got[0].tensor, {1, 5, 5, 3}, want);
}

TEST(TfImport, SqueezeExcitationKeepsNoInnerTransposes) {
  // conv -> x * mean(x over H, W, keep_dims) -> pad -> conv: the layout changes cross the Mean,
  // the Mul and the Pad and cancel, leaving only the graph boundary's.
  Nhwc xs{1, 4, 5, 2};
  auto x = values(xs.N * xs.H * xs.W * xs.C, 14);
  auto f1 = values(1 * 1 * 2 * 3, 15), f2 = values(2 * 2 * 3 * 2, 16);
  GraphDefBuilder b;
  b.placeholder("x", {1, 4, 5, 2});
  b.floats("w1", f1, {1, 1, 2, 3});
  b.floats("w2", f2, {2, 2, 3, 2});
  b.ints("hw", {1, 2}, {2});
  b.ints("pads", {0, 0, 1, 1, 0, 0, 0, 0}, {4, 2});
  auto& c1 = b.node("c1", "Conv2D", {"x", "w1"});
  set_ints(c1, "strides", {1, 1, 1, 1});
  set_s(c1, "padding", "VALID");
  auto& mean = b.node("se", "Mean", {"c1", "hw"});
  set_b(mean, "keep_dims", true);
  b.node("scaled", "Mul", {"c1", "se"});
  b.node("padded", "Pad", {"scaled", "pads"});
  auto& c2 = b.node("c2", "Conv2D", {"padded", "w2"});
  set_ints(c2, "strides", {1, 1, 1, 1});
  set_s(c2, "padding", "VALID");

  Nhwc s1, s2;
  auto y1 = conv_ref(x, xs, f1, 1, 1, 3, 1, 1, false, false, &s1);
  std::vector<float> m(3, 0.f);
  for (int64_t i = 0; i < static_cast<int64_t>(y1.size()); ++i) m[i % 3] += y1[i] / 20.f;
  // Scale by the channel means, then pad one zero row above and below.
  Nhwc sp{1, 6, 5, 3};
  std::vector<float> padded(6 * 5 * 3, 0.f);
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t w = 0; w < 5; ++w)
      for (int64_t c = 0; c < 3; ++c) padded[sp.at(0, h + 1, w, c)] = y1[s1.at(0, h, w, c)] * m[c];
  auto want = conv_ref(padded, sp, f2, 2, 2, 2, 1, 1, false, false, &s2);
  auto model = tf_format::import_graphdef(b.g, "test.pb");
  int transposes = 0;
  for (const auto& n : model.graph.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 2);
  auto got = run(b.g, {Tensor::from_vector(x, {1, 4, 5, 2})});
  expect_near(got[0], {s2.N, s2.H, s2.W, s2.C}, want);
}

TEST(TfImport, StridedSliceMasks) {
  // x has shape [2,3,4,5] and x[i,j,k,l] = i*60 + j*20 + k*5 + l.
  std::vector<float> x(120);
  for (int i = 0; i < 120; ++i) x[i] = static_cast<float>(i);
  auto at = [](int i, int j, int k, int l) { return static_cast<float>(i * 60 + j * 20 + k * 5 + l); };
  struct Case {
    std::vector<int32_t> begin, end, strides;
    int64_t begin_mask, end_mask, ellipsis, new_axis, shrink;
    Shape shape;
    std::function<std::vector<float>()> expected;
  };
  std::vector<Case> cases = {
      // x[1, :, ::-2, 1:4:2]
      {{1, 0, 0, 1}, {2, 0, 0, 4}, {1, 1, -2, 2}, 0b0110, 0b0110, 0, 0, 0b0001, {3, 2, 2}, [&] {
         std::vector<float> v;
         for (int j = 0; j < 3; ++j)
           for (int k : {3, 1})
             for (int l : {1, 3}) v.push_back(at(1, j, k, l));
         return v;
       }},
      // x[..., tf.newaxis, -1]
      {{0, 0, -1}, {0, 0, 0}, {1, 1, 1}, 0, 0, 0b001, 0b010, 0b100, {2, 3, 4, 1}, [&] {
         std::vector<float> v;
         for (int i = 0; i < 2; ++i)
           for (int j = 0; j < 3; ++j)
             for (int k = 0; k < 4; ++k) v.push_back(at(i, j, k, 4));
         return v;
       }},
      // x[:, tf.newaxis, -3:-1, ...]
      {{0, 0, -3, 0}, {0, 0, -1, 0}, {1, 1, 1, 1}, 0b0001, 0b0001, 0b1000, 0b0010, 0, {2, 1, 2, 4, 5}, [&] {
         std::vector<float> v;
         for (int i = 0; i < 2; ++i)
           for (int j = 0; j < 2; ++j)  // -3:-1 of a size-3 axis
             for (int k = 0; k < 4; ++k)
               for (int l = 0; l < 5; ++l) v.push_back(at(i, j, k, l));
         return v;
       }},
      // x[-1, 2] (the rest of the axes untouched, no ellipsis)
      {{-1, 2}, {0, 3}, {1, 1}, 0, 0, 0, 0, 0b11, {4, 5}, [&] {
         std::vector<float> v;
         for (int k = 0; k < 4; ++k)
           for (int l = 0; l < 5; ++l) v.push_back(at(1, 2, k, l));
         return v;
       }},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    GraphDefBuilder b;
    b.placeholder("x", {2, 3, 4, 5});
    Shape len{static_cast<int64_t>(k.begin.size())};
    b.ints("b", k.begin, len);
    b.ints("e", k.end, len);
    b.ints("s", k.strides, len);
    auto& n = b.node("ss", "StridedSlice", {"x", "b", "e", "s"});
    set_i(n, "begin_mask", k.begin_mask);
    set_i(n, "end_mask", k.end_mask);
    set_i(n, "ellipsis_mask", k.ellipsis);
    set_i(n, "new_axis_mask", k.new_axis);
    set_i(n, "shrink_axis_mask", k.shrink);
    SCOPED_TRACE("case " + std::to_string(c));
    auto got = run(b.g, {Tensor::from_vector(x, {2, 3, 4, 5})});
    expect_near(got[0], k.shape, k.expected(), 0);
  }
}

TEST(TfImport, JoinSplitAndReduce) {
  auto x = values(2 * 3 * 4, 7), y = values(2 * 3 * 4, 8);
  GraphDefBuilder b;
  b.placeholder("x", {2, 3, 4});
  b.placeholder("y", {2, 3, 4});
  b.ints("axis_last", {-1}, {});
  b.ints("axis1", {1}, {});
  b.ints("sizes", {1, -1}, {2});
  b.ints("mean_axes", {0, 2}, {2});
  b.node("cat", "ConcatV2", {"x", "y", "axis_last"});
  auto& pk = b.node("pack", "Pack", {"x", "y"});
  set_i(pk, "axis", 1);
  auto& sp = b.node("split", "Split", {"axis_last", "x"});
  set_i(sp, "num_split", 2);
  auto& sv = b.node("splitv", "SplitV", {"y", "sizes", "axis1"});
  set_i(sv, "num_split", 2);
  auto& mn = b.node("mean", "Mean", {"x", "mean_axes"});
  set_b(mn, "keep_dims", true);
  auto got = run(b.g, {Tensor::from_vector(x, {2, 3, 4}), Tensor::from_vector(y, {2, 3, 4})},
                 {"cat", "pack", "split", "split:1", "splitv:1", "mean"});
  ASSERT_EQ(got.size(), 6u);
  auto X = [&](int i, int j, int k) { return x[(i * 3 + j) * 4 + k]; };
  auto Y = [&](int i, int j, int k) { return y[(i * 3 + j) * 4 + k]; };
  std::vector<float> cat, pack, s0, s1, sv1, mean(3, 0.f);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 8; ++k) cat.push_back(k < 4 ? X(i, j, k) : Y(i, j, k - 4));
      for (int k = 0; k < 2; ++k) s0.push_back(X(i, j, k));
      for (int k = 2; k < 4; ++k) s1.push_back(X(i, j, k));
    }
  for (int i = 0; i < 2; ++i)
    for (int t = 0; t < 2; ++t)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) pack.push_back(t ? Y(i, j, k) : X(i, j, k));
  for (int i = 0; i < 2; ++i)
    for (int j = 1; j < 3; ++j)
      for (int k = 0; k < 4; ++k) sv1.push_back(Y(i, j, k));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) mean[j] += X(i, j, k) / 8.f;
  expect_near(got[0], {2, 3, 8}, cat);
  expect_near(got[1], {2, 2, 3, 4}, pack);
  expect_near(got[2], {2, 3, 2}, s0);
  expect_near(got[3], {2, 3, 2}, s1);
  expect_near(got[4], {2, 2, 4}, sv1);
  expect_near(got[5], {1, 3, 1}, mean);
}

// TF's resize_bilinear: source coordinate in = x*scale (align_corners: scale (in-1)/(out-1)),
// or (x+0.5)*scale-0.5 with half_pixel_centers; lower = max(floor(in), 0), upper = min(ceil(in),
// size-1), weight in - floor(in).
std::vector<float> resize_bilinear_ref(const std::vector<float>& x, Nhwc xs, int64_t oh, int64_t ow, bool align, bool half) {
  auto taps = [&](int64_t in, int64_t out, int64_t o, int64_t* lo, int64_t* hi, float* w) {
    float scale = align && out > 1 ? float(in - 1) / float(out - 1) : float(in) / float(out);
    float src = half ? (o + 0.5f) * scale - 0.5f : o * scale;
    float fl = std::floor(src);
    *lo = std::max<int64_t>(static_cast<int64_t>(fl), 0);
    *hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1);
    *w = src - fl;
  };
  Nhwc ys{xs.N, oh, ow, xs.C};
  std::vector<float> y(xs.N * oh * ow * xs.C);
  for (int64_t n = 0; n < xs.N; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t c = 0; c < xs.C; ++c) {
          int64_t t, bo, l, r;
          float wy, wx;
          taps(xs.H, oh, i, &t, &bo, &wy);
          taps(xs.W, ow, j, &l, &r, &wx);
          float top = x[xs.at(n, t, l, c)] + (x[xs.at(n, t, r, c)] - x[xs.at(n, t, l, c)]) * wx;
          float bot = x[xs.at(n, bo, l, c)] + (x[xs.at(n, bo, r, c)] - x[xs.at(n, bo, l, c)]) * wx;
          y[ys.at(n, i, j, c)] = top + (bot - top) * wy;
        }
  return y;
}

TEST(TfImport, ResizeBilinearModes) {
  Nhwc xs{1, 3, 4, 2};
  auto x = values(xs.N * xs.H * xs.W * xs.C, 9);
  for (auto [align, half] : std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {false, true}}) {
    for (auto [oh, ow] : std::vector<std::pair<int, int>>{{5, 7}, {2, 3}}) {
      GraphDefBuilder b;
      b.placeholder("x", {1, 3, 4, 2});
      b.ints("size", {oh, ow}, {2});
      auto& n = b.node("rs", "ResizeBilinear", {"x", "size"});
      set_b(n, "align_corners", align);
      set_b(n, "half_pixel_centers", half);
      SCOPED_TRACE(fmt::format("align {} half {} -> {}x{}", align, half, oh, ow));
      auto got = run(b.g, {Tensor::from_vector(x, {1, 3, 4, 2})});
      expect_near(got[0], {1, oh, ow, 2}, resize_bilinear_ref(x, xs, oh, ow, align, half));
    }
  }
}

TEST(TfImport, DynamicReshapeChainAndMultipleOutputs) {
  // reshape(x, pack([shape(x)[0], -1])) with an unknown batch, then MatMul; a second, unconsumed
  // branch (Pad + MaxPool SAME) is the graph's other output.
  const int64_t B = 3;
  auto x = values(B * 4 * 4 * 2, 12), w = values(32 * 5, 13);
  GraphDefBuilder b;
  b.placeholder("x", {-1, 4, 4, 2});
  auto& shape = b.node("shape", "Shape", {"x"});
  (*shape.mutable_attr())["out_type"].set_type(ms_tf::DT_INT32);
  b.ints("b0", {0}, {1});
  b.ints("b1", {1}, {1});
  b.ints("minus1", {-1}, {});
  auto& n = b.node("batch", "StridedSlice", {"shape", "b0", "b1", "b1"});
  set_i(n, "shrink_axis_mask", 1);
  auto& pk = b.node("target", "Pack", {"batch", "minus1"});
  (*pk.mutable_attr())["T"].set_type(ms_tf::DT_INT32);
  b.node("flat", "Reshape", {"x", "target"});
  b.floats("w", w, {32, 5});
  b.node("logits", "MatMul", {"flat", "w"});
  b.ints("pads", {0, 0, 1, 0, 0, 1, 0, 0}, {4, 2});
  b.node("padded", "Pad", {"x", "pads"});
  auto& mp = b.node("pool", "MaxPool", {"padded"});
  set_ints(mp, "ksize", {1, 2, 2, 1});
  set_ints(mp, "strides", {1, 2, 2, 1});
  set_s(mp, "padding", "SAME");
  auto got = run(b.g, {Tensor::from_vector(x, {B, 4, 4, 2})});
  ASSERT_EQ(got.size(), 2u);
  std::vector<float> logits(B * 5, 0.f);
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 32; ++k) logits[i * 5 + j] += x[i * 32 + k] * w[k * 5 + j];
  // Padded to 5x5 (one zero row on top, one zero column on the right), pooled 2x2/2 SAME -> 3x3.
  auto padded = [&](int64_t n, int64_t h, int64_t ww, int64_t c) {
    return h < 1 || ww > 3 ? 0.f : x[((n * 4 + h - 1) * 4 + ww) * 2 + c];
  };
  std::vector<float> pool;
  for (int64_t n = 0; n < B; ++n)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t c = 0; c < 2; ++c) {
          float m = -INFINITY;
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t d = 0; d < 2; ++d)
              if (2 * i + a < 5 && 2 * j + d < 5) m = std::max(m, padded(n, 2 * i + a, 2 * j + d, c));
          pool.push_back(m);
        }
  expect_near(got[0], {B, 5}, logits);
  expect_near(got[1], {B, 3, 3, 2}, pool);
}

TEST(TfImport, ResizeNearestNeighborModes) {
  // TF: source index floor(x*in/out), floor((x+0.5)*in/out) with half_pixel_centers, and
  // round(x*(in-1)/(out-1)) with align_corners.
  std::vector<float> x(1 * 3 * 5 * 1);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  for (auto [align, half] : std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {false, true}}) {
    const int64_t oh = 7, ow = 3;
    GraphDefBuilder b;
    b.placeholder("x", {1, 3, 5, 1});
    b.ints("size", {oh, ow}, {2});
    auto& n = b.node("rs", "ResizeNearestNeighbor", {"x", "size"});
    set_b(n, "align_corners", align);
    set_b(n, "half_pixel_centers", half);
    auto src = [&](int64_t o, int64_t in, int64_t out) {
      if (align) return static_cast<int64_t>(std::round(o * double(in - 1) / double(out - 1)));
      double s = half ? (o + 0.5) * double(in) / double(out) : o * double(in) / double(out);
      return std::min<int64_t>(static_cast<int64_t>(std::floor(s)), in - 1);
    };
    std::vector<float> want;
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) want.push_back(x[src(i, 3, oh) * 5 + src(j, 5, ow)]);
    SCOPED_TRACE(fmt::format("align {} half {}", align, half));
    auto got = run(b.g, {Tensor::from_vector(x, {1, 3, 5, 1})});
    expect_near(got[0], {1, oh, ow, 1}, want, 0);
  }
}

TEST(TfImport, UnsupportedOpsAreListedTogether) {
  GraphDefBuilder b;
  b.placeholder("x", {1, 4});
  b.node("a", "FancyOp", {"x"});
  b.node("b", "OtherOp", {"a"});
  b.node("c", "FancyOp", {"b"});
  try {
    tf_format::import_graphdef(b.g, "bad.pb");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string m = e.what();
    EXPECT_NE(m.find("FancyOp (2 nodes"), std::string::npos) << m;
    EXPECT_NE(m.find("OtherOp (1 node: b)"), std::string::npos) << m;
  }
}

TEST(TfImport, DanglingInputIsInvalid) {
  GraphDefBuilder b;
  b.placeholder("x", {1, 4});
  b.node("r", "Relu", {"missing:0"});
  try {
    tf_format::import_graphdef(b.g, "bad.pb");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("missing:0"), std::string::npos) << e.what();
  }
}

// --- the real TF1 graphs of tests/data/tf ----------------------------------------------------------

// A direct evaluation of the GraphDef with the semantics of TF's MatMul ([M,K]x[K,N]), BiasAdd
// (bias over the last axis), Add/Mul (scalar or same-shape), Relu, Sigmoid and Identity.
struct TfEval {
  std::map<std::string, const ms_tf::NodeDef*> nodes;
  std::map<std::string, std::pair<Shape, std::vector<float>>> memo;

  std::pair<Shape, std::vector<float>> eval(const std::string& name) {
    if (memo.count(name)) return memo[name];
    const auto& n = *nodes.at(name.substr(0, name.find(':')));
    auto in = [&](int i) { return eval(n.input(i)); };
    std::pair<Shape, std::vector<float>> r;
    const std::string& op = n.op();
    if (op == "Const") {
      Tensor t = tf_format::tensor_from_proto(n.attr().at("value").tensor(), name);
      r = {t.shape(), {t.data<float>(), t.data<float>() + t.numel()}};
    } else if (op == "Identity") {
      r = in(0);
    } else if (op == "MatMul") {
      auto a = in(0), b = in(1);
      int64_t M = a.first[0], K = a.first[1], N = b.first[1];
      r = {{M, N}, std::vector<float>(M * N)};
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k) acc += a.second[i * K + k] * b.second[k * N + j];
          r.second[i * N + j] = static_cast<float>(acc);
        }
    } else if (op == "BiasAdd" || op == "Add" || op == "Mul") {
      auto a = in(0), b = in(1);
      r = a;
      for (size_t i = 0; i < r.second.size(); ++i) {
        float bv = b.second.size() == 1 ? b.second[0] : b.second[i % b.second.size()];
        r.second[i] = op == "Mul" ? a.second[i] * bv : a.second[i] + bv;
      }
    } else if (op == "Relu" || op == "Sigmoid") {
      r = in(0);
      for (auto& v : r.second) v = op == "Relu" ? std::max(v, 0.f) : 1.f / (1.f + std::exp(-v));
    } else {
      throw std::runtime_error("reference has no " + op);
    }
    return memo[name] = r;
  }
};

ms_tf::GraphDef read_graph(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  ms_tf::GraphDef g;
  EXPECT_TRUE(g.ParseFromString(ss.str())) << path;
  return g;
}

const std::string kTfData = std::string(MS_SOURCE_DIR) + "/tests/data/tf/";

struct RealCase {
  std::string file, input, output;
  Shape shape;
};

class TfRealGraph : public ::testing::TestWithParam<RealCase> {};

TEST_P(TfRealGraph, RunsToDirectEvaluation) {
  const RealCase& c = GetParam();
  std::string path = kTfData + c.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing (tests/data/tf is part of the repository)";
  ms_tf::GraphDef g = read_graph(path);
  auto x = values(shape_numel(c.shape), 11);
  TfEval ref;
  for (const auto& n : g.node()) ref.nodes[n.name()] = &n;
  ref.memo[c.input] = {c.shape, x};
  auto want = ref.eval(c.output);

  Model m = tf_format::load_tf(path);
  ASSERT_EQ(m.graph.outputs.size(), 1u);
  EXPECT_EQ(m.graph.outputs[0].name, c.output);
  expect_valid_onnx(m, {{c.input, c.shape}});
  Session s(std::make_shared<Model>(m));
  auto got = s.run(std::vector<Value>{Tensor::from_vector(x, c.shape)});
  expect_near(got[0].tensor, want.first, want.second);
}

INSTANTIATE_TEST_SUITE_P(Tf2Onnx, TfRealGraph,
                         ::testing::Values(RealCase{"tf2onnx_fc-layers_frozen.pb", "X", "output", {1, 784}},
                                           RealCase{"tf2onnx_ae0_frozen.pb", "X", "output", {1, 784}},
                                           RealCase{"tf2onnx_regression_graphdef_frozen.pb", "X", "pred", {1}}),
                         [](const auto& info) { return std::to_string(info.index); });

TEST(TfRealGraph, RecurrentGraphsImportWithDropoutInputs) {
  // Unrolled GRU/LSTM with a RandomUniform dropout: no TF reference ships with them, so only the
  // import and a run with keep_prob = 1 (dropout off, deterministic) are checked.
  for (std::string f : {"tf2onnx_gru_frozen.pb", "tf2onnx_lstm_frozen.pb"}) {
    ASSERT_TRUE(std::filesystem::exists(kTfData + f)) << kTfData + f << " is missing";
    Model m = tf_format::load_tf(kTfData + f);
    EXPECT_EQ(m.graph.inputs.size(), 2u) << f;
    EXPECT_EQ(m.graph.outputs.size(), 1u) << f;
    EXPECT_GT(m.graph.nodes.size(), 300u) << f;
    expect_valid_onnx(m, {{"X", {1, 784}}, {"keep_prob", {}}});  // keep_prob: a scalar
  }
}

}  // namespace
}  // namespace ms
