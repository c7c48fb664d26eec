#include "formats/onnx/onnx_importer.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "core/graph_sort.h"
#include "formats/onnx/onnx_tensor.h"

namespace ms::onnx_format {

namespace {

struct ImportCtx {
  std::string file;
  std::string base_dir;
};

Graph import_graph(const onnx::GraphProto& g, const ImportCtx& ctx);

Attribute import_attr(const onnx::AttributeProto& a, const Node& node, const ImportCtx& ctx) {
  std::string what = ctx.file + ": " + node.label() + " attribute '" + a.name() + "'";
  Attribute r;
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: return Attribute::of_float(a.f());
    case onnx::AttributeProto::INT: return Attribute::of_int(a.i());
    case onnx::AttributeProto::STRING: return Attribute::of_string(a.s());
    case onnx::AttributeProto::TENSOR: return Attribute::of_tensor(tensor_from_proto(a.t(), ctx.base_dir, what));
    case onnx::AttributeProto::GRAPH: return Attribute::of_graph(std::make_shared<Graph>(import_graph(a.g(), ctx)));
    case onnx::AttributeProto::FLOATS: return Attribute::of_floats({a.floats().begin(), a.floats().end()});
    case onnx::AttributeProto::INTS: return Attribute::of_ints({a.ints().begin(), a.ints().end()});
    case onnx::AttributeProto::STRINGS: return Attribute::of_strings({a.strings().begin(), a.strings().end()});
    case onnx::AttributeProto::TENSORS:
      r.type = AttrType::Tensors;
      for (const auto& t : a.tensors()) r.tensors.push_back(tensor_from_proto(t, ctx.base_dir, what));
      return r;
    case onnx::AttributeProto::GRAPHS:
      r.type = AttrType::Graphs;
      for (const auto& g : a.graphs()) r.graphs.push_back(std::make_shared<Graph>(import_graph(g, ctx)));
      return r;
    case onnx::AttributeProto::TYPE_PROTO:
    case onnx::AttributeProto::TYPE_PROTOS:
      // Only Optional/SequenceEmpty-style type annotations use these; no kernel reads them.
      return Attribute{};
    default:
      fail("{}: attribute has no valid type ({})", what, static_cast<int>(a.type()));
  }
}

ValueInfo import_value_info(const onnx::ValueInfoProto& v) { return {v.name(), type_from_proto(v.type())}; }

Graph import_graph(const onnx::GraphProto& g, const ImportCtx& ctx) {
  Graph out;
  out.name = g.name();
  out.doc = g.doc_string();
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) fail("{}: an initializer of graph '{}' has no name", ctx.file, g.name());
    out.initializers[t.name()] = tensor_from_proto(t, ctx.base_dir, ctx.file + ": initializer '" + t.name() + "'");
  }
  for (const auto& t : g.sparse_initializer())
    fail_unsupported("{}: sparse initializer '{}' is not supported", ctx.file, t.values().name());
  for (const auto& v : g.input()) out.inputs.push_back(import_value_info(v));
  for (const auto& v : g.output()) out.outputs.push_back(import_value_info(v));
  for (const auto& v : g.value_info()) out.value_info.push_back(import_value_info(v));
  out.nodes.reserve(g.node_size());
  for (const auto& n : g.node()) {
    Node node;
    node.name = n.name();
    node.op_type = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.doc = n.doc_string();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (!a.ref_attr_name().empty())
        fail_unsupported("{}: {} uses a function attribute reference", ctx.file, node.label());
      node.attrs[a.name()] = import_attr(a, node, ctx);
    }
    out.nodes.push_back(std::move(node));
  }
  sort_nodes_topologically(out);  // the format asks for sorted nodes, but not every exporter obliges
  return out;
}

bool same_interface(const onnx::GraphProto& a, const onnx::GraphProto& b) {
  auto same = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (int i = 0; i < x.size(); ++i)
      if (x[i].name() != y[i].name() || x[i].type().SerializeAsString() != y[i].type().SerializeAsString())
        return false;
    return true;
  };
  return same(a.input(), b.input()) && same(a.output(), b.output());
}

bool valid_type(const onnx::TypeProto& t) {
  if (t.has_tensor_type()) return t.tensor_type().elem_type() == 0 || dtype_is_valid(t.tensor_type().elem_type());
  if (t.has_sequence_type()) return valid_type(t.sequence_type().elem_type());
  if (t.has_optional_type()) return valid_type(t.optional_type().elem_type());
  return true;
}

// Element types the converter's graph import can represent (ONNX's checker does not look at them).
bool valid_types(const onnx::GraphProto& g) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list)
      if (!valid_type(v.type())) return false;
  for (const auto& t : g.initializer())
    if (!dtype_is_valid(t.data_type())) return false;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_t() && !dtype_is_valid(a.t().data_type())) return false;
      if (a.has_g() && !valid_types(a.g())) return false;
      for (const auto& sg : a.graphs())
        if (!valid_types(sg)) return false;
    }
  return true;
}

// Every graph output is an input, initializer or node output (the converter dereferences the
// producer without checking, and ONNX 1.12's checker does not verify it).
bool outputs_produced(const onnx::GraphProto& g) {
  std::set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) defined.insert(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g() && !outputs_produced(a.g())) return false;
      for (const auto& sg : a.graphs())
        if (!outputs_produced(sg)) return false;
    }
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name())) return false;
  return true;
}

bool uses_op(const onnx::GraphProto& g, const std::string& op) {
  for (const auto& n : g.node()) {
    if (n.op_type() == op) return true;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && uses_op(a.g(), op)) return true;
      for (const auto& sg : a.graphs())
        if (uses_op(sg, op)) return true;
    }
  }
  return false;
}

