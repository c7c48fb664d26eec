// The in-house opset-13 upgrade on operator forms the ONNX backend suite has no case for below
// opset 13: each single-node model is run as it was (the old form's reference kernel) and after the
// upgrade (the opset-13 form), and checked against values worked out by hand where they are short.
// The backend cases themselves run in onnx_backend_upgrade13_cli.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/onnx/opset_upgrade.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

using test::make_node;
using test::tensor_info;

Tensor iota(const Shape& s, float start = 0, float step = 1) {
  Tensor t(DType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * float(i);
  return t;
}

struct Case {
  Model m;
  std::vector<Value> feeds;
};

Case one_node(int64_t opset, Node n, std::vector<std::pair<std::string, Tensor>> inputs, std::vector<std::string> outputs) {
  Case c;
  c.m.opsets[""] = opset;
  c.m.source_path = "upgrade_test.onnx";
  for (auto& [name, t] : inputs) {
    c.m.graph.inputs.push_back(tensor_info(name, t.dtype(), t.shape()));
    c.feeds.push_back(t);
  }
  for (auto& o : outputs) c.m.graph.outputs.push_back({o, TypeInfo{}});
  c.m.graph.nodes.push_back(std::move(n));
  return c;
}

std::vector<Value> run(const Model& m, const std::vector<Value>& feeds) {
  Session s(std::make_shared<const Model>(m));
  return s.run(feeds);
}

// Runs the case before and after the upgrade; expects the same outputs; returns the upgraded outputs.
std::vector<Value> check_same(Case c, const std::string& op_after = "") {
  const auto before = run(c.m, c.feeds);
  Model up = c.m;
  const auto r = onnx_format::upgrade_opset_to_13(up);
  EXPECT_EQ(r.to, 13);
  EXPECT_EQ(up.opset(), 13);
  if (!op_after.empty()) {
    bool found = false;
    for (const auto& n : up.graph.nodes) found |= n.op_type == op_after;
    EXPECT_TRUE(found) << op_after;
  }
  const auto after = run(up, c.feeds);
  EXPECT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const Tensor &a = before[i].tensor, &b = after[i].tensor;
    EXPECT_EQ(a.shape(), b.shape()) << "output " << i;
    EXPECT_EQ(a.dtype(), b.dtype()) << "output " << i;
    if (a.shape() != b.shape() || a.dtype() != b.dtype()) continue;
    for (int64_t k = 0; k < a.numel(); ++k) EXPECT_NEAR(a.as_double(k), b.as_double(k), 1e-6) << "output " << i << " [" << k << "]";
  }
  return after;
}

std::vector<double> values(const Value& v) { return v.tensor.to_double_vector(); }

TEST(OpsetUpgrade, ClipAttributesBecomeInputs) {
  Node n = make_node("Clip", {"x"}, {"y"});
  n.attrs["min"] = Attribute::of_float(-1);
  n.attrs["max"] = Attribute::of_float(2);
  auto out = check_same(one_node(6, n, {{"x", iota({5}, -3, 1.5f)}}, {"y"}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{-1, -1, 0, 1.5, 2}));  // -3 -1.5 0 1.5 3
}

TEST(OpsetUpgrade, SliceAttributesBecomeInputs) {
  Node n = make_node("Slice", {"x"}, {"y"});
  n.attrs["starts"] = Attribute::of_ints({1});
  n.attrs["ends"] = Attribute::of_ints({1000});
  n.attrs["axes"] = Attribute::of_ints({1});
  auto out = check_same(one_node(9, n, {{"x", iota({2, 3})}}, {"y"}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2, 4, 5}));
}

TEST(OpsetUpgrade, PadPaddingsAndValue) {
  Node n = make_node("Pad", {"x"}, {"y"});
  n.attrs["paddings"] = Attribute::of_ints({0, 1, 0, 2});  // Pad-1's name
  n.attrs["value"] = Attribute::of_float(7);
  auto out = check_same(one_node(1, n, {{"x", iota({1, 2})}}, {"y"}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{7, 0, 1, 7, 7}));
}

TEST(OpsetUpgrade, TopKAttribute) {
  Node n = make_node("TopK", {"x"}, {"v", "i"});
  n.attrs["k"] = Attribute::of_int(2);
  Tensor x = Tensor::from_vector<float>({3, 9, 1, 5}, {1, 4});
  auto out = check_same(one_node(9, n, {{"x", x}}, {"v", "i"}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{9, 5}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 3}));
}

