// Scan, GRU and RNN are written as MindSpore writes a `while t < n` loop (Switch over recursive
// function graphs, per-step Gather, stacking with Concat of ExpandDims, the GRU/RNN cell in
// primitives) and read back into an IR Loop. The Scan values are checked against sums computed
// here by hand; GRU/RNN variants against the IR's reference kernels run on the original node.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

std::vector<Value> run_reference(const Model& m, const std::vector<Value>& feeds) {
  SessionOptions o;
  o.reference_kernels = true;
  return Session(std::make_shared<const Model>(m), o).run(feeds);
}

Tensor wave(Shape s, float scale, int seed) {
  Tensor t(DType::Float32, s);
  for (int64_t k = 0; k < t.numel(); ++k) t.data<float>()[k] = scale * std::sin(0.7f * static_cast<float>(k + seed));
  return t;
}

std::set<std::string> primitive_types(const mind_ir::ModelProto& p) {
  std::set<std::string> r;
  for (const auto& pr : p.primitives()) r.insert(pr.op_type());
  return r;
}

// Every node is a Constant or a REF:: to a primitive or a function graph; every function input is
// typed (the loop header's state); the loop is a header/body/exit triple whose body calls the header.
void expect_mindspore_loop_structure(const mind_ir::ModelProto& p, size_t loops) {
  std::set<std::string> prims, functions;
  for (const auto& pr : p.primitives()) prims.insert(pr.name());
  for (const auto& f : p.functions()) functions.insert(f.name());
  EXPECT_EQ(functions.size(), 3 * loops);
  auto check_nodes = [&](const mind_ir::GraphProto& g) {
    for (const auto& n : g.node()) {
      if (n.op_type() == "Constant") continue;
      ASSERT_EQ(n.op_type().rfind("REF::", 0), 0u) << n.op_type();
      std::string target = n.op_type().substr(5);
      bool known = prims.count(target) || functions.count(target);
      // a call of a Switch's result: REF::<node output name>
      for (const auto& m : g.node())
        if (m.output_size() && m.output(0) == target) known = true;
      EXPECT_TRUE(known) << g.name() << ": " << n.op_type();
    }
  };
  check_nodes(p.graph());
  size_t headers = 0;
  for (const auto& f : p.functions()) {
    check_nodes(f);
    for (const auto& in : f.input()) {
      ASSERT_EQ(in.tensor_size(), 1) << f.name() << " input " << in.name();
      EXPECT_TRUE(in.tensor(0).has_data_type()) << in.name();
    }
    if (f.input_size() > 0) ++headers;
  }
  EXPECT_EQ(headers, loops);
  EXPECT_EQ(p.graph().output_size(), 1);
}

// state s [2]; scan inputs a = x1[t] (axis 0), b = x2[:, T-1-t] (axis 1, reverse);
// s' = s + a + b; outputs: s' stacked on axis 1 ([2, T]), a * b * gain (gain: an outer-scope
// initializer) stacked in reverse on axis 0.
Model scan9_model() {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {test::tensor_info("s", DType::Float32, {2}), test::tensor_info("a", DType::Float32, {2}),
                  test::tensor_info("b", DType::Float32, {2})};
  body->nodes = {test::make_node("Add", {"s", "a"}, {"sa"}, "add_a"), test::make_node("Add", {"sa", "b"}, {"s_out"}, "add_b"),
                 test::make_node("Identity", {"s_out"}, {"running"}, "record"),
                 test::make_node("Mul", {"a", "b"}, {"ab"}, "product"), test::make_node("Mul", {"ab", "gain"}, {"prod"}, "scaled")};
  body->outputs = {test::tensor_info("s_out", DType::Float32, {2}), test::tensor_info("running", DType::Float32, {2}),
                   test::tensor_info("prod", DType::Float32, {2})};
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "scan9";
  m.graph.inputs = {test::tensor_info("init", DType::Float32, {2}), test::tensor_info("x1", DType::Float32, {3, 2}),
                    test::tensor_info("x2", DType::Float32, {2, 3})};
  m.graph.initializers["gain"] = Tensor::scalar<float>(2.f);
  Node scan = test::make_node("Scan", {"init", "x1", "x2"}, {"final", "runs", "prods"}, "scan_node");
  scan.attrs["body"] = Attribute::of_graph(body);
  scan.attrs["num_scan_inputs"] = Attribute::of_int(2);
  scan.attrs["scan_input_axes"] = Attribute::of_ints({0, 1});
  scan.attrs["scan_input_directions"] = Attribute::of_ints({0, 1});
  scan.attrs["scan_output_axes"] = Attribute::of_ints({1, 0});
  scan.attrs["scan_output_directions"] = Attribute::of_ints({0, 1});
  m.graph.nodes = {scan};
  m.graph.outputs = {{"final", {}}, {"runs", {}}, {"prods", {}}};
  return m;
}

