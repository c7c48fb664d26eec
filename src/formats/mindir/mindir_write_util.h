// Small helpers shared by the export functions of the mapping table (mindir_op_table.cc) and the
// exports written as compositions of several primitives (mindir_composed_export.cc).
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

}  // namespace ms::mindir::wu
