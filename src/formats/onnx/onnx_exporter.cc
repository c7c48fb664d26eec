#include "formats/onnx/onnx_exporter.h"

#include <algorithm>

#include "formats/onnx/onnx_tensor.h"

namespace ms::onnx_format {

namespace {

void export_graph(const Graph& g, onnx::GraphProto* out);

void export_value_info(const ValueInfo& v, onnx::ValueInfoProto* out) {
  out->set_name(v.name);
  if (v.type.kind != TypeInfo::Kind::Unknown) type_to_proto(v.type, out->mutable_type());
}

void export_attr(const std::string& name, const Attribute& a, onnx::AttributeProto* out) {
  out->set_name(name);
  switch (a.type) {
    case AttrType::Float: out->set_type(onnx::AttributeProto::FLOAT); out->set_f(a.f); break;
    case AttrType::Int: out->set_type(onnx::AttributeProto::INT); out->set_i(a.i); break;
    case AttrType::String: out->set_type(onnx::AttributeProto::STRING); out->set_s(a.s); break;
    case AttrType::Tensor:
      out->set_type(onnx::AttributeProto::TENSOR);
      tensor_to_proto(a.t, "", out->mutable_t());
      break;
    case AttrType::Graph:
      out->set_type(onnx::AttributeProto::GRAPH);
      export_graph(*a.g, out->mutable_g());
      break;
    case AttrType::Floats:
      out->set_type(onnx::AttributeProto::FLOATS);
      for (float f : a.floats) out->add_floats(f);
      break;
    case AttrType::Ints:
      out->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : a.ints) out->add_ints(i);
      break;
    case AttrType::Strings:
      out->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : a.strings) out->add_strings(s);
      break;
    case AttrType::Tensors:
      out->set_type(onnx::AttributeProto::TENSORS);
      for (const auto& t : a.tensors) tensor_to_proto(t, "", out->add_tensors());
      break;
    case AttrType::Graphs:
      out->set_type(onnx::AttributeProto::GRAPHS);
      for (const auto& sg : a.graphs) export_graph(*sg, out->add_graphs());
      break;
    default: fail("attribute '{}' has no type and cannot be exported", name);
  }
}

void export_graph(const Graph& g, onnx::GraphProto* out) {
  out->set_name(g.name);
  if (!g.doc.empty()) out->set_doc_string(g.doc);
  for (const auto& [name, t] : g.initializers) tensor_to_proto(t, name, out->add_initializer());
  for (const auto& v : g.inputs) export_value_info(v, out->add_input());
  for (const auto& v : g.outputs) export_value_info(v, out->add_output());
  for (const auto& v : g.value_info) export_value_info(v, out->add_value_info());
  for (const auto& n : g.nodes) {
    auto* p = out->add_node();
    p->set_name(n.name);
    p->set_op_type(n.op_type);
    if (!n.domain.empty()) p->set_domain(n.domain);
    if (!n.doc.empty()) p->set_doc_string(n.doc);
    for (const auto& i : n.inputs) p->add_input(i);
    for (const auto& o : n.outputs) p->add_output(o);
    for (const auto& [k, a] : n.attrs)
      if (a.type != AttrType::Undefined) export_attr(k, a, p->add_attribute());
  }
}

}  // namespace

void export_onnx(const Model& model, onnx::ModelProto* out) {
  // IR version 8 is what opset 17 models carry (ONNX 1.12); older files keep theirs.
  out->set_ir_version(std::max<int64_t>(model.ir_version, 3));
  out->set_producer_name(model.producer_name.empty() ? "mstools" : model.producer_name);
  out->set_producer_version(model.producer_version);
  if (!model.domain.empty()) out->set_domain(model.domain);
  out->set_model_version(model.model_version);
  if (!model.doc.empty()) out->set_doc_string(model.doc);
  for (const auto& [domain, version] : model.opsets) {
    auto* o = out->add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }
  for (const auto& [k, v] : model.metadata) {
    auto* kv = out->add_metadata_props();
    kv->set_key(k);
    kv->set_value(v);
  }
  export_graph(model.graph, out->mutable_graph());
}

std::string export_onnx_bytes(const Model& model) {
  onnx::ModelProto p;
  export_onnx(model, &p);
  std::string bytes;
  if (!p.SerializeToString(&bytes)) fail("model is too large to serialize as one ONNX protobuf (2 GiB limit)");
  return bytes;
}

}  // namespace ms::onnx_format