TEST(MindirRecurrence, ScanWithAxesAndDirectionsRoundTrips) {
  Model m = scan9_model();
  std::string bytes = mindir::export_mindir_bytes(m);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  expect_mindspore_loop_structure(p, 1);
  auto prims = primitive_types(p);
  for (const char* want : {"Switch", "Less", "Gather", "Concat", "ExpandDims", "Transpose", "Sub"}) EXPECT_TRUE(prims.count(want)) << want;
  EXPECT_FALSE(prims.count("Scan"));

  Model back = mindir::import_mindir_bytes(bytes, "scan9.mindir");
  bool has_loop = false;
  for (const auto& n : back.graph.nodes) has_loop = has_loop || n.op_type == "Loop";
  EXPECT_TRUE(has_loop);

  const float init[2] = {0.5f, -1.f};
  const float x1[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  const float x2[2][3] = {{10, 20, 30}, {-1, -2, -3}};
  auto outs = run_reference(back, {Value(Tensor::from_vector<float>({init[0], init[1]}, {2})),
                                   Value(Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})),
                                   Value(Tensor::from_vector<float>({10, 20, 30, -1, -2, -3}, {2, 3}))});
  ASSERT_EQ(outs.size(), 3u);
  // By hand: step t takes a = x1[t], b = x2[:, 2 - t].
  float s[2] = {init[0], init[1]}, runs[2][3], prods[3][2];
  for (int t = 0; t < 3; ++t)
    for (int k = 0; k < 2; ++k) {
      float a = x1[t][k], b = x2[k][2 - t];
      s[k] += a + b;
      runs[k][t] = s[k];
      prods[2 - t][k] = a * b * 2.f;  // reverse output: the last step comes first
    }
  ASSERT_EQ(outs[0].tensor.shape(), (Shape{2}));
  ASSERT_EQ(outs[1].tensor.shape(), (Shape{2, 3}));
  ASSERT_EQ(outs[2].tensor.shape(), (Shape{3, 2}));
  for (int k = 0; k < 2; ++k) EXPECT_FLOAT_EQ(outs[0].tensor.data<float>()[k], s[k]);
  for (int k = 0; k < 6; ++k) {
    EXPECT_FLOAT_EQ(outs[1].tensor.data<float>()[k], runs[k / 3][k % 3]) << k;
    EXPECT_FLOAT_EQ(outs[2].tensor.data<float>()[k], prods[k / 2][k % 2]) << k;
  }
}

