#include "formats/onnx/onnx_exporter.h"

#include <algorithm>
#include <set>

#include "formats/onnx/onnx_tensor.h"
#include "ops/conv_pool_util.h"
#include "ops/infer_graph.h"
#include "ops/ms_domain.h"
#include "ops/op.h"

namespace ms::onnx_format {

namespace {

// Node names written so far in the whole model (subgraphs included): ONNX Runtime refuses a model
// whose nodes share a name ("two nodes with same node name"), and importers (TF's one converter
// per TF node emitting several IR nodes) reuse the source node's name for all of them.
using NameSet = std::set<std::string>;

void export_graph(const Graph& g, const std::string& fallback_name, onnx::GraphProto* out, NameSet& names);

std::string unique_node_name(const Node& n, size_t index, NameSet& names) {
  std::string base = n.name.empty() ? n.op_type + "_" + std::to_string(index) : n.name;
  std::string name = base;
  for (int k = 1; names.count(name); ++k) name = base + "_" + std::to_string(k);
  names.insert(name);
  return name;
}

// A node of the project's own domain whose op has no standard ONNX form (kTraitNoOnnxForm on its
// OpDef): ONNX Runtime cannot load the file, so none is written (exit 3).
void refuse_without_onnx_form(const Node& n) {
  if (n.domain != kMsDomain) return;
  const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
  if (!def || !(def->traits & kTraitNoOnnxForm)) return;
  fail_unsupported("node '{}' ({}:{}) has no standard ONNX form (ONNX Runtime cannot load it), so no ONNX file is "
                   "written: save as MINDIR, or leave it out of the model with --outputNames (its inputs as outputs)",
                   n.name, n.domain, n.op_type);
}

// ONNX requires a type and a shape on every main-graph input: an input of unknown rank (TF1's
// Placeholder without a shape) cannot be written; --inputShape gives it one (exit 2).
void refuse_unshaped_inputs(const Graph& g) {
  for (const auto& v : g.inputs) {
    if (g.initializers.count(v.name)) continue;
    if (v.type.kind == TypeInfo::Kind::Tensor && v.type.shape) continue;
    if (v.type.kind == TypeInfo::Kind::Sequence || v.type.kind == TypeInfo::Kind::Optional) continue;
    fail("input '{}' has {}: ONNX requires a shape on every graph input, so no ONNX file is written; give it one "
         "with --inputShape, e.g. --inputShape \"{}:1,784\" (its dims) or --inputShape \"{}:[]\" (a scalar)",
         v.name, v.type.kind == TypeInfo::Kind::Unknown ? "no type" : "unknown rank (no shape)", v.name, v.name);
  }
}

// The IR version ONNX's release table pairs with an ai.onnx opset (onnx/helper.py VERSION_TABLE):
// what a reader of that opset understands, and what the content written here needs (initializers
// that are not graph inputs need IR 4).
int64_t ir_version_for_opset(int64_t opset) {
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  if (opset >= 15) return 8;
  if (opset >= 12) return 7;
  if (opset >= 11) return 6;
  if (opset >= 10) return 5;
  if (opset >= 9) return 4;
  return 3;
}

int64_t ir_version_needed(const Model& model) {
  int64_t ir = 3;
  for (const auto& [domain, version] : model.opsets)
    if (domain.empty() || domain == "ai.onnx") ir = std::max(ir, ir_version_for_opset(version));
  // Below IR 4 every initializer must also be a graph input.
  std::set<std::string> inputs;
  for (const auto& v : model.graph.inputs) inputs.insert(v.name);
  for (const auto& [name, t] : model.graph.initializers)
    if (!inputs.count(name)) ir = std::max<int64_t>(ir, 4);
  return ir;
}

void export_value_info(const ValueInfo& v, onnx::ValueInfoProto* out) {
  out->set_name(v.name);
  if (v.type.kind != TypeInfo::Kind::Unknown) type_to_proto(v.type, out->mutable_type());
}

void export_attr(const std::string& name, const Attribute& a, onnx::AttributeProto* out, NameSet& names) {
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
      export_graph(*a.g, name, out->mutable_g(), names);
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
      for (const auto& sg : a.graphs) export_graph(*sg, name, out->add_graphs(), names);
      break;
    default: fail("attribute '{}' has no type and cannot be exported", name);
  }
}

// ONNX's checker requires every graph to be named and every value_info to be typed.
void export_graph(const Graph& g, const std::string& fallback_name, onnx::GraphProto* out, NameSet& names) {
  out->set_name(g.name.empty() ? fallback_name : g.name);
  if (!g.doc.empty()) out->set_doc_string(g.doc);
  for (const auto& [name, t] : g.initializers) tensor_to_proto(t, name, out->add_initializer());
  for (const auto& v : g.inputs) export_value_info(v, out->add_input());
  for (const auto& v : g.outputs) export_value_info(v, out->add_output());
  for (const auto& v : g.value_info)
    if (v.type.kind != TypeInfo::Kind::Unknown) export_value_info(v, out->add_value_info());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    refuse_without_onnx_form(n);
    auto* p = out->add_node();
    p->set_name(unique_node_name(n, i, names));
    p->set_op_type(n.op_type);
    if (!n.domain.empty()) p->set_domain(n.domain);
    if (!n.doc.empty()) p->set_doc_string(n.doc);
    for (const auto& i : n.inputs) p->add_input(i);
    for (const auto& o : n.outputs) p->add_output(o);
    for (const auto& [k, a] : n.attrs)
      if (a.type != AttrType::Undefined) export_attr(k, a, p->add_attribute(), names);
  }
}

