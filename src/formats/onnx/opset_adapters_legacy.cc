// Attributes that were removed or changed type, and operators that were renamed.
#include <cctype>

#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format::adapters {

void drop_consumed_inputs(Node& n, UpgradeCtx&) { drop_attr(n, "consumed_inputs"); }

void cast_6(Node& n, UpgradeCtx& c) {
  // Cast-1 named the target type as a string; from 6 it is the TensorProto element type.
  auto it = n.attrs.find("to");
  if (it == n.attrs.end() || it->second.type != AttrType::String) return;
  std::string s = it->second.s;
  for (auto& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  static const std::map<std::string, DType> names = {
      {"FLOAT", DType::Float32}, {"UINT8", DType::UInt8},   {"INT8", DType::Int8},       {"UINT16", DType::UInt16},
      {"INT16", DType::Int16},   {"INT32", DType::Int32},   {"INT64", DType::Int64},     {"STRING", DType::String},
      {"BOOL", DType::Bool},     {"FLOAT16", DType::Float16}, {"DOUBLE", DType::Float64}, {"UINT32", DType::UInt32},
      {"UINT64", DType::UInt64}};
  auto t = names.find(s);
  if (t == names.end()) c.unsupported(n, 6, "cannot map the type name '" + it->second.s + "'");
  it->second = Attribute::of_int(int64_t(t->second));
}

void concat_4(Node& n, UpgradeCtx&) {
  if (!n.attr("axis")) n.attrs["axis"] = Attribute::of_int(1);  // Concat-1's default
}

void batch_norm_7(Node& n, UpgradeCtx& c) {
  // Before 7, is_test=0 meant training (batch statistics, updated running stats): only the
  // inference form, a single output, has an opset-7 equivalent.
  const Attribute* t = n.attr("is_test");
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty() && !(t && t->i != 0)) c.unsupported(n, 7, "is in training mode (is_test=0 with statistics outputs)");
  n.outputs.resize(1);
  drop_attr(n, "is_test");
}

void batch_norm_9(Node& n, UpgradeCtx& c) {
  if (const Attribute* s = n.attr("spatial"); s && s->i == 0)
    c.unsupported(n, 9, "has spatial=0 (per-element statistics), which BatchNormalization-9 cannot express");
  drop_attr(n, "spatial");
}

void dropout_7(Node& n, UpgradeCtx&) { drop_attr(n, "is_test"); }

void lp_pool_2(Node& n, UpgradeCtx& c) {
  auto it = n.attrs.find("p");
  if (it == n.attrs.end() || it->second.type != AttrType::Float) return;
  const float p = it->second.f;
  if (p != float(int64_t(p))) c.unsupported(n, 2, fmt::format("has a non-integer p={} (p is an integer from 2)", p));
  it->second = Attribute::of_int(int64_t(p));
}

void recurrent_7(Node& n, UpgradeCtx&) { drop_attr(n, "output_sequence"); }

void scatter_to_scatter_elements(Node& n, UpgradeCtx&) { n.op_type = "ScatterElements"; }

}  // namespace ms::onnx_format::adapters