// Opset-8 Scan: axis 0 is the batch; each row is scanned on its own, in reverse here.
TEST(MindirRecurrence, Opset8ScanScansEveryBatchRow) {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {test::tensor_info("s", DType::Float32, {2}), test::tensor_info("a", DType::Float32, {2})};
  body->nodes = {test::make_node("Add", {"s", "a"}, {"s_out"}, "acc"), test::make_node("Identity", {"s_out"}, {"y"}, "rec")};
  body->outputs = {test::tensor_info("s_out", DType::Float32, {2}), test::tensor_info("y", DType::Float32, {2})};
  Model m;
  m.opsets[""] = 8;
  m.graph.name = "scan8";
  m.graph.inputs = {test::tensor_info("init", DType::Float32, {2, 2}), test::tensor_info("x", DType::Float32, {2, 3, 2})};
  Node scan = test::make_node("Scan", {"", "init", "x"}, {"final", "ys"}, "scan8_node");
  scan.attrs["body"] = Attribute::of_graph(body);
  scan.attrs["num_scan_inputs"] = Attribute::of_int(1);
  scan.attrs["directions"] = Attribute::of_ints({1});
  m.graph.nodes = {scan};
  m.graph.outputs = {{"final", {}}, {"ys", {}}};

  std::string bytes = mindir::export_mindir_bytes(m);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  expect_mindspore_loop_structure(p, 2);  // rows, and the scan inside

  Tensor init = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  Tensor x = wave({2, 3, 2}, 2.f, 1);
  auto outs = run_reference(mindir::import_mindir_bytes(bytes, "scan8.mindir"), {Value(init), Value(x)});
  ASSERT_EQ(outs.size(), 2u);
  ASSERT_EQ(outs[1].tensor.shape(), (Shape{2, 3, 2}));
  const float* xv = x.data<float>();
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 2; ++k) {
      float s = init.data<float>()[b * 2 + k];
      for (int t = 2; t >= 0; --t) {
        s += xv[(b * 3 + t) * 2 + k];
        EXPECT_FLOAT_EQ(outs[1].tensor.data<float>()[(b * 3 + (2 - t)) * 2 + k], s) << b << "," << t << "," << k;
      }
      EXPECT_FLOAT_EQ(outs[0].tensor.data<float>()[b * 2 + k], s);
    }
}

struct RecurrentCase {
  std::string op, direction;
  int64_t lbr = 0, layout = 0;
  bool bias = true, seq_lens = false, initial_h = false, clip = false;
  std::vector<std::string> activations = {};
};
void PrintTo(const RecurrentCase& c, std::ostream* os) { *os << c.op << " " << c.direction; }

class MindirRecurrentOps : public ::testing::TestWithParam<RecurrentCase> {};

TEST_P(MindirRecurrentOps, WrittenAsALoopOfTheCellAndMatchTheReferenceKernel) {
  const RecurrentCase& tc = GetParam();
  const int64_t T = 4, B = 3, I = 2, H = 5, D = tc.direction == "bidirectional" ? 2 : 1, G = tc.op == "GRU" ? 3 : 1;
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "rec";
  Shape xs = tc.layout ? Shape{B, T, I} : Shape{T, B, I};
  m.graph.inputs = {test::tensor_info("X", DType::Float32, xs), test::tensor_info("W", DType::Float32, {D, G * H, I})};
  m.graph.initializers["R"] = wave({D, G * H, H}, 0.4f, 2);
  std::vector<std::string> ins{"X", "W", "R", "", "", ""};
  if (tc.bias) {
    m.graph.initializers["B"] = wave({D, 2 * G * H}, 0.3f, 3);
    ins[3] = "B";
  }
  if (tc.seq_lens) {
    m.graph.initializers["L"] = Tensor::from_vector<int32_t>({4, 1, 3}, {B});
    ins[4] = "L";
  }
  if (tc.initial_h) {
    m.graph.inputs.push_back(test::tensor_info("H0", DType::Float32, tc.layout ? Shape{B, D, H} : Shape{D, B, H}));
    ins[5] = "H0";
  }
  while (!ins.empty() && ins.back().empty()) ins.pop_back();
  Node n = test::make_node(tc.op, ins, {"Y", "Y_h"}, "rec_node");
  n.attrs["hidden_size"] = Attribute::of_int(H);
  n.attrs["direction"] = Attribute::of_string(tc.direction);
  n.attrs["layout"] = Attribute::of_int(tc.layout);
  if (tc.op == "GRU") n.attrs["linear_before_reset"] = Attribute::of_int(tc.lbr);
  if (tc.clip) n.attrs["clip"] = Attribute::of_float(0.6f);
  if (!tc.activations.empty()) n.attrs["activations"] = Attribute::of_strings(tc.activations);
  m.graph.nodes = {n};
  m.graph.outputs = {{"Y", {}}, {"Y_h", {}}};

  std::string bytes = mindir::export_mindir_bytes(m);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  expect_mindspore_loop_structure(p, static_cast<size_t>(D));
  auto prims = primitive_types(p);
  EXPECT_FALSE(prims.count(tc.op));
  for (const char* want : {"Switch", "MatMul", "Gather", "Concat"}) EXPECT_TRUE(prims.count(want)) << want;
  // MatMul as MindSpore writes it: bool transpose flags, x W^T.
  for (const auto& pr : p.primitives())
    if (pr.op_type() == "MatMul")
      for (const auto& a : pr.attribute())
        if (a.name() == "transpose_b") {
          EXPECT_EQ(a.type(), mind_ir::AttributeProto::BOOL);
          EXPECT_EQ(a.i(), 1);
        }

  std::vector<Value> feeds{Value(wave(xs, 1.f, 4)), Value(wave({D, G * H, I}, 0.5f, 1))};
  if (tc.initial_h) feeds.push_back(Value(wave(tc.layout ? Shape{B, D, H} : Shape{D, B, H}, 0.8f, 5)));
  auto want = run_reference(m, feeds);
  auto got = run_reference(mindir::import_mindir_bytes(bytes, "rec.mindir"), feeds);
  ASSERT_EQ(got.size(), 2u);
  for (size_t o = 0; o < 2; ++o) {
    ASSERT_EQ(got[o].tensor.shape(), want[o].tensor.shape()) << o;
    for (int64_t k = 0; k < want[o].tensor.numel(); ++k)
      EXPECT_NEAR(got[o].tensor.as_double(k), want[o].tensor.as_double(k), 2e-6) << "output " << o << " element " << k;
  }
}

