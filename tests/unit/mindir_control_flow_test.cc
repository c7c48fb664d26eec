// If and Loop are written the way MindSpore represents control flow (Switch over function graphs,
// loops as tail recursion of function graphs) and read back into If / Loop; the values are checked
// against hand-computed ones.
#include <gtest/gtest.h>

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

// y, scan = Loop(M = 3, cond = true, v = x) with body v_out = v * 2, scan_out = v; then
// z = If(flag, then: y + 1, else: y - 1).
Model loop_if_model() {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {test::tensor_info("iter", DType::Int64, {}), test::tensor_info("cond_in", DType::Bool, {}),
                  test::tensor_info("v_in", DType::Float32, {2})};
  body->initializers["two"] = Tensor::scalar<float>(2.f);
  body->nodes = {test::make_node("Identity", {"cond_in"}, {"cond_out"}, "keep_going"),
                 test::make_node("Mul", {"v_in", "two"}, {"v_out"}, "double"),
                 test::make_node("Identity", {"v_in"}, {"scan_out"}, "record")};
  body->outputs = {test::tensor_info("cond_out", DType::Bool, {}), test::tensor_info("v_out", DType::Float32, {2}),
                   test::tensor_info("scan_out", DType::Float32, {2})};
  auto branch = [](const std::string& name, const std::string& op) {
    auto g = std::make_shared<Graph>();
    g->name = name;
    g->initializers[name + "_one"] = Tensor::scalar<float>(1.f);
    g->nodes = {test::make_node(op, {"y", name + "_one"}, {name + "_out"}, name + "_node")};
    g->outputs = {test::tensor_info(name + "_out", DType::Float32, {2})};
    return g;
  };
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "flow";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2}), test::tensor_info("flag", DType::Bool, {})};
  m.graph.initializers["M"] = Tensor::scalar<int64_t>(3);
  Tensor yes(DType::Bool, {});
  yes.data<bool>()[0] = true;
  m.graph.initializers["go"] = yes;
  Node loop = test::make_node("Loop", {"M", "go", "x"}, {"y", "scan"}, "loop");
  loop.attrs["body"] = Attribute::of_graph(body);
  Node cond = test::make_node("If", {"flag"}, {"z"}, "choose");
  cond.attrs["then_branch"] = Attribute::of_graph(branch("then", "Add"));
  cond.attrs["else_branch"] = Attribute::of_graph(branch("else", "Sub"));
  m.graph.nodes = {loop, cond};
  m.graph.outputs = {{"z", {}}, {"scan", {}}};
  return m;
}

TEST(MindirControlFlow, WrittenAsSwitchAndRecursiveFunctionGraphs) {
  std::string bytes = mindir::export_mindir_bytes(loop_if_model());
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  std::set<std::string> prims;
  for (const auto& pr : p.primitives()) prims.insert(pr.op_type());
  EXPECT_TRUE(prims.count("Switch"));
  std::set<std::string> functions;
  for (const auto& f : p.functions()) functions.insert(f.name());
  EXPECT_EQ(functions.size(), 5u);  // If: then, else; Loop: header, body, exit
  // The main graph calls function graphs by name; some function calls itself through another
  // (the loop body calls the header).
  bool main_calls_function = false;
  for (const auto& n : p.graph().node())
    if (n.op_type().rfind("REF::", 0) == 0 && functions.count(n.op_type().substr(5))) main_calls_function = true;
  EXPECT_TRUE(main_calls_function);
  bool recursion = false;
  for (const auto& f : p.functions())
    for (const auto& n : f.node())
      if (n.op_type().rfind("REF::", 0) == 0 && functions.count(n.op_type().substr(5)) && n.op_type().substr(5) != f.name())
        recursion = true;
  EXPECT_TRUE(recursion);

  Model back = mindir::import_mindir_bytes(bytes, "flow.mindir");
  std::set<std::string> ops;
  for (const auto& n : back.graph.nodes) ops.insert(n.op_type);
  EXPECT_TRUE(ops.count("Loop"));
  EXPECT_TRUE(ops.count("If"));
  for (bool flag : {true, false}) {
    Tensor f(DType::Bool, {});
    f.data<bool>()[0] = flag;
    auto outs = run_reference(back, {Value(Tensor::from_vector<float>({1.5f, -2.f}, {2})), Value(f)});
    ASSERT_EQ(outs.size(), 2u);
    // y = x * 2^3; z = y +- 1; scan = [x, 2x, 4x]
    const float sign = flag ? 1.f : -1.f;
    EXPECT_FLOAT_EQ(outs[0].tensor.data<float>()[0], 12.f + sign);
    EXPECT_FLOAT_EQ(outs[0].tensor.data<float>()[1], -16.f + sign);
    ASSERT_EQ(outs[1].tensor.shape(), (Shape{3, 2}));
    const float want[] = {1.5f, -2.f, 3.f, -4.f, 6.f, -8.f};
    for (int k = 0; k < 6; ++k) EXPECT_FLOAT_EQ(outs[1].tensor.data<float>()[k], want[k]) << k;
  }
}

