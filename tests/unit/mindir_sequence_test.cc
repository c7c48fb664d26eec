// Sequences of tensors in MindIR: the IR's Sequence* ops written as MindSpore 2.x dynamic-length list
// primitives (make_list, ListInsert, ListAppend, list_getitem, sequence_len + ScalarToTensor,
// TensorToScalar for a computed index) over LIST abstracts with seq_info.is_dyn_len, and read back
// into IR sequence ops. Values are checked against lists worked out by hand; optional values stay
// refused with the reason.
#include <gtest/gtest.h>

#include "core/error.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

TypeInfo seq_of(DType dt, Shape s) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::Sequence;
  t.elem = std::make_shared<TypeInfo>(TypeInfo::tensor(dt, s));
  return t;
}

Tensor f32(std::vector<float> v) { return Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())}); }

// x=[1,2] y=[3,4] z=[5,6]; pos (run time) = 1; items: seq(f32[2]) input.
//   s0 = [x, y]                      SequenceConstruct
//   s1 = insert(s0, z, 1) = [x,z,y]  SequenceInsert, constant position
//   s2 = append(s1, y) = [x,z,y,y]   SequenceInsert, no position
//   a  = s2[pos] = z                 SequenceAt, run-time index
//   b  = s2[-1] = y                  SequenceAt, constant negative index
//   n  = len(s2) = 4                 SequenceLength
//   ne = len(append(empty, x)) = 1   SequenceEmpty
//   s3 = insert(items, x, pos)       sequence input and output
Model sequence_model() {
  Model m;
  m.opsets[""] = 17;
  Graph& g = m.graph;
  g.name = "seq_net";
  g.inputs = {test::tensor_info("x", DType::Float32, {2}), test::tensor_info("y", DType::Float32, {2}),
              test::tensor_info("z", DType::Float32, {2}), test::tensor_info("pos", DType::Int64, {}),
              {"items", seq_of(DType::Float32, {2})}};
  g.initializers["one"] = Tensor::scalar<int64_t>(1);
  g.initializers["minus_one"] = Tensor::scalar<int64_t>(-1);
  Node empty = test::make_node("SequenceEmpty", {}, {"e"}, "empty");
  empty.attrs["dtype"] = Attribute::of_int(static_cast<int64_t>(DType::Float32));
  g.nodes = {test::make_node("SequenceConstruct", {"x", "y"}, {"s0"}, "construct"),
             test::make_node("SequenceInsert", {"s0", "z", "one"}, {"s1"}, "insert_at_1"),
             test::make_node("SequenceInsert", {"s1", "y"}, {"s2"}, "append_y"),
             test::make_node("SequenceAt", {"s2", "pos"}, {"a"}, "at_pos"),
             test::make_node("SequenceAt", {"s2", "minus_one"}, {"b"}, "at_last"),
             test::make_node("SequenceLength", {"s2"}, {"n"}, "length"),
             empty,
             test::make_node("SequenceInsert", {"e", "x"}, {"e1"}, "append_x"),
             test::make_node("SequenceLength", {"e1"}, {"ne"}, "length_e1"),
             test::make_node("SequenceInsert", {"items", "x", "pos"}, {"s3"}, "insert_items")};
  g.outputs = {{"s2", seq_of(DType::Float32, {2})},
               test::tensor_info("a", DType::Float32, {2}),
               test::tensor_info("b", DType::Float32, {2}),
               test::tensor_info("n", DType::Int64, {}),
               test::tensor_info("ne", DType::Int64, {}),
               {"s3", seq_of(DType::Float32, {2})}};
  return m;
}

std::vector<Value> feeds() {
  return {Value(f32({1, 2})), Value(f32({3, 4})), Value(f32({5, 6})), Value(Tensor::scalar<int64_t>(1)),
          Value::of_sequence({f32({7, 8})}, DType::Float32)};
}

std::vector<float> floats(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.numel());
}

void expect_hand_values(const std::vector<Value>& out) {
  ASSERT_EQ(out.size(), 6u);
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].sequence.size(), 4u);
  std::vector<std::vector<float>> want_s2 = {{1, 2}, {5, 6}, {3, 4}, {3, 4}};
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(floats(out[0].sequence[k]), want_s2[k]) << "s2[" << k << "]";
  EXPECT_EQ(floats(out[1].tensor), (std::vector<float>{5, 6}));
  EXPECT_EQ(floats(out[2].tensor), (std::vector<float>{3, 4}));
  ASSERT_EQ(out[3].tensor.dtype(), DType::Int64);
  EXPECT_EQ(out[3].tensor.data<int64_t>()[0], 4);
  EXPECT_EQ(out[4].tensor.data<int64_t>()[0], 1);
  ASSERT_TRUE(out[5].is_sequence());
  ASSERT_EQ(out[5].sequence.size(), 2u);
  EXPECT_EQ(floats(out[5].sequence[0]), (std::vector<float>{7, 8}));
  EXPECT_EQ(floats(out[5].sequence[1]), (std::vector<float>{1, 2}));
}