std::string case_name(const ::testing::TestParamInfo<RecurrentCase>& info) {
  const RecurrentCase& c = info.param;
  std::string n = c.op + "_" + c.direction + (c.lbr ? "_lbr" : "") + (c.layout ? "_batchfirst" : "") + (c.bias ? "" : "_nobias") +
                  (c.seq_lens ? "_seqlens" : "") + (c.initial_h ? "_h0" : "") + (c.clip ? "_clip" : "");
  for (const auto& a : c.activations) n += "_" + a;
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    Variants, MindirRecurrentOps,
    ::testing::Values(RecurrentCase{.op = "GRU", .direction = "forward"}, RecurrentCase{.op = "GRU", .direction = "forward", .lbr = 1},
                      RecurrentCase{.op = "GRU", .direction = "reverse", .bias = false},
                      RecurrentCase{.op = "GRU", .direction = "bidirectional", .lbr = 1, .layout = 1, .seq_lens = true, .initial_h = true},
                      RecurrentCase{.op = "GRU", .direction = "bidirectional", .seq_lens = true, .clip = true,
                                    .activations = {"Sigmoid", "Relu", "Relu", "Tanh"}},
                      RecurrentCase{.op = "RNN", .direction = "forward"},
                      RecurrentCase{.op = "RNN", .direction = "reverse", .seq_lens = true, .initial_h = true},
                      RecurrentCase{.op = "RNN", .direction = "bidirectional", .layout = 1, .bias = false, .seq_lens = true,
                                    .initial_h = true, .clip = true, .activations = {"Relu", "Tanh"}}),
    case_name);

