#include "formats/mindir/mindir_index_forms.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

int64_t product(const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>()); }

std::vector<int64_t> with_ones(const std::vector<int64_t>& v) {
  std::vector<int64_t> r{1, 1};
  r.insert(r.end(), v.begin(), v.end());
  return r;
}

Tensor i64(const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

// The last `n` values of a MindSpore size attribute ((1, 1, h, w) or (h, w) or h).
std::vector<int64_t> spatial(const MsValue* v, int n, int64_t def) {
  if (!v) return std::vector<int64_t>(n, def);
  auto a = v->as_ints();
  if (a.size() == 1) return std::vector<int64_t>(n, a[0]);
  if (static_cast<int>(a.size()) < n) return std::vector<int64_t>(n, def);
  return std::vector<int64_t>(a.end() - n, a.end());
}

// Default MaxUnpool output extent per spatial dim, with symmetric pads.
std::vector<int64_t> unpool_dims(const std::vector<int64_t>& in, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                                 const std::vector<int64_t>& p) {
  std::vector<int64_t> r(in.size());
  for (size_t i = 0; i < in.size(); ++i) r[i] = (in[i] - 1) * s[i] - 2 * p[i] + k[i];
  return r;
}

Abstract int64_abstract() {
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = DType::Int64;
  return a;
}

}  // namespace

void export_max_unpool(WriteCtx& c) {
  Emit e{c};
  auto k = ints_attr(c, "kernel_shape");
  int sp = k ? static_cast<int>(k->size()) : 0;
  if (sp != 2 && sp != 3)
    fail_unsupported("{}: {}-D MaxUnpool has no MindSpore primitive (MaxUnpool2D / MaxUnpool3D)", label(c), sp);
  auto dims = dims_of(c, 0);
  if (static_cast<int>(dims.size()) != sp + 2 || std::any_of(dims.begin() + 2, dims.end(), [](int64_t d) { return d < 0; }))
    fail_unsupported("{}: MaxUnpool needs an input of known spatial shape for MindIR (the index conversion depends on it)", label(c));
  std::vector<int64_t> s = ints_attr(c, "strides").value_or(std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>(2 * sp, 0));
  for (int i = 0; i < sp; ++i)
    if (pads[i] != pads[sp + i])
      fail_unsupported("{}: MaxUnpool2D/3D take symmetric pads; {} are not", label(c), fmt::join(pads, ","));
  std::vector<int64_t> p(pads.begin(), pads.begin() + sp);
  std::vector<int64_t> def = unpool_dims({dims.begin() + 2, dims.end()}, *k, s, p);
  std::vector<int64_t> out = def, full_shape;
  if (has_in(c, 2)) {
    // MindSpore takes the output shape as an attribute: a constant input, or the declared static
    // shape of the output when the input is computed at run time.
    std::optional<std::vector<int64_t>> os = const_ints(c, 2);
    Abstract oa = out_abs(c);
    if (!os && oa.rank_known && std::all_of(oa.dims.begin(), oa.dims.end(), [](int64_t d) { return d >= 0; })) os = oa.dims;
    if (!os || static_cast<int>(os->size()) != sp + 2)
      fail_unsupported("{}: MaxUnpool with a run-time output_shape needs a static output shape for MindIR", label(c));
    full_shape = *os;
    out.assign(os->begin() + 2, os->end());
    for (int i = 0; i < sp; ++i)
      if (out[i] < def[i] - s[i] || out[i] > def[i] + s[i])
        fail_unsupported("{}: MaxUnpool output_shape {} is more than one stride from the default size; MindSpore refuses it",
                         label(c), fmt::join(*os, ","));
  }
  // Plane-local index in the default output, then (when output_shape differs) its coordinates
  // re-flattened over the output plane.
  std::string idx = c.in(1);
  if (c.abstract(c.node().inputs[1]).dtype != DType::Int64 && c.abstract(c.node().inputs[1]).dtype != DType::Undefined)
    idx = e.cast(idx, DType::Int64);
  // Typed int64, so that a reader knows the divisions are integer ones.
  auto iop = [&](const char* prim, std::vector<std::string> ins) { return c.call(prim, {}, ins, int64_abstract()); };
  std::string plane = iop("FloorMod", {idx, e.i64(product(def))});
  if (out != def) {
    std::string rest = plane, flat;
    int64_t sd = product(def), so = product(out);
    for (int i = 0; i < sp; ++i) {
      sd /= def[i];
      so /= out[i];
      std::string coord = iop("FloorDiv", {rest, e.i64(sd)});
      rest = iop("FloorMod", {rest, e.i64(sd)});
      std::string term = iop("Mul", {coord, e.i64(so)});
      flat = flat.empty() ? term : iop("Add", {flat, term});
    }
    plane = flat;
  }
  Attrs a{{"ksize", MsValue::of_ints(with_ones(*k))},
          {"strides", MsValue::of_ints(with_ones(s))},
          {"pads", MsValue::of_ints(with_ones(p))},
          {"output_shape", MsValue::of_ints(full_shape)},
          {"data_format", MsValue::of_string(sp == 2 ? "NCHW" : "NCDHW")},
          {"input_names", strs({"x", "argmax"})},
          {"output_names", strs({"y"})}};
  c.bind(out0(c), c.call(sp == 2 ? "MaxUnpool2D" : "MaxUnpool3D", a, {c.in(0), plane}, out_abs(c)));
}

