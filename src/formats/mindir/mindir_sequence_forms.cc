#include "formats/mindir/mindir_sequence_forms.h"

#include <algorithm>

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

bool sequence_type_writable(const TypeInfo& t) {
  if (t.kind == TypeInfo::Kind::Optional) return false;
  if (t.kind == TypeInfo::Kind::Sequence)
    return !t.elem || t.elem->kind == TypeInfo::Kind::Tensor || t.elem->kind == TypeInfo::Kind::Unknown;
  return true;
}

TypeInfo sequence_type_of(const Abstract& list) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::Sequence;
  Abstract e = list.elems.empty() ? Abstract{} : list.elems[0];
  if (e.kind == Abstract::Kind::Tensor || e.kind == Abstract::Kind::Scalar) {
    if (e.kind == Abstract::Kind::Scalar) {
      t.elem = std::make_shared<TypeInfo>(TypeInfo::tensor(e.dtype, std::vector<Dim>{}));
    } else if (e.rank_known && !(e.dims.size() == 1 && e.dims[0] == -2)) {
      std::vector<Dim> d;
      for (int64_t x : e.dims) d.push_back(x >= 0 ? Dim::fixed(x) : Dim{});
      t.elem = std::make_shared<TypeInfo>(TypeInfo::tensor(e.dtype, d));
    } else {
      t.elem = std::make_shared<TypeInfo>(TypeInfo::tensor_unknown_shape(e.dtype));
    }
  }
  return t;
}

std::vector<Node> expand_sequence_map(const Node& n, const std::function<bool(const std::string&)>& is_seq) {
  const Attribute* ba = n.attr("body");
  if (!ba || !ba->g) fail("{}: SequenceMap without a body", n.label());
  const Graph& body = *ba->g;
  if (body.inputs.size() != n.inputs.size())
    fail("{}: the body takes {} inputs, the node has {}", n.label(), body.inputs.size(), n.inputs.size());
  if (body.outputs.size() != n.outputs.size())
    fail("{}: the body returns {} values, the node has {} outputs", n.label(), body.outputs.size(), n.outputs.size());
  const std::string p = (n.outputs.empty() || n.outputs[0].empty() ? n.name : n.outputs[0]) + "_seqmap_";
  auto make = [](std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string name) {
    Node m;
    m.op_type = std::move(op);
    m.inputs = std::move(in);
    m.outputs = std::move(out);
    m.name = std::move(name);
    return m;
  };
  std::vector<Node> r;
  r.push_back(make("SequenceLength", {n.inputs[0]}, {p + "seqlen"}, p + "seqlen"));
  Node cond = make("Constant", {}, {p + "cond"}, p + "cond");
  Tensor yes(DType::Bool, {});
  yes.data<bool>()[0] = true;
  cond.attrs["value"] = Attribute::of_tensor(yes);
  r.push_back(cond);
  Node loop = make("Loop", {p + "seqlen", p + "cond"}, {}, p + "loop");
  auto g = std::make_shared<Graph>();
  g->name = p + "body";
  g->inputs.push_back({p + "iter", TypeInfo::tensor(DType::Int64, std::vector<Dim>{})});
  g->inputs.push_back({p + "cond_in", TypeInfo::tensor(DType::Bool, std::vector<Dim>{})});
  g->outputs.push_back({p + "cond_out", TypeInfo::tensor(DType::Bool, std::vector<Dim>{})});
  g->nodes.push_back(make("Identity", {p + "cond_in"}, {p + "cond_out"}, p + "cond_out"));
  for (size_t j = 0; j < n.inputs.size(); ++j) {
    const std::string& b = body.inputs[j].name;
    g->nodes.push_back(is_seq(n.inputs[j]) ? make("SequenceAt", {n.inputs[j], p + "iter"}, {b}, p + "in" + std::to_string(j))
                                           : make("Identity", {n.inputs[j]}, {b}, p + "in" + std::to_string(j)));
  }
  for (const auto& bn : body.nodes) g->nodes.push_back(bn);
  for (const auto& [k, t] : body.initializers) g->initializers.emplace(k, t);
  g->value_info = body.value_info;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    DType dt = body.outputs[k].type.dtype == DType::Undefined ? DType::Float32 : body.outputs[k].type.dtype;
    std::string ks = std::to_string(k);
    Node empty = make("SequenceEmpty", {}, {p + "empty" + ks}, p + "empty" + ks);
    empty.attrs["dtype"] = Attribute::of_int(static_cast<int64_t>(dt));
    r.push_back(empty);
    loop.inputs.push_back(p + "empty" + ks);
    loop.outputs.push_back(n.outputs[k].empty() ? p + "unused" + ks : n.outputs[k]);
    TypeInfo st;
    st.kind = TypeInfo::Kind::Sequence;
    st.elem = std::make_shared<TypeInfo>(body.outputs[k].type);
    g->inputs.push_back({p + "out" + ks + "_in", st});
    g->nodes.push_back(make("SequenceInsert", {p + "out" + ks + "_in", body.outputs[k].name}, {p + "out" + ks + "_out"},
                            p + "append" + ks));
    g->outputs.push_back({p + "out" + ks + "_out", st});
  }
  loop.attrs["body"] = Attribute::of_graph(g);
  r.push_back(loop);
  return r;
}

