// Small helpers shared by the export functions of the mapping table (mindir_op_table.cc), the
// exports in MindSpore's own forms (mindir_native_forms.cc) and those written as compositions of
// several primitives (mindir_composed_export.cc).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "formats/mindir/mindir_ops.h"

namespace ms::mindir::wu {

inline const std::string& out0(WriteCtx& c) { return c.node().outputs.at(0); }
inline Abstract out_abs(WriteCtx& c, size_t i = 0) { return c.abstract(c.node().outputs.at(i)); }
inline bool has_in(WriteCtx& c, size_t i) { return i < c.node().inputs.size() && !c.node().inputs[i].empty(); }
inline bool has_out(WriteCtx& c, size_t i) { return i < c.node().outputs.size() && !c.node().outputs[i].empty(); }
inline std::string label(WriteCtx& c) { return c.node().label(); }

inline int64_t int_attr(WriteCtx& c, const std::string& n, int64_t def) {
  const Attribute* a = c.attr(n);
  return a && a->type == AttrType::Int ? a->i : def;
}
inline float float_attr(WriteCtx& c, const std::string& n, float def) {
  const Attribute* a = c.attr(n);
  return a && a->type == AttrType::Float ? a->f : def;
}
inline std::string str_attr(WriteCtx& c, const std::string& n, const std::string& def) {
  const Attribute* a = c.attr(n);
  return a && a->type == AttrType::String ? a->s : def;
}
inline std::optional<std::vector<int64_t>> ints_attr(WriteCtx& c, const std::string& n) {
  const Attribute* a = c.attr(n);
  if (a && a->type == AttrType::Ints && !a->ints.empty()) return a->ints;  // empty = the schema's "not given"
  return std::nullopt;
}
// Input i as constant integers (an initializer), if it is one.
inline std::optional<std::vector<int64_t>> const_ints(WriteCtx& c, size_t i) {
  if (!has_in(c, i)) return std::nullopt;
  const Tensor* t = c.constant(c.node().inputs[i]);
  if (!t || !dtype_is_integer(t->dtype())) return std::nullopt;
  return t->to_int64_vector();
}
inline int rank_of(WriteCtx& c, size_t i) {
  if (!has_in(c, i)) return -1;
  if (const Tensor* t = c.constant(c.node().inputs[i])) return t->rank();
  Abstract a = c.abstract(c.node().inputs[i]);
  return a.rank_known ? static_cast<int>(a.dims.size()) : -1;
}
inline std::vector<int64_t> dims_of(WriteCtx& c, size_t i) {
  if (const Tensor* t = c.constant(c.node().inputs[i])) return t->shape();
  Abstract a = c.abstract(c.node().inputs[i]);
  return a.rank_known ? a.dims : std::vector<int64_t>{};
}
inline MsValue strs(std::vector<std::string> v) {
  MsValue r;
  r.kind = MsValue::Kind::List;
  for (auto& s : v) r.elems.push_back(MsValue::of_string(std::move(s)));
  return r;
}
inline Abstract tuple_abs(std::vector<Abstract> e) {
  Abstract a;
  a.kind = Abstract::Kind::Tuple;
  a.elems = std::move(e);
  return a;
}

// Emits primitives whose output abstracts are left unknown: the intermediate values of a
// composition. Constants become Constant nodes.
struct Emit {
  WriteCtx& c;
  std::string op(const std::string& prim, std::vector<std::string> ins, std::map<std::string, MsValue> a = {}) {
    return c.call(prim, a, ins, Abstract{});
  }
  std::string ints(const std::vector<int64_t>& v) { return c.constant_node(MsValue::of_ints(v)); }
  std::string int_tensor(const std::vector<int64_t>& v, std::vector<int64_t> shape) {
    return c.constant_node(MsValue::of_tensor(Tensor::from_vector<int64_t>(v, std::move(shape))));
  }
  std::string i64(int64_t v) { return c.constant_node(MsValue::of_tensor(Tensor::scalar<int64_t>(v))); }
  std::string scalar(DType dt, double v) {
    switch (dt) {
      case DType::Float32: return c.constant_node(MsValue::of_tensor(Tensor::scalar<float>(static_cast<float>(v))));
      case DType::Float64: return c.constant_node(MsValue::of_tensor(Tensor::scalar<double>(v)));
      case DType::Float16: return c.constant_node(MsValue::of_tensor(Tensor::scalar<float16_t>(float16_t(static_cast<float>(v)))));
      default: fail_unsupported("{}: this composition needs float16/32/64 values, got {}", label(c), dtype_name(dt));
    }
  }
  std::string cast(const std::string& v, DType to) { return op("Cast", {v, c.constant_node(MsValue::of_dtype(to))}); }
  std::string reduce(const std::string& prim, const std::string& v, const std::vector<int64_t>& axes, bool keep) {
    return op(prim, {v, ints(axes)}, {{"keep_dims", MsValue::of_bool(keep)}});
  }
  std::string gather(const std::string& v, const std::string& idx) { return op("Gather", {v, idx, c.constant_node(MsValue::of_int(0))}); }
  std::string concat(const std::vector<std::string>& parts) {
    std::string t = c.call("MakeTuple", {}, parts, tuple_abs(std::vector<Abstract>(parts.size())));
    return op("Concat", {t}, {{"axis", MsValue::of_int(0)}, {"inputNums", MsValue::of_int(static_cast<int64_t>(parts.size()))}});
  }
};

}  // namespace ms::mindir::wu
