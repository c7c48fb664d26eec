// Quantized models in MindIR: the writer folds the IR's QDQ form into MindSpore's quantization
// parameters (int8 weights with TensorProto.quant_params; activation quant_param on primitives,
// graph_input_quant_param for graph inputs), checked here field by field on the protobuf; the
// reader expands them back into the same QDQ form, so the file runs with the QDQ model's numbers;
// corrupt parameters are refused (exit 2) naming the tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/input_samples.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "quant/calibrate.h"
#include "quant/quantizer.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

using AP = mind_ir::AttributeProto;

Tensor random_tensor(Shape shape, uint32_t seed, float lo, float hi) {
  Tensor t(DType::Float32, shape);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(g);
  return t;
}

// x[1,3,8,8] -> conv1 -> relu r1 -> conv2 -> c2; s = r1 + c2 (r1 read quantized by conv2 and in
// float by the Add, and a graph output); mean over H, W -> Flatten f[1,4] -> MatMul(f, M[4,4])
// and Gemm(f, G[4,4]^T): square weights whose per-channel axis (1 for MatMul, 0 for Gemm transB)
// only the consuming primitive tells.
Model small_cnn() {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "qcnn";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 8, 8})};
  m.graph.outputs = {test::tensor_info("y1", DType::Float32, {1, 4}), test::tensor_info("y2", DType::Float32, {1, 4}),
                     test::tensor_info("r1", DType::Float32, {1, 4, 8, 8})};
  auto& I = m.graph.initializers;
  I["W1"] = random_tensor({4, 3, 3, 3}, 1, -0.5f, 0.5f);
  I["B1"] = random_tensor({4}, 2, -0.1f, 0.1f);
  I["W2"] = random_tensor({4, 4, 3, 3}, 3, -0.3f, 0.3f);
  I["M"] = random_tensor({4, 4}, 4, -1, 1);
  I["G"] = random_tensor({4, 4}, 5, -1, 1);
  Node c1 = test::make_node("Conv", {"x", "W1", "B1"}, {"c1"}, "conv1");
  c1.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node c2 = test::make_node("Conv", {"r1", "W2"}, {"c2"}, "conv2");
  c2.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  // No bias, and ReduceMean rather than GlobalAveragePool: MindIR writes a Gemm's bias as a
  // separate add and GlobalAveragePool as ReduceMean, float forms that sum in another order.
  Node gemm = test::make_node("Gemm", {"f", "G"}, {"y2"}, "gemm");
  Node pool = test::make_node("ReduceMean", {"s"}, {"p"}, "pool");
  pool.attrs["axes"] = Attribute::of_ints({2, 3});
  gemm.attrs["transB"] = Attribute::of_int(1);
  m.graph.nodes = {c1,
                   test::make_node("Relu", {"c1"}, {"r1"}, "relu"),
                   c2,
                   test::make_node("Add", {"r1", "c2"}, {"s"}, "add"),
                   pool,
                   test::make_node("Flatten", {"p"}, {"f"}, "flatten"),
                   test::make_node("MatMul", {"f", "M"}, {"y1"}, "matmul"),
                   gemm};
  return m;
}

Tensor sample(uint32_t seed) { return random_tensor({1, 3, 8, 8}, 100 + seed, -1, 2); }

Model quantized(quant::QuantType type) {
  Model q = small_cnn();
  quant::QuantOptions o;
  o.type = type;
  std::map<std::string, quant::Range> ranges;
  if (type == quant::QuantType::Full) {
    const auto acts = quant::activations_to_calibrate(q, o);
    analysis::InputSamples samples({{6, [](size_t i) { return Value(sample(uint32_t(i))); }, [](size_t i) { return std::to_string(i); }}});
    quant::CalibOptions co;
    co.session.reference_kernels = true;
    ranges = quant::calibrate(q, acts, samples, co);
  }
  quant::quantize_model(q, o, ranges);
  return q;
}

std::vector<Tensor> run(const Model& m, const Tensor& x, bool reference) {
  SessionOptions so;
  so.reference_kernels = reference;
  std::vector<Tensor> r;
  for (auto& v : Session(std::make_shared<const Model>(m), so).run(std::vector<Value>{x})) r.push_back(v.tensor);
  return r;
}

mind_ir::ModelProto to_proto(const Model& m) {
  mind_ir::ModelProto p;
  EXPECT_TRUE(p.ParseFromString(mindir::export_mindir_bytes(m)));
  return p;
}

const mind_ir::TensorProto* param(const mind_ir::ModelProto& p, const std::string& name) {
  for (const auto& t : p.graph().parameter())
    if (t.ref_key() == name) return &t;
  return nullptr;
}