TEST(MindirRecurrence, ActivationWithoutANnCellFormIsRefusedNamingTheNode) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "rec";
  m.graph.inputs = {test::tensor_info("X", DType::Float32, {2, 1, 2})};
  m.graph.initializers["W"] = wave({1, 3, 2}, 0.5f, 1);
  m.graph.initializers["R"] = wave({1, 3, 3}, 0.5f, 2);
  Node n = test::make_node("RNN", {"X", "W", "R"}, {"Y"}, "odd_rnn");
  n.attrs["hidden_size"] = Attribute::of_int(3);
  n.attrs["activations"] = Attribute::of_strings({"HardSigmoid"});
  m.graph.nodes = {n};
  m.graph.outputs = {{"Y", {}}};
  try {
    mindir::export_mindir_bytes(m);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string msg = e.what();
    EXPECT_NE(msg.find("odd_rnn"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HardSigmoid"), std::string::npos) << msg;
  }
}

// nn.GRU exported on GPU: CudnnGRU(x, h, w) / GRUV2(x, h, w, seq_lengths), written here by hand the
// way MindSpore's exporter writes a primitive call; the values come from a plain loop over the
// cuDNN / PyTorch cell (gates r, z, n; n = tanh(W_n x + b_in + r (R_n h + b_hn))).
mind_ir::ModelProto fused_gru_file(const std::string& prim, int64_t T, int64_t B, int64_t I, int64_t H, const std::vector<float>& w,
                                   const std::vector<int32_t>& lens) {
  mind_ir::ModelProto p;
  p.set_ir_version("0.1.1");
  p.set_producer_name("MindSpore");
  p.set_model_version("2.2.0");
  p.set_little_endian(true);
  p.set_mind_ir_version(1);
  auto* g = p.mutable_graph();
  g->set_name("gru_graph");
  auto dims = [](mind_ir::TensorProto* t, std::vector<int64_t> d, int type) {
    for (int64_t x : d) t->add_dims(x);
    t->set_data_type(type);
  };
  for (auto [name, d] : {std::pair<const char*, std::vector<int64_t>>{"x", {T, B, I}}, {"h", {1, B, H}}}) {
    auto* in = g->add_input();
    in->set_name(std::string("gru_graph:") + name);
    dims(in->add_tensor(), d, mind_ir::TensorProto::FLOAT);
  }
  auto* pw = g->add_parameter();
  pw->set_name("gru_graph:w");
  dims(pw, {static_cast<int64_t>(w.size()), 1, 1}, mind_ir::TensorProto::FLOAT);
  pw->set_raw_data(std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float)));
  auto prim_def = [&](const std::string& name, const std::string& type) {
    auto* pr = p.add_primitives();
    pr->set_name(name);
    pr->set_op_type(type);
    return pr;
  };
  auto* pr = prim_def(prim + ":1", prim);
  auto attr = [&](const char* n, mind_ir::AttributeProto::AttributeType t, int64_t i, float f = 0) {
    auto* a = pr->add_attribute();
    a->set_name(n);
    a->set_type(t);
    if (t == mind_ir::AttributeProto::FLOAT) a->set_f(f);
    else a->set_i(i);
  };
  attr("input_size", mind_ir::AttributeProto::INT64, I);
  attr("hidden_size", mind_ir::AttributeProto::INT64, H);
  attr("num_layers", mind_ir::AttributeProto::INT64, 1);
  attr("has_bias", mind_ir::AttributeProto::BOOL, 1);
  attr("bidirectional", mind_ir::AttributeProto::BOOL, 0);
  attr("dropout", mind_ir::AttributeProto::FLOAT, 0, 0.f);
  prim_def("TupleGetItem:2", "TupleGetItem");
  prim_def("MakeTuple:3", "MakeTuple");
  auto* n = g->add_node();
  n->add_input("gru_graph:x");
  n->add_input("gru_graph:h");
  n->add_input("gru_graph:w");
  if (!lens.empty()) {
    auto* pl = g->add_parameter();
    pl->set_name("gru_graph:seq_lengths");
    dims(pl, {B}, mind_ir::TensorProto::INT32);
    pl->set_raw_data(std::string(reinterpret_cast<const char*>(lens.data()), lens.size() * sizeof(int32_t)));
    n->add_input("gru_graph:seq_lengths");
  }
  n->add_output("gru_graph:gru:4");
  n->set_name("gru_graph:gru:4");
  n->set_op_type("REF::" + prim + ":1");
  std::vector<std::string> items;
  for (int k = 0; k < 2; ++k) {
    auto* c = g->add_node();
    c->add_output("index" + std::to_string(k));
    c->set_name("index" + std::to_string(k));
    c->set_op_type("Constant");
    auto* v = c->add_attribute();
    v->set_name("value");
    v->set_type(mind_ir::AttributeProto::INT64);
    v->set_i(k);
    auto* gi = g->add_node();
    gi->add_input("gru_graph:gru:4");
    gi->add_input("index" + std::to_string(k));
    items.push_back("gru_graph:item:" + std::to_string(5 + k));
    gi->add_output(items.back());
    gi->set_name(items.back());
    gi->set_op_type("REF::TupleGetItem:2");
    auto* sa = gi->add_attribute();
    sa->set_name("shape");
    sa->set_type(mind_ir::AttributeProto::TENSORS);
    dims(sa->add_tensors(), k == 0 ? std::vector<int64_t>{T, B, H} : std::vector<int64_t>{1, B, H}, mind_ir::TensorProto::FLOAT);
  }
  auto* mt = g->add_node();
  for (const auto& i : items) mt->add_input(i);
  mt->add_output("gru_graph:out:8");
  mt->set_name("gru_graph:out:8");
  mt->set_op_type("REF::MakeTuple:3");
  g->add_output()->set_name("gru_graph:out:8");
  return p;
}