bool dilated_same(const Node& n) {
  auto ap = n.attrs.find("auto_pad"), dil = n.attrs.find("dilations");
  if (ap == n.attrs.end() || (ap->second.s != "SAME_UPPER" && ap->second.s != "SAME_LOWER")) return false;
  return dil != n.attrs.end() && std::any_of(dil->second.ints.begin(), dil->second.ints.end(), [](int64_t d) { return d != 1; });
}

// auto_pad SAME_UPPER/SAME_LOWER with a dilation other than 1 (a TF atrous convolution whose input
// size was unknown at import) is valid ONNX, but ONNX Runtime refuses it ("Dilation not supported
// for AutoPadType::SAME_UPPER"): written as the explicit pads the spec's SAME rule gives for the
// inferred input size, or refused when that size is unknown.
void resolve_dilated_same(Model& m) {
  GraphInference gi = infer_graph(m);
  for (Node& n : m.graph.nodes) {
    if (!dilated_same(n)) continue;
    const std::string mode = n.attrs.at("auto_pad").s;
    const TypeInfo* xt = n.inputs.empty() ? nullptr : gi.type_of(m.graph, n.inputs[0]);
    std::vector<int64_t> in = xt ? spatial_dims(*xt) : std::vector<int64_t>{};
    std::vector<int64_t> kernel;
    if (n.attrs.count("kernel_shape")) {
      kernel = n.attrs.at("kernel_shape").ints;
    } else {
      // The weight's spatial dims: input 3 of QLinearConv, input 1 of Conv / ConvInteger.
      size_t w = n.op_type == "QLinearConv" ? 3 : 1;
      const TypeInfo* wt = w < n.inputs.size() ? gi.type_of(m.graph, n.inputs[w]) : nullptr;
      if (wt) kernel = spatial_dims(*wt);
    }
    const auto& dil = n.attrs.at("dilations").ints;
    std::vector<int64_t> strides = n.attrs.count("strides") ? n.attrs.at("strides").ints : std::vector<int64_t>(dil.size(), 1);
    std::vector<int64_t> begins, ends;
    bool known = in.size() == dil.size() && kernel.size() == dil.size() && strides.size() == dil.size();
    for (size_t d = 0; known && d < dil.size(); ++d) {
      AxisWindow a;
      a.k = kernel[d];
      a.stride = strides[d];
      a.dilation = dil[d];
      a.in = a.stride == 1 ? a.k : in[d];  // at stride 1 the pads do not depend on the size
      known = a.k >= 0 && window_axis_out(a, mode, false) >= 0;
      begins.push_back(a.pad_begin);
      ends.push_back(a.pad_end);
    }
    if (!known)
      fail_unsupported("node '{}' ({}): auto_pad {} with dilations needs the input's spatial size to be written for ONNX "
                       "Runtime (which does not support dilations with auto_pad SAME), and it is unknown here; "
                       "fix it with --inputShape", n.name, n.op_type, mode);
    begins.insert(begins.end(), ends.begin(), ends.end());
    n.attrs.erase("auto_pad");
    n.attrs["pads"] = Attribute::of_ints(begins);
  }
}

// ONNX requires a type on every graph output (an optimized or quantized graph may not have
// declared one): the inferred type, or a refusal naming the output.
void type_outputs(Graph& g, const GraphInference& gi) {
  for (auto& o : g.outputs) {
    if (o.type.kind != TypeInfo::Kind::Unknown) continue;
    const TypeInfo* t = gi.type_of(g, o.name);
    if (!t || t->kind == TypeInfo::Kind::Unknown)
      fail("graph output '{}' has no type that can be inferred, and ONNX requires one; fix the input shapes with "
           "--inputShape", o.name);
    o.type = *t;
  }
}

}  // namespace

void export_onnx(const Model& model, onnx::ModelProto* out) {
  refuse_unshaped_inputs(model.graph);
  // The file's own IR version unless its opsets or content need a newer one (an IR 3 file
  // upgraded to opset 17 is written as IR 8).
  out->set_ir_version(std::max(model.ir_version, ir_version_needed(model)));
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
  NameSet names;
  const bool untyped_output = std::any_of(model.graph.outputs.begin(), model.graph.outputs.end(),
                                          [](const ValueInfo& v) { return v.type.kind == TypeInfo::Kind::Unknown; });
  if (untyped_output || std::any_of(model.graph.nodes.begin(), model.graph.nodes.end(), dilated_same)) {
    Model resolved = model;
    resolve_dilated_same(resolved);
    if (untyped_output) type_outputs(resolved.graph, infer_graph(resolved));
    export_graph(resolved.graph, "main_graph", out->mutable_graph(), names);
  } else {
    export_graph(model.graph, "main_graph", out->mutable_graph(), names);
  }
}

std::string export_onnx_bytes(const Model& model) {
  onnx::ModelProto p;
  export_onnx(model, &p);
  std::string bytes;
  if (!p.SerializeToString(&bytes)) fail("model is too large to serialize as one ONNX protobuf (2 GiB limit)");
  return bytes;
}

}  // namespace ms::onnx_format