RVal import_max_unpool(ReadCtx& c, int sp) {
  if (const MsValue* f = c.attr("data_format"); f && f->kind == MsValue::Kind::String && f->s != "NCHW" && f->s != "NCDHW")
    fail_unsupported("{}: data_format {} is not supported", c.what(), f->s);
  std::vector<int64_t> k = spatial(c.attr("ksize"), sp, 1);
  std::vector<int64_t> s = spatial(c.attr("strides"), sp, 0);
  if (std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; })) s = k;  // strides 0 means ksize
  std::vector<int64_t> p = spatial(c.attr("pads"), sp, 0);
  auto dims = c.dims(0);
  if (static_cast<int>(dims.size()) != sp + 2 || std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; }))
    fail_unsupported("{}: MaxUnpool needs an input of known shape (its argmax is per plane)", c.what());
  std::vector<int64_t> def = unpool_dims({dims.begin() + 2, dims.end()}, k, s, p), out = def;
  std::vector<int64_t> full_shape;
  if (const MsValue* os = c.attr("output_shape"); os && !os->as_ints().empty()) {
    full_shape = os->as_ints();
    if (static_cast<int>(full_shape.size()) != sp + 2) fail("{}: output_shape {} has the wrong rank", c.what(), os->str());
    out.assign(full_shape.begin() + 2, full_shape.end());
  }
  std::string plane = c.tensor(1);
  if (c.dtype(1) != DType::Int64) plane = c.add1("Cast", {plane}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int64))}});
  auto k64 = [&](int64_t v) { return c.add_const(Tensor::scalar<int64_t>(v), "k"); };
  if (out != def) {
    // Coordinates in the output plane, flattened over the default plane (ONNX's convention).
    std::string rest = plane, flat;
    int64_t sd = product(def), so = product(out);
    for (int i = 0; i < sp; ++i) {
      sd /= def[i];
      so /= out[i];
      std::string coord = c.add1("Div", {rest, k64(so)});
      rest = c.add1("Mod", {rest, k64(so)}, {{"fmod", Attribute::of_int(0)}});
      std::string term = c.add1("Mul", {coord, k64(sd)});
      flat = flat.empty() ? term : c.add1("Add", {flat, term});
    }
    plane = flat;
  }
  int64_t N = dims[0], C = dims[1], pd = product(def);
  std::vector<int64_t> base(static_cast<size_t>(N * C));
  for (int64_t i = 0; i < N * C; ++i) base[i] = i * pd;
  std::vector<int64_t> bshape(static_cast<size_t>(sp + 2), 1);
  bshape[0] = N;
  bshape[1] = C;
  std::string flat_idx = c.add1("Add", {plane, c.add_const(Tensor::from_vector<int64_t>(base, bshape), "plane_base")});
  std::vector<int64_t> onnx_pads = p;
  onnx_pads.insert(onnx_pads.end(), p.begin(), p.end());
  std::vector<std::string> ins{c.tensor(0), flat_idx};
  if (!full_shape.empty()) ins.push_back(c.add_const(i64(full_shape), "output_shape"));
  std::string y = c.add1("MaxUnpool", ins,
                         {{"kernel_shape", Attribute::of_ints(k)}, {"strides", Attribute::of_ints(s)}, {"pads", Attribute::of_ints(onnx_pads)}});
  return RVal::tensor(y, c.out_abstract());
}

namespace {

// 0, 1, ..., len(v) - 1 for a 1-D int64 tensor v whose length is known only at run time.
std::string iota_like(Emit& e, const std::string& v) {
  std::string ones = e.op("Add", {e.op("Mul", {v, e.i64(0)}), e.i64(1)});
  return e.op("CumSum", {ones, e.c.constant_node(MsValue::of_int(0))},
              {{"exclusive", MsValue::of_bool(true)}, {"reverse", MsValue::of_bool(false)}});
}

std::string as_column(Emit& e, const std::string& v) { return e.op("Reshape", {v, e.ints({-1, 1})}); }
std::string as_row(Emit& e, const std::string& v) { return e.op("Reshape", {v, e.ints({1, -1})}); }
std::string hits(Emit& e, const std::string& a, const std::string& b) { return e.cast(e.op("Equal", {a, b}), DType::Int64); }

}  // namespace