namespace {

using namespace wu;

Abstract scalar_abs(DType dt) {
  Abstract a;
  a.kind = Abstract::Kind::Scalar;
  a.dtype = dt;
  a.rank_known = true;
  return a;
}

// A list index or position (IR: a 0-d integer tensor): a Constant INT64 when it is known, otherwise
// TensorToScalar of the tensor (MindSpore's list primitives take Python ints).
std::string list_index(WriteCtx& c, size_t i) {
  const std::string& name = c.node().inputs.at(i);
  if (const Tensor* t = c.constant(name); t && t->numel() == 1 && !c.is_graph_input(name)) return c.constant_node(MsValue::of_int(t->as_int64(0)));
  DType dt = c.abstract(name).dtype;
  return c.call("TensorToScalar", {}, {c.in(i)}, scalar_abs(dt == DType::Undefined ? DType::Int64 : dt));
}

void export_construct(WriteCtx& c) {
  std::vector<std::string> ins;
  for (size_t i = 0; i < c.num_inputs(); ++i) ins.push_back(c.in(i));
  c.bind(out0(c), c.call("make_list", {}, ins, out_abs(c)));
}

void export_empty(WriteCtx& c) {
  // The element dtype travels in the abstract (LIST, dynamic length, element TENSORS of that dtype).
  Abstract a = out_abs(c);
  if (a.kind != Abstract::Kind::List) a.kind = Abstract::Kind::List;
  if (a.elems.empty()) a.elems.push_back(Abstract{});
  a.elems[0].kind = Abstract::Kind::Tensor;
  a.elems[0].dtype = DType(int_attr(c, "dtype", static_cast<int64_t>(DType::Float32)));
  c.bind(out0(c), c.call("make_list", {}, {}, a));
}

void export_insert(WriteCtx& c) {
  if (has_in(c, 2))
    c.bind(out0(c), c.call("ListInsert", {}, {c.in(0), list_index(c, 2), c.in(1)}, out_abs(c)));
  else
    c.bind(out0(c), c.call("ListAppend", {}, {c.in(0), c.in(1)}, out_abs(c)));
}

void export_at(WriteCtx& c) { c.bind(out0(c), c.call("list_getitem", {}, {c.in(0), list_index(c, 1)}, out_abs(c))); }

void export_length(WriteCtx& c) {
  std::string n = c.call("sequence_len", {}, {c.in(0)}, scalar_abs(DType::Int64));
  c.bind(out0(c), c.call("ScalarToTensor", {}, {n, c.constant_node(MsValue::of_dtype(DType::Int64))}, out_abs(c)));
}

// SequenceErase(s[, pos]) -> ListAppendAndInsertGrad(s, pos): MindSpore's `list.pop(index)` on a
// dynamic-length list (ops/grad/list_append_and_insert_grad.h); no position pops the last element.
void export_erase(WriteCtx& c) {
  std::string idx = has_in(c, 1) ? list_index(c, 1) : c.constant_node(MsValue::of_int(-1));
  c.bind(out0(c), c.call("ListAppendAndInsertGrad", {}, {c.in(0), idx}, out_abs(c)));
}

// ConcatFromSequence{axis, new_axis} -> SequenceConcat{axis} / SequenceStack{axis}, MindSpore's
// Concat / Stack over a dynamic-length sequence.
void export_concat_from_sequence(WriteCtx& c) {
  int64_t axis = int_attr(c, "axis", 0);
  bool stack = int_attr(c, "new_axis", 0) != 0;
  c.bind(out0(c), c.call(stack ? "SequenceStack" : "SequenceConcat", {{"axis", MsValue::of_int(axis)}}, {c.in(0)}, out_abs(c)));
}

// SplitToSequence(x[, split]){axis, keepdims}: the chunk sizes must be known when writing (MindSpore's
// Split / SplitV take them as attributes): Split or SplitV, TupleGetItem per chunk (Squeeze of the
// axis for keepdims = 0 without split), make_list of the chunks.
void export_split_to_sequence(WriteCtx& c) {
  auto dims = dims_of(c, 0);
  int r = static_cast<int>(dims.size());
  int64_t axis = int_attr(c, "axis", 0);
  if (r > 0 && axis < 0) axis += r;
  if (r == 0 || axis < 0 || axis >= r || dims[axis] < 0)
    fail_unsupported("{}: SplitToSequence of a dimension unknown when writing: MindSpore's Split/SplitV take the number "
                     "and sizes of the chunks as attributes, and no list primitive splits a tensor", label(c));
  int64_t d = dims[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!has_in(c, 1)) {
    sizes.assign(d, 1);
    squeeze = int_attr(c, "keepdims", 1) == 0;
  } else {
    const Tensor* sp = c.constant(c.node().inputs[1]);
    if (!sp || c.is_graph_input(c.node().inputs[1]))
      fail_unsupported("{}: SplitToSequence with split sizes computed at run time: MindSpore's Split/SplitV take the "
                       "sizes as attributes, and no list primitive splits a tensor", label(c));
    if (sp->shape().empty()) {
      int64_t chunk = sp->as_int64(0);
      if (chunk <= 0) fail("{}: split must be positive", label(c));
      for (int64_t left = d; left > 0; left -= chunk) sizes.push_back(std::min(chunk, left));
    } else {
      for (int64_t k = 0; k < sp->numel(); ++k) sizes.push_back(sp->as_int64(k));
    }
  }
  DType dt = c.abstract(c.node().inputs[0]).dtype;
  auto chunk_abs = [&](int64_t size, bool drop) {
    Abstract a;
    a.kind = Abstract::Kind::Tensor;
    a.dtype = dt;
    a.rank_known = true;
    for (int k = 0; k < r; ++k)
      if (!(drop && k == axis)) a.dims.push_back(k == axis ? size : dims[k]);
    return a;
  };
  std::vector<std::string> items;
  if (!sizes.empty()) {
    int64_t num = static_cast<int64_t>(sizes.size());
    std::vector<Abstract> parts;
    for (int64_t s : sizes) parts.push_back(chunk_abs(s, false));
    bool equal = std::all_of(sizes.begin(), sizes.end(), [&](int64_t v) { return v == sizes[0]; });
    std::string t = equal ? c.call("Split", {{"axis", MsValue::of_int(axis)}, {"output_num", MsValue::of_int(num)},
                                             {"num_split", MsValue::of_int(num)}}, {c.in(0)}, tuple_abs(parts))
                          : c.call("SplitV", {{"size_splits", MsValue::of_ints(sizes)}, {"split_dim", MsValue::of_int(axis)},
                                              {"num_split", MsValue::of_int(num)}}, {c.in(0)}, tuple_abs(parts));
    for (int64_t k = 0; k < num; ++k) {
      std::string item = c.get_item(t, k, parts[k]);
      if (squeeze) item = c.call("Squeeze", {{"axis", MsValue::of_ints({axis})}}, {item}, chunk_abs(1, true));
      items.push_back(item);
    }
  }
  Abstract out = out_abs(c);
  if (out.kind != Abstract::Kind::List || out.elems.empty() || out.elems[0].dtype == DType::Undefined) {
    out.kind = Abstract::Kind::List;
    out.elems = {chunk_abs(sizes.empty() ? 0 : sizes[0], squeeze)};
  }
  c.bind(out0(c), c.call("make_list", {}, items, out));
}

// --- reading ----------------------------------------------------------------------------------

RVal list_result(ReadCtx& c, const std::string& name) {
  Abstract a = c.out_abstract();
  return RVal::tensor(name, a);
}

// The position input as an IR 0-d integer tensor.
std::string read_index(ReadCtx& c, size_t i) {
  const RVal& v = c.inputs().at(i);
  if (v.kind == RVal::Kind::Const && v.c.kind == MsValue::Kind::Int)
    return c.add_const(Tensor::scalar<int64_t>(v.c.i), "position");
  return c.tensor(i);
}

RVal import_make_list(ReadCtx& c) {
  if (c.inputs().empty()) {
    DType dt = DType::Float32;
    const Abstract& a = c.out_abstract();
    if (a.kind == Abstract::Kind::List && !a.elems.empty() && a.elems[0].dtype != DType::Undefined) dt = a.elems[0].dtype;
    return list_result(c, c.add1("SequenceEmpty", {}, {{"dtype", Attribute::of_int(static_cast<int64_t>(dt))}}));
  }
  std::vector<std::string> ins;
  for (size_t i = 0; i < c.inputs().size(); ++i) ins.push_back(c.tensor(i));
  return list_result(c, c.add1("SequenceConstruct", ins));
}

RVal import_list_append(ReadCtx& c) {
  if (c.inputs().size() != 2) fail("{}: ListAppend takes (list, element)", c.what());
  return list_result(c, c.add1("SequenceInsert", {c.tensor(0), c.tensor(1)}));
}

RVal import_list_insert(ReadCtx& c) {
  if (c.inputs().size() != 3) fail("{}: ListInsert takes (list, index, element)", c.what());
  return list_result(c, c.add1("SequenceInsert", {c.tensor(0), c.tensor(2), read_index(c, 1)}));
}

RVal import_list_getitem(ReadCtx& c) {
  if (c.inputs().size() != 2) fail("{}: list_getitem takes (list, index)", c.what());
  return RVal::tensor(c.add1("SequenceAt", {c.tensor(0), read_index(c, 1)}), c.out_abstract());
}

RVal import_list_pop(ReadCtx& c) {
  if (c.inputs().size() != 2) fail("{}: ListAppendAndInsertGrad takes (list, index)", c.what());
  return list_result(c, c.add1("SequenceErase", {c.tensor(0), read_index(c, 1)}));
}

RVal import_sequence_concat(ReadCtx& c, bool stack) {
  if (c.inputs().size() != 1) fail("{}: takes one sequence", c.what());
  int64_t axis = c.attr("axis") ? c.attr("axis")->as_int() : 0;
  std::map<std::string, Attribute> a{{"axis", Attribute::of_int(axis)}};
  if (stack) a["new_axis"] = Attribute::of_int(1);
  return RVal::tensor(c.add1("ConcatFromSequence", {c.tensor(0)}, a), c.out_abstract());
}

RVal import_sequence_len(ReadCtx& c) {
  if (c.inputs().size() != 1) fail("{}: sequence_len takes one sequence", c.what());
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = DType::Int64;
  a.rank_known = true;
  return RVal::tensor(c.add1("SequenceLength", {c.tensor(0)}), a);
}

// TensorToScalar: the IR holds a scalar as a 0-d tensor, so the value passes through unchanged.
RVal import_tensor_to_scalar(ReadCtx& c) {
  if (c.inputs().size() != 1) fail("{}: TensorToScalar takes one tensor", c.what());
  return c.inputs()[0];
}

// ScalarToTensor(x, dtype): a 0-d tensor of the dtype (a Cast when it differs from x's).
RVal import_scalar_to_tensor(ReadCtx& c) {
  if (c.inputs().empty()) fail("{}: ScalarToTensor without an input", c.what());
  DType want = DType::Float32;
  if (c.inputs().size() > 1 && c.inputs()[1].kind == RVal::Kind::Const && c.inputs()[1].c.kind == MsValue::Kind::DType)
    want = c.inputs()[1].c.dtype;
  else if (c.inputs().size() > 1 && c.inputs()[1].kind == RVal::Kind::Const && c.inputs()[1].c.kind == MsValue::Kind::Int)
    want = dtype_from_type_id(c.inputs()[1].c.i, c.what());
  const RVal& x = c.inputs()[0];
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = want;
  a.rank_known = true;
  if (x.kind == RVal::Kind::Tensor && c.dtype(0) == want && c.producer(x.name) && c.use_count(0) == 1)
    return RVal::tensor(c.reclaim(x.name), a);
  return RVal::tensor(c.add1("Cast", {c.tensor(0)}, {{"to", Attribute::of_int(static_cast<int64_t>(want))}}), a);
}

ExportRule E(std::string ir, std::string prim, ExportFn fn) { return ExportRule{std::move(ir), std::move(prim), {}, std::move(fn)}; }
ImportRule I(std::string prim, ImportFn fn) { return ImportRule{std::move(prim), "", {}, std::move(fn)}; }

}  // namespace