std::vector<Value> run(const Model& m) { return Session(std::make_shared<const Model>(m)).run(feeds()); }

const mind_ir::NodeProto* node_of(const mind_ir::ModelProto& p, const std::string& prim_type, int nth = 0) {
  std::map<std::string, std::string> kind;  // primitive instance -> class
  for (const auto& pr : p.primitives()) kind[pr.name()] = pr.op_type();
  for (const auto& n : p.graph().node())
    if (n.op_type().rfind("REF::", 0) == 0 && kind[n.op_type().substr(5)] == prim_type && nth-- == 0) return &n;
  return nullptr;
}

const mind_ir::NodeProto* producer_of(const mind_ir::ModelProto& p, const std::string& out) {
  for (const auto& n : p.graph().node())
    if (n.output_size() && n.output(0) == out) return &n;
  return nullptr;
}

TEST(MindirSequence, OriginalModelGivesTheHandValues) { expect_hand_values(run(sequence_model())); }

TEST(MindirSequence, WrittenAsDynamicLengthListPrimitives) {
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(mindir::export_mindir_bytes(sequence_model())));
  std::set<std::string> prims;
  for (const auto& pr : p.primitives()) prims.insert(pr.op_type());
  for (const char* want : {"make_list", "ListInsert", "ListAppend", "list_getitem", "sequence_len", "ScalarToTensor",
                           "TensorToScalar", "MakeTuple"})
    EXPECT_TRUE(prims.count(want)) << want;
  for (const char* gone : {"SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceLength", "SequenceEmpty"})
    EXPECT_FALSE(prims.count(gone)) << gone;

  // The sequence input: no tensor, a LIST abstract of dynamic length with a float32 [2] element.
  const mind_ir::ValueInfoProto* items = nullptr;
  for (const auto& in : p.graph().input())
    if (in.name() == "seq_net:items") items = &in;
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->tensor_size(), 0);
  ASSERT_TRUE(items->has_attr_info());
  EXPECT_EQ(items->attr_info().type(), mind_ir::AttributeProto::LIST);
  ASSERT_TRUE(items->attr_info().seq_info().is_dyn_len());
  const auto& elem = items->attr_info().seq_info().tuple_elem_item();
  EXPECT_EQ(elem.type(), mind_ir::AttributeProto::TENSORS);
  ASSERT_EQ(elem.tensors_size(), 1);
  EXPECT_EQ(elem.tensors(0).data_type(), mind_ir::TensorProto::FLOAT);
  ASSERT_EQ(elem.tensors(0).dims_size(), 1);
  EXPECT_EQ(elem.tensors(0).dims(0), 2);

  // ListInsert(list, Constant INT64 1, z): the element comes after the index, as MindSpore orders them.
  const auto* ins = node_of(p, "ListInsert");
  ASSERT_NE(ins, nullptr);
  ASSERT_EQ(ins->input_size(), 3);
  const auto* idx = producer_of(p, ins->input(1));
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->op_type(), "Constant");
  EXPECT_EQ(idx->attribute(0).type(), mind_ir::AttributeProto::INT64);
  EXPECT_EQ(idx->attribute(0).i(), 1);
  EXPECT_EQ(ins->input(2), "seq_net:z");
  // Its abstract is a dynamic-length list.
  ASSERT_GE(ins->attribute_size(), 1);
  EXPECT_EQ(ins->attribute(0).name(), "shape");
  EXPECT_EQ(ins->attribute(0).type(), mind_ir::AttributeProto::LIST);
  EXPECT_TRUE(ins->attribute(0).seq_info().is_dyn_len());

  // list_getitem with the run-time index goes through TensorToScalar; the constant -1 is an INT64.
  const auto* get0 = node_of(p, "list_getitem", 0);
  const auto* get1 = node_of(p, "list_getitem", 1);
  ASSERT_TRUE(get0 && get1);
  std::set<std::string> index_forms;
  for (const auto* g : {get0, get1}) {
    const auto* src = producer_of(p, g->input(1));
    ASSERT_NE(src, nullptr);
    if (src->op_type() == "Constant") {
      EXPECT_EQ(src->attribute(0).i(), -1);
      index_forms.insert("constant");
    } else {
      index_forms.insert("computed");
      EXPECT_EQ(src->input(0), "seq_net:pos");
    }
  }
  EXPECT_EQ(index_forms, (std::set<std::string>{"constant", "computed"}));

  // make_list with no inputs for SequenceEmpty: the element dtype lives in the abstract.
  bool empty_list = false;
  for (int k = 0; const auto* ml = node_of(p, "make_list", k); ++k)
    if (ml->input_size() == 0) {
      empty_list = true;
      EXPECT_EQ(ml->attribute(0).seq_info().tuple_elem_item().tensors(0).data_type(), mind_ir::TensorProto::FLOAT);
    }
  EXPECT_TRUE(empty_list);

  // One graph output: MakeTuple of six values, two of them dynamic-length lists.
  ASSERT_EQ(p.graph().output_size(), 1);
  const auto& out = p.graph().output(0);
  ASSERT_TRUE(out.has_attr_info());
  EXPECT_EQ(out.attr_info().type(), mind_ir::AttributeProto::TUPLE);
  ASSERT_EQ(out.attr_info().values_size(), 6);
  EXPECT_EQ(out.attr_info().values(0).type(), mind_ir::AttributeProto::LIST);
  EXPECT_TRUE(out.attr_info().values(0).seq_info().is_dyn_len());
  EXPECT_EQ(out.attr_info().values(1).type(), mind_ir::AttributeProto::TENSORS);
  EXPECT_EQ(out.attr_info().values(5).type(), mind_ir::AttributeProto::LIST);
  const auto* mt = producer_of(p, out.name());
  ASSERT_NE(mt, nullptr);
  EXPECT_EQ(mt->input_size(), 6);
}