// With inv = inverse indices [n] and U unique values (sorted):
//   first[j] = min{i : inv[i] == j}                        (ONNX `indices` for sorted output)
// Unsorted (first-occurrence order): rank[j] = #{k : first[k] < first[j]} is the position of sorted
// value j, and perm[r] = the j with rank[j] == r; then Y = Y_sorted[perm], indices = first[perm],
// inverse = rank[inv], counts = counts_sorted[perm].
void export_unique(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  bool sorted = int_attr(c, "sorted", 1) != 0;
  int64_t axis = 0;
  std::string t;
  Abstract three = tuple_abs({Abstract{}, Abstract{}, Abstract{}});
  std::string yes = c.constant_node(MsValue::of_bool(true));
  if (const Attribute* ax = n.attr("axis")) {
    axis = ax->i;
    if (axis < 0) {
      int r = rank_of(c, 0);
      if (r < 0) fail_unsupported("{}: Unique with a negative axis needs an input of known rank for MindIR", label(c));
      axis += r;
    }
    t = c.call("UniqueDim", {}, {c.in(0), yes, yes, c.constant_node(MsValue::of_int(axis))}, three);
  } else {
    std::string flat = e.op("Reshape", {c.in(0), e.ints({-1})});
    t = c.call("Unique2", {}, {flat, yes, yes, yes}, three);
  }
  std::string y = c.get_item(t, 0, Abstract{}), inv = c.get_item(t, 1, Abstract{}), counts = c.get_item(t, 2, Abstract{});
  std::string iota_u = iota_like(e, counts), iota_n = iota_like(e, inv);
  std::string hit = hits(e, as_column(e, inv), as_row(e, iota_u));  // [n, U]
  std::string miss = e.op("Sub", {e.i64(1), hit});
  std::string pos = e.op("Add", {e.op("Mul", {hit, as_column(e, iota_n)}), e.op("Mul", {miss, e.i64(int64_t{1} << 62)})});
  std::string first = e.reduce("ReduceMin", pos, {0}, false);
  auto gather = [&](const std::string& v, const std::string& idx, int64_t ax, size_t out) {
    return c.call("Gather", {{"batch_dims", MsValue::of_int(0)}}, {v, idx, c.constant_node(MsValue::of_int(ax))}, out_abs(c, out));
  };
  auto bind = [&](size_t i, const std::string& ref) {
    if (has_out(c, i)) c.bind(n.outputs[i], ref);
  };
  if (sorted) {
    bind(0, y);
    bind(1, first);
    bind(2, inv);
    bind(3, counts);
    return;
  }
  std::string lt = e.cast(e.op("Less", {as_row(e, first), as_column(e, first)}), DType::Int64);  // [j, k]: first[k] < first[j]
  std::string rank = e.reduce("ReduceSum", lt, {1}, false);
  std::string at = hits(e, as_column(e, rank), as_row(e, iota_u));  // [j, r]: rank[j] == r
  std::string perm = e.reduce("ReduceSum", e.op("Mul", {at, as_column(e, iota_u)}), {0}, false);
  if (has_out(c, 0)) bind(0, gather(y, perm, axis, 0));
  if (has_out(c, 1)) bind(1, gather(first, perm, 0, 1));
  if (has_out(c, 2)) bind(2, gather(rank, inv, 0, 2));
  if (has_out(c, 3)) bind(3, gather(counts, perm, 0, 3));
}

namespace {

RVal unique_outputs(ReadCtx& c, std::vector<std::string> outs) {
  c.optional(outs[1]);  // ONNX's first-occurrence indices: MindSpore does not return them
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  return RVal::tuple({RVal::tensor(outs[0], ab(0)), RVal::tensor(outs[2], ab(1)), RVal::tensor(outs[3], ab(2))});
}

}  // namespace

// Unique2(x, sorted, return_inverse, return_counts): torch.unique on the flattened x, the inverse
// in the shape of x. The sorted order is always produced (an unsorted request leaves it open).
RVal import_unique2(ReadCtx& c) {
  std::string x = c.tensor(0);
  std::string flat = c.add1("Reshape", {x, c.add_const(i64({-1}), "shape")});
  auto outs = c.add("Unique", {flat}, {{"sorted", Attribute::of_int(1)}}, 4);
  outs[2] = c.add1("Reshape", {outs[2], c.add1("Shape", {x})});
  return unique_outputs(c, outs);
}

// UniqueDim(x, sorted, return_inverse, dim): unique slices along dim, sorted lexicographically.
RVal import_unique_dim(ReadCtx& c) {
  if (!c.has_const_arg(3, "dim")) fail_unsupported("{}: UniqueDim with a dim computed at run time", c.what());
  int64_t dim = c.const_arg(3, "dim").as_int();
  auto outs = c.add("Unique", {c.tensor(0)}, {{"sorted", Attribute::of_int(1)}, {"axis", Attribute::of_int(dim)}}, 4);
  return unique_outputs(c, outs);
}

}  // namespace ms::mindir