const mind_ir::PrimitiveProto* prim_of(const mind_ir::ModelProto& p, const mind_ir::NodeProto& n) {
  for (const auto& pr : p.primitives())
    if ("REF::" + pr.name() == n.op_type()) return &pr;
  return nullptr;
}

const AP* prim_attr(const mind_ir::PrimitiveProto* p, const std::string& name) {
  if (!p) return nullptr;
  for (const auto& a : p->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Every list MindSpore Lite's QuantParam has, with its element type, `n` elements each.
void expect_linear_quant(const mind_ir::TensorProto_QuantParamProto& q, size_t n, const std::string& what) {
  EXPECT_EQ(q.quant_algo_name(), "linear_quant") << what;
  const std::map<std::string, int> want{{"scale_list", AP::DOUBLE},     {"zero_point_list", AP::INT32}, {"min_list", AP::DOUBLE},
                                        {"max_list", AP::DOUBLE},       {"var_corr_list", AP::FLOAT},   {"mean_corr_list", AP::FLOAT},
                                        {"num_bit_list", AP::INT32},    {"narrow_range_list", AP::BOOL}, {"dst_dtype_list", AP::INT32},
                                        {"round_type_list", AP::INT32}, {"multiplier_list", AP::INT32}};
  std::set<std::string> seen;
  for (const auto& a : q.attribute()) {
    seen.insert(a.name());
    ASSERT_TRUE(want.count(a.name())) << what << ": unexpected attribute " << a.name();
    EXPECT_EQ(a.type(), AP::LIST) << what << " " << a.name();
    ASSERT_EQ(size_t(a.values_size()), n) << what << " " << a.name();
    for (const auto& e : a.values()) {
      EXPECT_EQ(e.type(), want.at(a.name())) << what << " " << a.name();
      const int values = e.type() == AP::DOUBLE ? e.doubles_size() : e.type() == AP::FLOAT ? e.floats_size() : e.ints_size();
      EXPECT_EQ(values, 1) << what << " " << a.name();
    }
  }
  EXPECT_EQ(seen.size(), want.size()) << what;
}

std::vector<double> list(const mind_ir::TensorProto_QuantParamProto& q, const std::string& name) {
  std::vector<double> r;
  for (const auto& a : q.attribute())
    if (a.name() == name)
      for (const auto& e : a.values())
        r.push_back(e.type() == AP::DOUBLE ? e.doubles(0) : e.type() == AP::FLOAT ? e.floats(0) : double(e.ints(0)));
  return r;
}

int count_ops(const Model& m, const std::string& op) {
  int n = 0;
  for (const auto& node : m.graph.nodes) n += node.op_type == op;
  return n;
}

TEST(MindirQuantParams, FullQuantWeightsAreInt8ParametersWithPerChannelLists) {
  const Model q = quantized(quant::QuantType::Full);
  const Model fp = small_cnn();
  const auto p = to_proto(q);
  // Output channels of each weight, from the float model: Conv OIHW axis 0, MatMul [K,N] axis 1,
  // Gemm transB [N,K] axis 0.
  const std::map<std::string, int> axis{{"W1", 0}, {"W2", 0}, {"M", 1}, {"G", 0}};
  for (const auto& [name, ax] : axis) {
    const mind_ir::TensorProto* t = param(p, name);
    ASSERT_NE(t, nullptr) << name;
    const Tensor& w = fp.graph.initializers.at(name);
    EXPECT_EQ(t->data_type(), mind_ir::TensorProto::INT8) << name;
    ASSERT_EQ(t->raw_data().size(), size_t(w.numel())) << name << ": weights stored as int8 bytes";
    ASSERT_EQ(t->quant_params_size(), 1) << name;
    const auto& qp = t->quant_params(0);
    expect_linear_quant(qp, size_t(w.dim(ax)), name);
    // The integers and scales reproduce the float weight within half a step, along `ax`.
    const auto scale = list(qp, "scale_list"), zp = list(qp, "zero_point_list");
    const auto* raw = reinterpret_cast<const int8_t*>(t->raw_data().data());
    const int64_t inner = [&] { int64_t s = 1; for (int k = ax + 1; k < w.rank(); ++k) s *= w.dim(k); return s; }();
    for (int64_t i = 0; i < w.numel(); ++i) {
      const int64_t c = (i / inner) % w.dim(ax);
      EXPECT_NEAR((raw[i] - zp[c]) * scale[c], w.data<float>()[i], scale[c] / 2 + 1e-7) << name << "[" << i << "]";
    }
    for (double z : zp) EXPECT_EQ(z, 0) << name;
    for (double b : list(qp, "num_bit_list")) EXPECT_EQ(b, 8) << name;
    for (double r : list(qp, "narrow_range_list")) EXPECT_EQ(r, 1) << name << ": symmetric weights use [-127, 127]";
    for (double d : list(qp, "dst_dtype_list")) EXPECT_EQ(d, 32) << name << ": TypeId Int8";
    const auto mn = list(qp, "min_list"), mx = list(qp, "max_list");
    for (size_t c = 0; c < scale.size(); ++c) {
      EXPECT_DOUBLE_EQ(mn[c], -127 * scale[c]) << name;
      EXPECT_DOUBLE_EQ(mx[c], 127 * scale[c]) << name;
    }
  }
  for (const auto& pr : p.primitives()) {
    EXPECT_NE(pr.op_type(), "QuantizeLinear") << "every QDQ pair folds in this model";
    EXPECT_NE(pr.op_type(), "DequantizeLinear");
  }
}

TEST(MindirQuantParams, ActivationParamsSitOnProducerGraphInputConsumerAndIdentity) {
  const Model q = quantized(quant::QuantType::Full);
  const auto& I = q.graph.initializers;
  const auto p = to_proto(q);
  auto scale_of = [&](const std::string& v) { return double(I.at(v + "_scale").data<float>()[0]); };
  auto zp_of = [&](const std::string& v) { return double(I.at(v + "_zero_point").data<uint8_t>()[0]); };
  auto check = [&](const mind_ir::TensorProto_QuantParamProto& qp, const std::string& v) {
    expect_linear_quant(qp, 1, v);
    EXPECT_EQ(list(qp, "scale_list")[0], scale_of(v)) << v;
    EXPECT_EQ(list(qp, "zero_point_list")[0], zp_of(v)) << v;
    EXPECT_EQ(list(qp, "dst_dtype_list")[0], 37) << v << ": uint8 activations, TypeId UInt8";
    EXPECT_EQ(list(qp, "narrow_range_list")[0], 0) << v;
  };
  int graph_input = 0, identity = 0, producer = 0;
  for (const auto& n : p.graph().node()) {
    const auto* pr = prim_of(p, n);
    if (const AP* a = prim_attr(pr, "graph_input_quant_param")) {  // conv1 reading x
      ++graph_input;
      EXPECT_EQ(pr->op_type(), "Conv2D");
      EXPECT_EQ(n.input(0), "qcnn:x");
      EXPECT_EQ(a->type(), AP::TENSORS);
      ASSERT_EQ(a->tensors_size(), 1);
      EXPECT_EQ(a->tensors(0).name(), "graph_input_quant_param");
      ASSERT_EQ(a->tensors(0).quant_params_size(), 1);
      check(a->tensors(0).quant_params(0), "x");
    }
    if (const AP* a = prim_attr(pr, "quant_param")) {
      EXPECT_EQ(a->type(), AP::LIST);
      ASSERT_EQ(a->values_size(), 1);
      const AP& e = a->values(0);
      EXPECT_EQ(e.type(), AP::TENSORS);
      ASSERT_EQ(e.tensors_size(), 1);
      EXPECT_EQ(e.tensors(0).name(), "quant_param");
      ASSERT_EQ(e.tensors(0).quant_params_size(), 1);
      if (pr->op_type() == "Identity") {  // r1: also read in float by the Add and a graph output
        ++identity;
        check(e.tensors(0).quant_params(0), "r1");
      } else {  // f: read only through its QDQ pair, so Flatten's own output is quantized
        ++producer;
        EXPECT_EQ(pr->op_type(), "Flatten");
        check(e.tensors(0).quant_params(0), "f");
      }
    }
  }
  EXPECT_EQ(graph_input, 1);
  EXPECT_EQ(identity, 1);
  EXPECT_EQ(producer, 1);
  // conv2's Conv2D has the same attributes as conv1's: it must not share conv1's primitive.
  int conv_prims = 0;
  for (const auto& pr : p.primitives()) conv_prims += pr.op_type() == "Conv2D";
  EXPECT_EQ(conv_prims, 2);
}

TEST(MindirQuantParams, ReadBackAsTheSameQdqFormWithIdenticalOutputs) {
  for (auto type : {quant::QuantType::Full, quant::QuantType::Weight}) {
    const Model q = quantized(type);
    const Model back = mindir::import_mindir_bytes(mindir::export_mindir_bytes(q), "q.mindir");
    EXPECT_EQ(count_ops(back, "QuantizeLinear"), count_ops(q, "QuantizeLinear"));
    EXPECT_EQ(count_ops(back, "DequantizeLinear"), count_ops(q, "DequantizeLinear"));
    for (uint32_t s : {0u, 40u}) {
      const Tensor x = sample(s);
      for (bool reference : {true, false}) {
        const auto a = run(q, x, reference), b = run(back, x, reference);
        ASSERT_EQ(a.size(), b.size());
        for (size_t k = 0; k < a.size(); ++k) {
          ASSERT_EQ(a[k].shape(), b[k].shape());
          for (int64_t i = 0; i < a[k].numel(); ++i)
            ASSERT_EQ(a[k].data<float>()[i], b[k].data<float>()[i]) << "output " << k << "[" << i << "] reference=" << reference;
        }
      }
    }
  }
}

TEST(MindirQuantParams, WeightAxisTheConsumerDoesNotNameStaysAnExplicitDequantize) {
  // MatMul(x, W) with W [4,4] per channel along axis 0: MindSpore would read axis 1 (the MatMul's
  // columns), so the weight must not fold.
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "ax";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 4})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {2, 4})};
  std::vector<int8_t> q(16);
  for (int i = 0; i < 16; ++i) q[i] = int8_t(i * 7 % 19 - 9);
  m.graph.initializers["Wq"] = Tensor::from_vector<int8_t>(q, {4, 4});
  m.graph.initializers["Ws"] = Tensor::from_vector<float>({0.5f, 0.25f, 0.125f, 1.f}, {4});
  Node dq = test::make_node("DequantizeLinear", {"Wq", "Ws"}, {"W"}, "dq");
  dq.attrs["axis"] = Attribute::of_int(0);
  m.graph.nodes = {dq, test::make_node("MatMul", {"x", "W"}, {"y"}, "mm")};
  const auto p = to_proto(m);
  const mind_ir::TensorProto* w = param(p, "Wq");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->quant_params_size(), 0);
  EXPECT_EQ(param(p, "W"), nullptr);
  const Model back = mindir::import_mindir_bytes(p.SerializeAsString(), "ax.mindir");
  const Tensor x = random_tensor({2, 4}, 9, -1, 1);
  // y[r][n] = sum_k x[r][k] * q[k][n] * s[k]
  const auto y = run(back, x, true)[0];
  for (int r = 0; r < 2; ++r)
    for (int n = 0; n < 4; ++n) {
      double want = 0;
      for (int k = 0; k < 4; ++k) want += x.data<float>()[r * 4 + k] * q[k * 4 + n] * m.graph.initializers["Ws"].data<float>()[k];
      EXPECT_NEAR(y.data<float>()[r * 4 + n], want, 1e-5);
    }
}