TEST(MindirSequence, ReadBackRunsToTheHandValues) {
  Model back = mindir::import_mindir_bytes(mindir::export_mindir_bytes(sequence_model()), "seq_net.mindir");
  ASSERT_EQ(back.graph.inputs.size(), 5u);
  EXPECT_EQ(back.graph.inputs[4].type.kind, TypeInfo::Kind::Sequence);
  ASSERT_EQ(back.graph.outputs.size(), 6u);
  EXPECT_EQ(back.graph.outputs[0].type.kind, TypeInfo::Kind::Sequence);
  EXPECT_EQ(back.graph.outputs[5].type.kind, TypeInfo::Kind::Sequence);
  std::map<std::string, int> ops;
  for (const auto& n : back.graph.nodes) ++ops[n.op_type];
  EXPECT_EQ(ops["SequenceConstruct"], 1);
  EXPECT_EQ(ops["SequenceEmpty"], 1);
  EXPECT_EQ(ops["SequenceInsert"], 4);
  EXPECT_EQ(ops["SequenceAt"], 2);
  EXPECT_EQ(ops["SequenceLength"], 2);
  expect_hand_values(run(back));
  // A second trip keeps the form.
  Model again = mindir::import_mindir_bytes(mindir::export_mindir_bytes(back), "seq_net2.mindir");
  expect_hand_values(run(again));
}