// z = If(flag, then: x + w + one, else: x - w - one), where w (512 floats) and one are Constant
// nodes of the main graph that only the branches read, and the If's name is a long scope path.
Model shared_constant_model() {
  std::vector<float> w(512);
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.25f * float(k);
  auto constant = [](const std::string& out, Tensor t) {
    Node n = test::make_node("Constant", {}, {out}, out + "_node");
    n.attrs["value"] = Attribute::of_tensor(std::move(t));
    return n;
  };
  auto branch = [](const std::string& name, const std::string& op) {
    auto g = std::make_shared<Graph>();
    g->name = name;
    g->nodes = {test::make_node(op, {"x", "w"}, {name + "_a"}, name + "_first"),
                test::make_node(op, {name + "_a", "one"}, {name + "_out"}, name + "_second")};
    g->outputs = {test::tensor_info(name + "_out", DType::Float32, {512})};
    return g;
  };
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "shared";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {512}), test::tensor_info("flag", DType::Bool, {})};
  Node cond = test::make_node("If", {"flag"}, {"z"}, "encoder/decoder/rnn/choose");
  cond.attrs["then_branch"] = Attribute::of_graph(branch("then", "Add"));
  cond.attrs["else_branch"] = Attribute::of_graph(branch("else", "Sub"));
  m.graph.nodes = {constant("w", Tensor::from_vector<float>(w, {512})), constant("one", Tensor::scalar<float>(1.f)), cond};
  m.graph.outputs = {{"z", {}}};
  return m;
}

// A large Constant read by both branches is stored once, as a main-graph parameter the functions
// read by name; a scalar one stays a value node of each function. Function names keep the last
// component of the node's scope path; nodes carry neither `name` nor `domain` (MindSpore knows a
// node by output[0]), and every output name is unique in the file.
TEST(MindirControlFlow, ConstantReadByBothBranchesIsStoredOnce) {
  Model m = shared_constant_model();
  std::string bytes = mindir::export_mindir_bytes(m);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  const Tensor& w = m.graph.nodes[0].attrs.at("value").t;
  const std::string w_bytes(static_cast<const char*>(w.raw()), w.nbytes());
  int w_copies = 0, one_values = 0;
  for (const auto& t : p.graph().parameter()) {
    if (t.raw_data() == w_bytes) {
      ++w_copies;
      EXPECT_EQ(t.name(), "shared:w");
      EXPECT_EQ(t.ref_key(), "w");
    }
  }
  std::set<std::string> outputs;
  std::vector<std::string> function_names;
  auto scan = [&](const mind_ir::GraphProto& g) {
    for (const auto& n : g.node()) {
      ASSERT_EQ(n.output_size(), 1);
      EXPECT_TRUE(outputs.insert(n.output(0)).second) << n.output(0) << " is output twice";
      EXPECT_FALSE(n.has_name()) << n.output(0);
      EXPECT_FALSE(n.has_domain()) << n.output(0);
      if (n.op_type() != "Constant") continue;
      for (const auto& t : n.attribute(0).tensors()) {
        if (t.raw_data() == w_bytes) ++w_copies;
        if (t.dims_size() == 0 && t.raw_data().size() == 4) ++one_values;
      }
    }
  };
  scan(p.graph());
  for (const auto& f : p.functions()) {
    function_names.push_back(f.name());
    scan(f);
  }
  EXPECT_EQ(w_copies, 1);
  EXPECT_EQ(one_values, 2);  // one value node in each branch
  ASSERT_EQ(function_names.size(), 2u);
  for (const auto& f : function_names) {
    EXPECT_EQ(f.find('/'), std::string::npos) << f;
    EXPECT_TRUE(f.rfind("choose_then_", 0) == 0 || f.rfind("choose_else_", 0) == 0) << f;
  }

  Model back = mindir::import_mindir_bytes(bytes, "shared.mindir");
  std::vector<float> x(512);
  for (size_t k = 0; k < x.size(); ++k) x[k] = 3.f - float(k);
  for (bool flag : {true, false}) {
    Tensor f(DType::Bool, {});
    f.data<bool>()[0] = flag;
    auto outs = run_reference(back, {Value(Tensor::from_vector<float>(x, {512})), Value(f)});
    ASSERT_EQ(outs.size(), 1u);
    for (int k : {0, 1, 200, 511}) {
      const float want = flag ? (3.f - k) + 0.25f * k + 1.f : (3.f - k) - 0.25f * k - 1.f;
      EXPECT_FLOAT_EQ(outs[0].tensor.data<float>()[k], want) << k;
    }
  }
}

}  // namespace
}  // namespace ms