TEST(MindirRecurrence, FusedGruPrimitivesReadAsTheCudnnCell) {
  const int64_t T = 3, B = 2, I = 2, H = 3;
  std::vector<float> w(3 * H * I + 3 * H * H + 6 * H);
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.5f * std::sin(0.7f * static_cast<float>(k) + 1.f);
  Tensor x = wave({T, B, I}, 1.f, 3), h0 = wave({1, B, H}, 0.6f, 7);
  for (const auto& [prim, lens] : {std::pair<std::string, std::vector<int32_t>>{"CudnnGRU", {}}, {"GRUV2", {3, 1}}}) {
    std::string bytes;
    ASSERT_TRUE(fused_gru_file(prim, T, B, I, H, w, lens).SerializeToString(&bytes));
    auto outs = run_reference(mindir::import_mindir_bytes(bytes, prim + ".mindir"), {Value(x), Value(h0)});
    ASSERT_EQ(outs.size(), 2u) << prim;
    ASSERT_EQ(outs[0].tensor.shape(), (Shape{T, B, H})) << prim;
    ASSERT_EQ(outs[1].tensor.shape(), (Shape{1, B, H})) << prim;
    const float* W_ih = w.data();
    const float* W_hh = W_ih + 3 * H * I;
    const float* b_ih = W_hh + 3 * H * H;
    const float* b_hh = b_ih + 3 * H;
    auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(H);
      for (int64_t j = 0; j < H; ++j) h[j] = h0.data<float>()[b * H + j];
      const int64_t len = lens.empty() ? T : lens[b];
      for (int64_t t = 0; t < T; ++t) {
        const float* xt = x.data<float>() + (t * B + b) * I;
        std::vector<double> next(H);
        for (int64_t j = 0; j < H; ++j) {
          double gx[3], gh[3];  // r, z, n rows j, H + j, 2H + j
          for (int q = 0; q < 3; ++q) {
            gx[q] = b_ih[q * H + j];
            gh[q] = b_hh[q * H + j];
            for (int64_t i = 0; i < I; ++i) gx[q] += W_ih[(q * H + j) * I + i] * xt[i];
            for (int64_t i = 0; i < H; ++i) gh[q] += W_hh[(q * H + j) * H + i] * h[i];
          }
          double r = sigmoid(gx[0] + gh[0]), z = sigmoid(gx[1] + gh[1]), nn = std::tanh(gx[2] + r * gh[2]);
          next[j] = (1 - z) * nn + z * h[j];
        }
        for (int64_t j = 0; j < H; ++j) {
          const double y = t < len ? next[j] : 0.0;  // outputs past the sequence are zero, the state holds
          EXPECT_NEAR(outs[0].tensor.data<float>()[(t * B + b) * H + j], y, 1e-5) << prim << " t" << t << " b" << b << " j" << j;
        }
        if (t < len) h = next;
      }
      for (int64_t j = 0; j < H; ++j) EXPECT_NEAR(outs[1].tensor.data<float>()[b * H + j], h[j], 1e-5) << prim << " h_n b" << b;
    }
  }
}

}  // namespace
}  // namespace ms