// x = [[0,1,2],[3,4,5]]:
//   parts  = SplitToSequence(x){axis 1, keepdims 0} = [[0,3],[1,4],[2,5]]   Split + Squeeze
//   p2     = SequenceErase(parts, 1) = [[0,3],[2,5]]                         ListAppendAndInsertGrad
//   p3     = SequenceErase(p2) = [[0,3]]                                     (pops the last)
//   cat    = ConcatFromSequence(p2){axis 0} = [0,3,2,5]                      SequenceConcat
//   st     = ConcatFromSequence(p2){axis 0, new_axis 1} = [[0,3],[2,5]]      SequenceStack
//   chunks = SplitToSequence(x, 2){axis 1} = [[[0,1],[3,4]], [[2],[5]]]      SplitV
//   n = len(chunks) = 2; last = chunks[-1] = [[2],[5]]
Model split_erase_concat_model() {
  Model m;
  m.opsets[""] = 17;
  Graph& g = m.graph;
  g.name = "sec_net";
  g.inputs = {test::tensor_info("x", DType::Float32, {2, 3})};
  g.initializers["one"] = Tensor::scalar<int64_t>(1);
  g.initializers["two"] = Tensor::scalar<int64_t>(2);
  g.initializers["minus_one"] = Tensor::scalar<int64_t>(-1);
  Node split = test::make_node("SplitToSequence", {"x"}, {"parts"}, "split_cols");
  split.attrs["axis"] = Attribute::of_int(1);
  split.attrs["keepdims"] = Attribute::of_int(0);
  Node cat = test::make_node("ConcatFromSequence", {"p2"}, {"cat"}, "cat");
  cat.attrs["axis"] = Attribute::of_int(0);
  Node st = test::make_node("ConcatFromSequence", {"p2"}, {"st"}, "stack");
  st.attrs["axis"] = Attribute::of_int(0);
  st.attrs["new_axis"] = Attribute::of_int(1);
  Node chunks = test::make_node("SplitToSequence", {"x", "two"}, {"chunks"}, "split_by_2");
  chunks.attrs["axis"] = Attribute::of_int(1);
  g.nodes = {split,
             test::make_node("SequenceErase", {"parts", "one"}, {"p2"}, "erase_1"),
             test::make_node("SequenceErase", {"p2"}, {"p3"}, "erase_last"),
             cat,
             st,
             chunks,
             test::make_node("SequenceLength", {"chunks"}, {"n"}, "count"),
             test::make_node("SequenceAt", {"chunks", "minus_one"}, {"last"}, "last_chunk")};
  g.outputs = {{"p3", seq_of(DType::Float32, {2})}, test::tensor_info("cat", DType::Float32, {4}),
               test::tensor_info("st", DType::Float32, {2, 2}), test::tensor_info("n", DType::Int64, {}),
               test::tensor_info("last", DType::Float32, {2, 1})};
  return m;
}

void expect_split_erase_concat_values(const std::vector<Value>& out) {
  ASSERT_EQ(out.size(), 5u);
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].sequence.size(), 1u);
  EXPECT_EQ(floats(out[0].sequence[0]), (std::vector<float>{0, 3}));
  EXPECT_EQ(out[0].sequence[0].shape(), (Shape{2}));
  EXPECT_EQ(floats(out[1].tensor), (std::vector<float>{0, 3, 2, 5}));
  EXPECT_EQ(floats(out[2].tensor), (std::vector<float>{0, 3, 2, 5}));
  EXPECT_EQ(out[2].tensor.shape(), (Shape{2, 2}));
  EXPECT_EQ(out[3].tensor.data<int64_t>()[0], 2);
  EXPECT_EQ(floats(out[4].tensor), (std::vector<float>{2, 5}));
  EXPECT_EQ(out[4].tensor.shape(), (Shape{2, 1}));
}

std::vector<Value> run_x(const Model& m) {
  return Session(std::make_shared<const Model>(m)).run({Value(Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3}))});
}

TEST(MindirSequence, SplitEraseConcatHandValues) {
  expect_split_erase_concat_values(run_x(split_erase_concat_model()));
  std::string bytes = mindir::export_mindir_bytes(split_erase_concat_model());
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  std::set<std::string> prims;
  for (const auto& pr : p.primitives()) prims.insert(pr.op_type());
  for (const char* want : {"Split", "SplitV", "Squeeze", "TupleGetItem", "make_list", "ListAppendAndInsertGrad",
                           "SequenceConcat", "SequenceStack"})
    EXPECT_TRUE(prims.count(want)) << want;
  // The erase without a position pops index -1.
  const auto* pop_last = node_of(p, "ListAppendAndInsertGrad", 1);
  ASSERT_NE(pop_last, nullptr);
  const auto* idx = producer_of(p, pop_last->input(1));
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->attribute(0).i(), -1);
  // SplitV carries the chunk sizes [2, 1].
  for (const auto& pr : p.primitives())
    if (pr.op_type() == "SplitV")
      for (const auto& a : pr.attribute())
        if (a.name() == "size_splits") {
          ASSERT_EQ(a.values_size(), 2);
          EXPECT_EQ(a.values(0).ints(0), 2);
          EXPECT_EQ(a.values(1).ints(0), 1);
        }
  Model back = mindir::import_mindir_bytes(bytes, "sec_net.mindir");
  std::map<std::string, int> ops;
  for (const auto& n : back.graph.nodes) ++ops[n.op_type];
  EXPECT_EQ(ops["SequenceErase"], 2);
  EXPECT_EQ(ops["ConcatFromSequence"], 2);
  expect_split_erase_concat_values(run_x(back));
}

