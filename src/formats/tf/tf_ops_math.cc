// TensorFlow arithmetic, comparison, matmul and reduction ops. Their broadcasting is numpy's, as
// in the IR, so most map one to one.
#include "formats/tf/tf_context.h"

namespace ms::tf_format {

namespace {

using NodeDef = ms_tf::NodeDef;

void binary(ConverterTable& t, const char* tf, const char* ir) {
  t[tf] = [ir](TfContext& c, const NodeDef& n) {
    c.b.add_node(ir, {c.input(n, 0), c.input(n, 1)}, {c.output_name(n)}, {}, n.name());
  };
}

// The last two axes swapped (BatchMatMul's adj_x/y): the rank must be known.
std::string swap_last_two(TfContext& c, const std::string& x, const NodeDef& n, const char* tag) {
  int r = c.rank_of(x);
  if (r < 2) fail_unsupported("transposing operand {} needs its rank (unknown here)", tag);
  std::vector<int64_t> perm;
  for (int k = 0; k < r; ++k) perm.push_back(k);
  std::swap(perm[r - 1], perm[r - 2]);
  return c.b.transpose(x, perm, n.name() + "/" + tag + "_t");
}

// BatchMatMul's adj_x/adj_y transpose the last two axes of operands of any rank >= 2.
void batch_matmul(TfContext& c, const NodeDef& n) {
  std::string a = c.input(n, 0), b = c.input(n, 1);
  if (c.attr_bool(n, "adj_x", false)) a = swap_last_two(c, a, n, "a");
  if (c.attr_bool(n, "adj_y", false)) b = swap_last_two(c, b, n, "b");
  c.b.add_node("MatMul", {a, b}, {c.output_name(n)}, {}, n.name());
}

// TF's MatMul multiplies matrices: both operands are rank 2 by the op's definition (its shape
// function, shape_inference::MatMulShape, requires rank 2 of each), so transpose_a/transpose_b are a fixed perm [1, 0] that needs
// no inferred rank (frozen graphs often feed it from an unknown-rank Placeholder or Reshape).
void matmul(TfContext& c, const NodeDef& n) {
  std::string a = c.input(n, 0), b = c.input(n, 1);
  if (c.attr_bool(n, "transpose_a", false)) a = c.b.transpose(a, {1, 0}, n.name() + "/a_t");
  if (c.attr_bool(n, "transpose_b", false)) b = c.b.transpose(b, {1, 0}, n.name() + "/b_t");
  c.b.add_node("MatMul", {a, b}, {c.output_name(n)}, {}, n.name());
}

void reduce(TfContext& c, const NodeDef& n, const char* ir) {
  std::vector<int64_t> axes = c.constant_ints(n, 1, "reduction_indices");
  if (axes.empty()) {
    // TF reduces nothing over an empty axis list (the IR would reduce everything).
    c.b.add_node("Identity", {c.input(n, 0)}, {c.output_name(n)}, {}, n.name());
    return;
  }
  int64_t keep = c.attr_bool(n, "keep_dims", false) ? 1 : 0;
  std::map<std::string, Attribute> attrs{{"keepdims", Attribute::of_int(keep)}};
  std::vector<std::string> ins{c.input(n, 0)};
  if (std::string(ir) == "ReduceSum")  // axes are an input of ReduceSum at the IR's opset
    ins.push_back(c.b.int64s(axes, n.name() + "/axes"));
  else
    attrs["axes"] = Attribute::of_ints(axes);
  c.b.add_node(ir, ins, {c.output_name(n)}, attrs, n.name());
}

void arg(TfContext& c, const NodeDef& n, const char* ir) {
  std::vector<int64_t> axis = c.constant_ints(n, 1, "dimension");
  if (axis.size() != 1) fail("dimension must be a scalar");
  DType out = c.attr_dtype(n, "output_type", DType::Int64);
  std::map<std::string, Attribute> attrs{{"axis", Attribute::of_int(axis[0])}, {"keepdims", Attribute::of_int(0)}};
  if (out == DType::Int64) {
    c.b.add_node(ir, {c.input(n, 0)}, {c.output_name(n)}, attrs, n.name());
    return;
  }
  std::string idx = c.b.add(ir, {c.input(n, 0)}, n.name() + "/int64", attrs);
  c.b.add_node("Cast", {idx}, {c.output_name(n)}, {{"to", Attribute::of_int(int64_t(out))}});
}

}  // namespace

void add_math_converters(ConverterTable& t) {
  for (auto [tf, ir] : std::vector<std::pair<const char*, const char*>>{
           {"Add", "Add"}, {"AddV2", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"RealDiv", "Div"}, {"Div", "Div"},
           {"Maximum", "Max"}, {"Minimum", "Min"}, {"Pow", "Pow"}, {"Less", "Less"}, {"Greater", "Greater"},
           {"LessEqual", "LessOrEqual"}, {"GreaterEqual", "GreaterOrEqual"}, {"Equal", "Equal"},
           {"LogicalAnd", "And"}, {"LogicalOr", "Or"}})
    binary(t, tf, ir);
  t["SquaredDifference"] = [](TfContext& c, const NodeDef& n) {
    std::string d = c.b.add("Sub", {c.input(n, 0), c.input(n, 1)}, n.name() + "/diff");
    c.b.add_node("Mul", {d, d}, {c.output_name(n)}, {}, n.name());
  };
  t["Square"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Mul", {c.input(n, 0), c.input(n, 0)}, {c.output_name(n)}, {}, n.name());
  };
  t["Rsqrt"] = [](TfContext& c, const NodeDef& n) {
    std::string s = c.b.add("Sqrt", {c.input(n, 0)}, n.name() + "/sqrt");
    c.b.add_node("Reciprocal", {s}, {c.output_name(n)}, {}, n.name());
  };
  t["AddN"] = [](TfContext& c, const NodeDef& n) {
    std::vector<std::string> ins;
    for (size_t i = 0; i < c.num_inputs(n); ++i) ins.push_back(c.input(n, i));
    c.b.add_node("Sum", ins, {c.output_name(n)}, {}, n.name());
  };
  t["Select"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Where", {c.input(n, 0), c.input(n, 1), c.input(n, 2)}, {c.output_name(n)}, {}, n.name());
  };
  t["SelectV2"] = t["Select"];
  t["MatMul"] = matmul;
  t["BatchMatMul"] = batch_matmul;
  t["BatchMatMulV2"] = t["BatchMatMul"];
  t["BatchMatMulV3"] = t["BatchMatMul"];
  t["Mean"] = [](TfContext& c, const NodeDef& n) { reduce(c, n, "ReduceMean"); };
  t["Sum"] = [](TfContext& c, const NodeDef& n) { reduce(c, n, "ReduceSum"); };
  t["Max"] = [](TfContext& c, const NodeDef& n) { reduce(c, n, "ReduceMax"); };
  t["Min"] = [](TfContext& c, const NodeDef& n) { reduce(c, n, "ReduceMin"); };
  t["Prod"] = [](TfContext& c, const NodeDef& n) { reduce(c, n, "ReduceProd"); };
  t["ArgMax"] = [](TfContext& c, const NodeDef& n) { arg(c, n, "ArgMax"); };
  t["ArgMin"] = [](TfContext& c, const NodeDef& n) { arg(c, n, "ArgMin"); };
}

}  // namespace ms::tf_format
