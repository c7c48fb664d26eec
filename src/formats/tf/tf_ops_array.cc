// TensorFlow shape, slicing and joining ops. Axes are kept in TensorFlow's (NHWC) layout: these
// ops see the same tensors as in TF because only layout-sensitive ops run channels-first.
#include <algorithm>
#include <limits>

#include "formats/import_builder.h"
#include "formats/tf/tf_context.h"

namespace ms::tf_format {

namespace {

using NodeDef = ms_tf::NodeDef;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

Attribute to_type(DType dt) { return Attribute::of_int(static_cast<int64_t>(dt)); }

// Input i as an int64 value for the IR's shape-like inputs (TF uses int32 for them).
std::string as_int64(TfContext& c, const NodeDef& n, size_t i, const char* what) {
  if (const Tensor* t = c.constant_input(n, i)) return c.b.int64s(t->to_int64_vector(), n.name() + "/" + what);
  return c.b.add("Cast", {c.input(n, i)}, n.name() + "/" + what, {{"to", to_type(DType::Int64)}});
}

int64_t scalar_axis(TfContext& c, const NodeDef& n, size_t i) {
  std::vector<int64_t> v = c.constant_ints(n, i, "axis");
  if (v.size() != 1) fail("axis must be a scalar, got {} values", v.size());
  return v[0];
}

void strided_slice(TfContext& c, const NodeDef& n) {
  importer::StridedSlice spec;
  spec.begin = c.constant_ints(n, 1, "begin");
  spec.end = c.constant_ints(n, 2, "end");
  spec.strides = c.constant_ints(n, 3, "strides");
  spec.begin_mask = c.attr_int(n, "begin_mask", 0);
  spec.end_mask = c.attr_int(n, "end_mask", 0);
  spec.ellipsis_mask = c.attr_int(n, "ellipsis_mask", 0);
  spec.new_axis_mask = c.attr_int(n, "new_axis_mask", 0);
  spec.shrink_axis_mask = c.attr_int(n, "shrink_axis_mask", 0);
  importer::emit_strided_slice(c.b, c.input(n, 0), spec, c.output_name(n), n.name());
}

void concat(TfContext& c, const NodeDef& n, size_t axis_input, size_t first, size_t count) {
  std::vector<std::string> ins;
  for (size_t i = first; i < first + count; ++i) ins.push_back(c.input(n, i));
  c.b.add_node("Concat", ins, {c.output_name(n)}, {{"axis", Attribute::of_int(scalar_axis(c, n, axis_input))}}, n.name());
}

// Split into `count` pieces along `axis` (sizes empty = equal pieces).
void split(TfContext& c, const NodeDef& n, const std::string& x, int64_t axis, int64_t count, std::vector<int64_t> sizes) {
  std::vector<std::string> outs;
  for (int64_t k = 0; k < count; ++k) outs.push_back(c.output_name(n, static_cast<int>(k)));
  std::vector<std::string> ins{x};
  if (!sizes.empty()) ins.push_back(c.b.int64s(sizes, n.name() + "/sizes"));
  c.b.add_node("Split", ins, outs, {{"axis", Attribute::of_int(axis)}}, n.name());
}

void pad(TfContext& c, const NodeDef& n, const std::string& mode) {
  const Tensor& p = c.require_constant(n, 1, "paddings");
  if (p.rank() != 2 || p.dim(1) != 2) fail("paddings must be [rank, 2], got {}", shape_str(p.shape()));
  std::vector<int64_t> v = p.to_int64_vector(), pads(v.size());
  const int64_t r = p.dim(0);
  for (int64_t d = 0; d < r; ++d) {
    pads[d] = v[2 * d];
    pads[r + d] = v[2 * d + 1];
  }
  std::vector<std::string> ins{c.input(n, 0), c.b.int64s(pads, n.name() + "/pads")};
  if (n.op() == "PadV2") ins.push_back(c.input(n, 2));
  c.b.add_node("Pad", ins, {c.output_name(n)}, {{"mode", Attribute::of_string(mode)}}, n.name());
}

}  // namespace

void add_array_converters(ConverterTable& t) {
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient", "CheckNumerics", "EnsureShape"})
    t[op] = [](TfContext& c, const NodeDef& n) { c.alias_output(n, 0, c.input(n, 0)); };
  t["IdentityN"] = [](TfContext& c, const NodeDef& n) {
    for (size_t i = 0; i < c.num_inputs(n); ++i) c.alias_output(n, static_cast<int>(i), c.input(n, i));
  };
  t["Reshape"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Reshape", {c.input(n, 0), as_int64(c, n, 1, "shape")}, {c.output_name(n)}, {}, n.name());
  };
  t["Squeeze"] = [](TfContext& c, const NodeDef& n) {
    std::vector<std::string> ins{c.input(n, 0)};
    std::vector<int64_t> dims = c.attr_ints(n, "squeeze_dims");
    if (dims.empty()) dims = c.attr_ints(n, "axis");
    if (!dims.empty()) ins.push_back(c.b.int64s(dims, n.name() + "/axes"));
    c.b.add_node("Squeeze", ins, {c.output_name(n)}, {}, n.name());
  };
  t["ExpandDims"] = [](TfContext& c, const NodeDef& n) {
    std::string axes = c.b.int64s({scalar_axis(c, n, 1)}, n.name() + "/axes");
    c.b.add_node("Unsqueeze", {c.input(n, 0), axes}, {c.output_name(n)}, {}, n.name());
  };
  t["Transpose"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Transpose", {c.input(n, 0)}, {c.output_name(n)},
                 {{"perm", Attribute::of_ints(c.constant_ints(n, 1, "perm"))}}, n.name());
  };
  t["ConcatV2"] = [](TfContext& c, const NodeDef& n) { concat(c, n, c.num_inputs(n) - 1, 0, c.num_inputs(n) - 1); };
  t["Concat"] = [](TfContext& c, const NodeDef& n) { concat(c, n, 0, 1, c.num_inputs(n) - 1); };
  t["Pack"] = [](TfContext& c, const NodeDef& n) {
    // Stacking = inserting the new axis in every input, then joining along it.
    int64_t axis = c.attr_int(n, "axis", 0);
    std::string axes = c.b.int64s({axis}, n.name() + "/axes");
    std::vector<std::string> ins;
    for (size_t i = 0; i < c.num_inputs(n); ++i)
      ins.push_back(c.b.add("Unsqueeze", {c.input(n, i), axes}, n.name() + "/in" + std::to_string(i)));
    c.b.add_node("Concat", ins, {c.output_name(n)}, {{"axis", Attribute::of_int(axis)}}, n.name());
  };
  t["Unpack"] = [](TfContext& c, const NodeDef& n) {
    int64_t num = c.attr_int(n, "num", 0), axis = c.attr_int(n, "axis", 0);
    if (num <= 0) fail("num must be positive");
    std::vector<std::string> pieces;
    for (int64_t k = 0; k < num; ++k) pieces.push_back(c.b.unique_name(n.name() + "/piece" + std::to_string(k)));
    c.b.add_node("Split", {c.input(n, 0)}, pieces, {{"axis", Attribute::of_int(axis)}}, n.name());
    std::string axes = c.b.int64s({axis}, n.name() + "/axes");
    for (int64_t k = 0; k < num; ++k) c.b.add_node("Squeeze", {pieces[k], axes}, {c.output_name(n, static_cast<int>(k))});
  };
  t["Split"] = [](TfContext& c, const NodeDef& n) {
    split(c, n, c.input(n, 1), scalar_axis(c, n, 0), c.attr_int(n, "num_split", 1), {});
  };
  t["SplitV"] = [](TfContext& c, const NodeDef& n) {
    std::vector<int64_t> sizes = c.constant_ints(n, 1, "size_splits");
    int64_t axis = scalar_axis(c, n, 2);
    auto unknown = std::find(sizes.begin(), sizes.end(), -1);
    if (unknown != sizes.end()) {
      // One size may be -1: the rest of the axis.
      std::vector<int64_t> dims = c.dims_of(c.input(n, 0));
      int64_t a = axis < 0 ? axis + static_cast<int64_t>(dims.size()) : axis;
      if (a < 0 || a >= static_cast<int64_t>(dims.size()) || dims[a] < 0)
        fail_unsupported("a size of -1 needs the static size of axis {}", axis);
      int64_t known = 0;
      for (int64_t s : sizes) known += s == -1 ? 0 : s;
      *unknown = dims[a] - known;
    }
    split(c, n, c.input(n, 0), axis, static_cast<int64_t>(sizes.size()), sizes);
  };
  t["Shape"] = [](TfContext& c, const NodeDef& n) {
    DType out = c.attr_dtype(n, "out_type", DType::Int32);
    if (out == DType::Int64) {
      c.b.add_node("Shape", {c.input(n, 0)}, {c.output_name(n)}, {}, n.name());
      return;
    }
    std::string s = c.b.add("Shape", {c.input(n, 0)}, n.name() + "/int64");
    c.b.add_node("Cast", {s}, {c.output_name(n)}, {{"to", to_type(out)}}, n.name());
  };
  t["Fill"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Expand", {c.input(n, 1), as_int64(c, n, 0, "dims")}, {c.output_name(n)}, {}, n.name());
  };
  t["Tile"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Tile", {c.input(n, 0), as_int64(c, n, 1, "multiples")}, {c.output_name(n)}, {}, n.name());
  };
  t["Pad"] = [](TfContext& c, const NodeDef& n) { pad(c, n, "constant"); };
  t["PadV2"] = t["Pad"];
  t["MirrorPad"] = [](TfContext& c, const NodeDef& n) {
    std::string mode = c.attr_string(n, "mode", "REFLECT");
    if (mode != "REFLECT") fail_unsupported("MirrorPad mode {} (only REFLECT has an equivalent)", mode);
    pad(c, n, "reflect");
  };
  t["StridedSlice"] = strided_slice;
  t["Slice"] = [](TfContext& c, const NodeDef& n) {
    std::vector<int64_t> begin = c.constant_ints(n, 1, "begin"), size = c.constant_ints(n, 2, "size"), ends, axes;
    if (begin.size() != size.size()) fail("begin and size differ in length");
    for (size_t d = 0; d < begin.size(); ++d) {
      ends.push_back(size[d] == -1 ? kMax : begin[d] + size[d]);
      axes.push_back(static_cast<int64_t>(d));
    }
    c.b.add_node("Slice", {c.input(n, 0), c.b.int64s(begin, n.name() + "/starts"), c.b.int64s(ends, n.name() + "/ends"),
                           c.b.int64s(axes, n.name() + "/axes")}, {c.output_name(n)}, {}, n.name());
  };
  t["Cast"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Cast", {c.input(n, 0)}, {c.output_name(n)}, {{"to", to_type(c.attr_dtype(n, "DstT", DType::Float32))}}, n.name());
  };
  t["GatherV2"] = [](TfContext& c, const NodeDef& n) {
    if (c.attr_int(n, "batch_dims", 0) != 0) fail_unsupported("batch_dims != 0");
    c.b.add_node("Gather", {c.input(n, 0), c.input(n, 1)}, {c.output_name(n)},
                 {{"axis", Attribute::of_int(scalar_axis(c, n, 2))}}, n.name());
  };
  t["Gather"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Gather", {c.input(n, 0), c.input(n, 1)}, {c.output_name(n)}, {}, n.name());
  };
  t["RandomUniform"] = [](TfContext& c, const NodeDef& n) {
    // U[0, 1) of the given shape: a zero tensor of that shape drives RandomUniformLike.
    std::string zeros = c.b.add("ConstantOfShape", {as_int64(c, n, 0, "shape")}, n.name() + "/zeros");
    std::map<std::string, Attribute> attrs{{"dtype", to_type(c.attr_dtype(n, "dtype", DType::Float32))}};
    if (int64_t seed = c.attr_int(n, "seed2", 0) + c.attr_int(n, "seed", 0)) attrs["seed"] = Attribute::of_float(float(seed));
    c.b.add_node("RandomUniformLike", {zeros}, {c.output_name(n)}, attrs, n.name());
  };
}

}  // namespace ms::tf_format