// The value_info entries of `g` and of the bodies nested in it, by name.
void declared_value_info(const onnx::GraphProto& g, std::map<std::string, const onnx::ValueInfoProto*>& out) {
  for (const auto& v : g.value_info()) out.emplace(v.name(), &v);
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) declared_value_info(a.g(), out);
      for (const auto& sg : a.graphs()) declared_value_info(sg, out);
    }
}

// Keeps, in the bodies nested in `g`'s nodes, only the value_info that the file declared.
void keep_declared_body_value_info(onnx::GraphProto& g, const std::map<std::string, const onnx::ValueInfoProto*>& declared) {
  auto keep = [&](onnx::GraphProto& body) {
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
    for (const auto& v : body.value_info())
      if (auto it = declared.find(v.name()); it != declared.end()) *kept.Add() = *it->second;
    body.mutable_value_info()->Swap(&kept);
    keep_declared_body_value_info(body, declared);
  };
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) keep(*a.mutable_g());
      for (auto& sg : *a.mutable_graphs()) keep(sg);
    }
}

// Upgrades the model to the canonical opset in place when ONNX's converter can; returns false and
// leaves the model untouched otherwise.
bool upgrade_opset(onnx::ModelProto& m) {
  int64_t version = 0;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") version = o.version();
  if (version == 0 || version >= kCanonicalOpset) return false;
  for (const auto& o : m.opset_import())
    if (!o.domain().empty() && o.domain() != "ai.onnx") return false;  // converter knows only ai.onnx
  if (m.functions_size() > 0) return false;
  // ONNX 1.12 has no Hardmax 12->13 adapter: it bumps the version and silently changes the axis
  // semantics (2-D coercion -> single axis), so such models keep their opset.
  if (version < 13 && uses_op(m.graph(), "Hardmax")) return false;
  try {
    // The converter assumes a well-formed graph (it crashes on some corrupt ones): only models
    // that pass ONNX's checker are upgraded; the rest are imported as they are and our own
    // validation reports what is wrong with them.
    onnx::checker::check_model(m);
  } catch (const std::exception&) {
    return false;
  }
  if (!valid_types(m.graph()) || !outputs_produced(m.graph())) return false;
  try {
    onnx::ModelProto inferred = m;
    try {
      onnx::shape_inference::InferShapes(inferred);
    } catch (const std::exception&) {
      inferred = m;
    }
    onnx::ModelProto converted = onnx::version_conversion::ConvertVersion(inferred, static_cast<int>(kCanonicalOpset));
    // An adapter that changes the model's interface (Scan 8->9 drops the batch axis) has changed
    // what the model computes for its callers: keep the original then.
    if (!same_interface(inferred.graph(), converted.graph())) return false;
    // The converter keeps the value_info it was given; drop what shape inference added so that the
    // imported graph carries only what the file declared, in If/Loop/Scan bodies too (Silero VAD's
    // 632 inferred entries there were 47 KB of its 693 KB WEIGHT_QUANT output).
    converted.mutable_graph()->mutable_value_info()->CopyFrom(m.graph().value_info());
    std::map<std::string, const onnx::ValueInfoProto*> declared;
    declared_value_info(m.graph(), declared);
    keep_declared_body_value_info(*converted.mutable_graph(), declared);
    m = std::move(converted);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

Model import_onnx_bytes(const std::string& bytes, const std::string& source_path, const ImportOptions& opts) {
  onnx::ModelProto proto;
  if (bytes.empty()) fail("{}: file is empty, not an ONNX model", source_path);
  if (!proto.ParseFromString(bytes))
    fail("{}: not a valid ONNX model (protobuf parse failed; the file is truncated or not ONNX)", source_path);
  return import_onnx_proto(proto, source_path, opts);
}

Model import_onnx_proto(onnx::ModelProto& proto, const std::string& source_path, const ImportOptions& opts) {
  if (!proto.has_graph()) fail("{}: ONNX model has no graph", source_path);
  if (opts.upgrade_opset) upgrade_opset(proto);

  ImportCtx ctx{source_path, std::filesystem::path(source_path).parent_path().string()};
  if (ctx.base_dir.empty()) ctx.base_dir = ".";
  Model model;
  model.source_path = source_path;
  model.ir_version = proto.ir_version();
  model.producer_name = proto.producer_name();
  model.producer_version = proto.producer_version();
  model.domain = proto.domain();
  model.model_version = proto.model_version();
  model.doc = proto.doc_string();
  for (const auto& o : proto.opset_import())
    model.opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  for (const auto& kv : proto.metadata_props()) model.metadata[kv.key()] = kv.value();
  model.graph = import_graph(proto.graph(), ctx);
  return model;
}

// The file is parsed from a read-only mapping: the weights are copied once, into the protobuf,
// instead of through stream buffers first (convert time of large models).
Model load_onnx(const std::string& path, const ImportOptions& opts) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) fail("{}: cannot open file", path);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{}: cannot open file (not a regular file)", path);
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    fail("{}: file is empty, not an ONNX model", path);
  }
  if (size > static_cast<size_t>(INT_MAX)) {
    ::close(fd);
    fail("{}: {} bytes is more than one protobuf can hold (2 GiB); store the weights as external data", path, size);
  }
  void* addr = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) fail("{}: cannot read file", path);
  onnx::ModelProto proto;
  bool ok = proto.ParseFromArray(addr, static_cast<int>(size));
  munmap(addr, size);
  if (!ok) fail("{}: not a valid ONNX model (protobuf parse failed; the file is truncated or not ONNX)", path);
  return import_onnx_proto(proto, path, opts);
}

}  // namespace ms::onnx_format