TEST(OpsetUpgrade, UpsampleBecomesResize) {
  Node n = make_node("Upsample", {"x"}, {"y"});
  n.attrs["scales"] = Attribute::of_floats({1, 1, 2, 2});
  auto out = check_same(one_node(7, n, {{"x", iota({1, 1, 2, 2})}}, {"y"}), "Resize");
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
}

TEST(OpsetUpgrade, Resize10Shrinking) {
  Node n = make_node("Resize", {"x", "s"}, {"y"});
  Case c = one_node(10, n, {{"x", iota({1, 1, 4, 4})}}, {"y"});
  c.m.graph.initializers["s"] = Tensor::from_vector<float>({1, 1, 0.5f, 0.5f}, {4});
  check_same(c);
}

TEST(OpsetUpgrade, LegacyBroadcastAxis) {
  Node n = make_node("Add", {"a", "b"}, {"y"});
  n.attrs["broadcast"] = Attribute::of_int(1);
  n.attrs["axis"] = Attribute::of_int(1);
  auto out = check_same(one_node(6, n, {{"a", iota({2, 3, 2}, 0, 0)}, {"b", iota({3}, 10, 10)}}, {"y"}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{10, 10, 20, 20, 30, 30, 10, 10, 20, 20, 30, 30}));
}

TEST(OpsetUpgrade, SoftmaxAndHardmaxOverTrailingDims) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    Node n = make_node(op, {"x"}, {"y"});
    n.attrs["axis"] = Attribute::of_int(1);
    auto out = check_same(one_node(11, n, {{"x", iota({2, 3, 4}, -1, 0.25f)}}, {"y"}));
    if (std::string(op) == "Softmax") {
      double sum = 0;
      for (int k = 0; k < 12; ++k) sum += out[0].tensor.as_double(k);
      EXPECT_NEAR(sum, 1.0, 1e-5);  // one distribution over the 3x4 trailing values
    }
  }
}

TEST(OpsetUpgrade, CastTypeName) {
  Node n = make_node("Cast", {"x"}, {"y"});
  n.attrs["to"] = Attribute::of_string("INT32");
  auto out = check_same(one_node(5, n, {{"x", iota({3}, 0.5f, 1)}}, {"y"}));
  EXPECT_EQ(out[0].tensor.dtype(), DType::Int32);
}

TEST(OpsetUpgrade, AxesAndSplitBecomeInputs) {
  Node sq = make_node("Squeeze", {"x"}, {"s"}, "sq");
  sq.attrs["axes"] = Attribute::of_ints({0});
  Node un = make_node("Unsqueeze", {"s"}, {"u"}, "un");
  un.attrs["axes"] = Attribute::of_ints({2});
  Node rs = make_node("ReduceSum", {"u"}, {"r"}, "rs");
  rs.attrs["axes"] = Attribute::of_ints({1});
  rs.attrs["keepdims"] = Attribute::of_int(0);
  Node sp = make_node("Split", {"r"}, {"p", "q"}, "sp");
  sp.attrs["split"] = Attribute::of_ints({1, 2});
  sp.attrs["axis"] = Attribute::of_int(0);
  Case c = one_node(11, sq, {{"x", iota({1, 3, 2})}}, {"p", "q"});
  c.m.graph.nodes.push_back(un);
  c.m.graph.nodes.push_back(rs);
  c.m.graph.nodes.push_back(sp);
  auto out = check_same(c);
  EXPECT_EQ(values(out[0]), (std::vector<double>{1}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{5, 9}));
}

TEST(OpsetUpgrade, DropoutMaskKeepsItsOldType) {
  Node n = make_node("Dropout", {"x"}, {"y", "mask"});
  n.attrs["ratio"] = Attribute::of_float(0.3f);
  auto out = check_same(one_node(7, n, {{"x", iota({4})}}, {"y", "mask"}));
  EXPECT_EQ(out[1].tensor.dtype(), DType::Float32);
}

TEST(OpsetUpgrade, UnhandledChangeIsUnsupportedAndNamesTheNode) {
  Node n = make_node("Tile", {"x", "t", "a"}, {"y"}, "old_tile");
  Case c = one_node(5, n, {{"x", iota({2})}}, {"y"});
  c.m.graph.initializers["t"] = Tensor::scalar<int64_t>(2);
  c.m.graph.initializers["a"] = Tensor::scalar<int64_t>(0);
  try {
    onnx_format::upgrade_opset_to_13(c.m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("old_tile"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Tile-6"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.m.opset(), 5);  // nothing changed
}

}  // namespace
}  // namespace ms