const std::vector<ExportRule>& sequence_export_rules() {
  static const std::vector<ExportRule> rules = {
      E("SequenceConstruct", "make_list", export_construct), E("SequenceEmpty", "make_list", export_empty),
      E("SequenceInsert", "ListInsert", export_insert),      E("SequenceAt", "list_getitem", export_at),
      E("SequenceLength", "sequence_len", export_length),    E("SequenceErase", "ListAppendAndInsertGrad", export_erase),
      E("ConcatFromSequence", "SequenceConcat", export_concat_from_sequence),
      E("SplitToSequence", "Split", export_split_to_sequence),
  };
  return rules;
}

const std::vector<ImportRule>& sequence_import_rules() {
  static const std::vector<ImportRule> rules = {
      I("make_list", import_make_list),         I("ListAppend", import_list_append),
      I("ListInsert", import_list_insert),      I("list_getitem", import_list_getitem),
      I("sequence_len", import_sequence_len),   I("TensorToScalar", import_tensor_to_scalar),
      I("ScalarToTensor", import_scalar_to_tensor), I("ListAppendAndInsertGrad", import_list_pop),
      I("SequenceConcat", [](ReadCtx& c) { return import_sequence_concat(c, false); }),
      I("SequenceStack", [](ReadCtx& c) { return import_sequence_concat(c, true); }),
  };
  return rules;
}

}  // namespace ms::mindir