class MindirQuantCorrupt : public ::testing::Test {
 protected:
  void SetUp() override { p = to_proto(quantized(quant::QuantType::Full)); }
  mind_ir::TensorProto_QuantParamProto& w1() {
    for (auto& t : *p.mutable_graph()->mutable_parameter())
      if (t.ref_key() == "W1") return *t.mutable_quant_params(0);
    throw std::runtime_error("no W1");
  }
  AP& attr(const std::string& name) {
    for (auto& a : *w1().mutable_attribute())
      if (a.name() == name) return a;
    throw std::runtime_error("no " + name);
  }
  void expect_refused(const std::string& must_say) {
    try {
      mindir::import_mindir_bytes(p.SerializeAsString(), "bad.mindir");
      FAIL() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
      EXPECT_NE(std::string(e.what()).find("W1"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(must_say), std::string::npos) << e.what();
    }
  }
  mind_ir::ModelProto p;
};

TEST_F(MindirQuantCorrupt, NonListAttributeIsRefusedNamingTheTensor) {
  AP& s = attr("scale_list");
  const double v = s.values(0).doubles(0);
  s.clear_values();
  s.set_type(AP::DOUBLE);
  s.set_d(v);
  expect_refused("scale_list");
}

TEST_F(MindirQuantCorrupt, WrongElementCountIsRefusedNamingTheTensor) {
  attr("zero_point_list").mutable_values()->RemoveLast();
  expect_refused("zero_point_list");
}

TEST_F(MindirQuantCorrupt, WrongElementTypeIsRefusedNamingTheTensor) {
  attr("narrow_range_list").mutable_values(0)->set_type(AP::STRING);
  expect_refused("narrow_range_list");
}

TEST_F(MindirQuantCorrupt, ChannelCountNoAxisHasIsRefused) {
  for (auto& a : *w1().mutable_attribute()) a.mutable_values()->RemoveLast();  // 3 channels for a [4,3,3,3] weight
  expect_refused("3 channels");
}

TEST_F(MindirQuantCorrupt, PrimitiveQuantParamThatIsNotAListIsRefused) {
  for (auto& pr : *p.mutable_primitives())
    for (auto& a : *pr.mutable_attribute())
      if (a.name() == "quant_param") a.set_type(AP::TENSORS);
  try {
    mindir::import_mindir_bytes(p.SerializeAsString(), "bad.mindir");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("quant_param"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ms