TEST(MindirSequence, SplitSizesKnownOnlyAtRunTimeAreRefused) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "dyn_split";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {6}), test::tensor_info("sizes", DType::Int64, {2})};
  m.graph.nodes = {test::make_node("SplitToSequence", {"x", "sizes"}, {"parts"}, "split"),
                   test::make_node("SequenceLength", {"parts"}, {"n"}, "count")};
  m.graph.outputs = {test::tensor_info("n", DType::Int64, {})};
  try {
    mindir::export_mindir_bytes(m);
    FAIL() << "a run-time split was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("split sizes computed at run time"), std::string::npos) << e.what();
  }
}

// SequenceMap(xs, y) with body out = in0 + in1: xs = [[1,2],[3,4]], y = [10,20] -> [[11,22],[13,24]].
TEST(MindirSequence, SequenceMapIsWrittenAsALoopOverTheList) {
  auto body = std::make_shared<Graph>();
  body->name = "add_body";
  body->inputs = {test::tensor_info("in0", DType::Float32, {2}), test::tensor_info("in1", DType::Float32, {2})};
  body->nodes = {test::make_node("Add", {"in0", "in1"}, {"sum"}, "add")};
  body->outputs = {test::tensor_info("sum", DType::Float32, {2})};
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "map_net";
  m.graph.inputs = {{"xs", seq_of(DType::Float32, {2})}, test::tensor_info("y", DType::Float32, {2})};
  Node map = test::make_node("SequenceMap", {"xs", "y"}, {"ys"}, "map");
  map.attrs["body"] = Attribute::of_graph(body);
  m.graph.nodes = {map};
  m.graph.outputs = {{"ys", seq_of(DType::Float32, {2})}};
  std::string bytes = mindir::export_mindir_bytes(m);
  mind_ir::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  std::set<std::string> prims;
  for (const auto& pr : p.primitives()) prims.insert(pr.op_type());
  for (const char* want : {"sequence_len", "make_list", "list_getitem", "ListAppend", "Add", "Switch"})
    EXPECT_TRUE(prims.count(want)) << want;
  EXPECT_FALSE(prims.count("SequenceMap"));
  EXPECT_GE(p.functions_size(), 3);  // loop header, body, exit
  // The loop state (the output list) is a dynamic-length list input of the header.
  bool list_state = false;
  for (const auto& f : p.functions())
    for (const auto& in : f.input())
      if (in.has_attr_info() && in.attr_info().type() == mind_ir::AttributeProto::LIST && in.attr_info().seq_info().is_dyn_len())
        list_state = true;
  EXPECT_TRUE(list_state);
  Model back = mindir::import_mindir_bytes(bytes, "map_net.mindir");
  std::vector<Value> feeds{Value::of_sequence({f32({1, 2}), f32({3, 4})}, DType::Float32), Value(f32({10, 20}))};
  auto out = Session(std::make_shared<const Model>(back)).run(feeds);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].sequence.size(), 2u);
  EXPECT_EQ(floats(out[0].sequence[0]), (std::vector<float>{11, 22}));
  EXPECT_EQ(floats(out[0].sequence[1]), (std::vector<float>{13, 24}));
  std::vector<Value> empty_feeds{Value::of_sequence({}, DType::Float32), Value(f32({10, 20}))};
  auto none = Session(std::make_shared<const Model>(back)).run(empty_feeds);
  ASSERT_TRUE(none[0].is_sequence());
  EXPECT_EQ(none[0].sequence.size(), 0u);
}

TEST(MindirSequence, OptionalValuesStayRefusedWithTheReason) {
  Model m;
  m.opsets[""] = 17;
  TypeInfo opt;
  opt.kind = TypeInfo::Kind::Optional;
  opt.elem = std::make_shared<TypeInfo>(TypeInfo::tensor(DType::Float32, Shape{4}));
  m.graph.name = "opt_net";
  m.graph.inputs = {{"maybe", opt}};
  m.graph.nodes = {test::make_node("OptionalHasElement", {"maybe"}, {"has"}, "has")};
  m.graph.outputs = {test::tensor_info("has", DType::Bool, {})};
  try {
    mindir::export_mindir_bytes(m);
    FAIL() << "an optional input was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string w = e.what();
    EXPECT_NE(w.find("graph input 'maybe' is optional(float32[4])"), std::string::npos) << w;
    EXPECT_NE(w.find("OptionalHasElement"), std::string::npos) << w;
  }
  auto ops = mindir::mindir_unsupported_ops(m);
  EXPECT_TRUE(ops.count("OptionalHasElement"));
  EXPECT_TRUE(ops.count("sequence/optional values"));
}

}  // namespace
}  // namespace ms
