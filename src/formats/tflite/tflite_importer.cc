#include "formats/tflite/tflite_importer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "formats/tflite/tflite_context.h"
#include "formats/tflite/tflite_densify.h"
#include "ops/ms_domain.h"

namespace ms::tflite_format {

namespace {

const ConverterTables& converters() {
  static const ConverterTables tables = [] {
    ConverterTables t;
    add_nn_converters(t);
    add_array_converters(t);
    add_detection_converters(t);
    add_control_flow_converters(t);
    return t;
  }();
  return tables;
}

// TFLite stores codes below 127 in deprecated_builtin_code and newer ones in builtin_code.
int builtin_code(const mstflite::OperatorCode& c) {
  return std::max<int>(static_cast<int>(c.builtin_code()), static_cast<int>(c.deprecated_builtin_code()));
}

std::string op_type_name(const mstflite::OperatorCode& c) {
  int code = builtin_code(c);
  if (code == mstflite::BuiltinOperator_CUSTOM) return c.custom_code() ? c.custom_code()->str() : "CUSTOM";
  const char* n = code >= 0 && code <= mstflite::BuiltinOperator_MAX ? mstflite::EnumNameBuiltinOperator(static_cast<mstflite::BuiltinOperator>(code)) : "";
  return n && *n ? n : "BUILTIN_" + std::to_string(code);
}

}  // namespace

Tensor to_float32(const Tensor& half) {
  Tensor f(DType::Float32, half.shape());
  for (int64_t k = 0; k < half.numel(); ++k) f.data<float>()[k] = float(half.data<float16_t>()[k]);
  return f;
}

DType dtype_from_tflite(int type) {
  switch (type) {
    case mstflite::TensorType_FLOAT32: return DType::Float32;
    case mstflite::TensorType_FLOAT16: return DType::Float16;
    case mstflite::TensorType_INT32: return DType::Int32;
    case mstflite::TensorType_UINT8: return DType::UInt8;
    case mstflite::TensorType_INT64: return DType::Int64;
    case mstflite::TensorType_STRING: return DType::String;
    case mstflite::TensorType_BOOL: return DType::Bool;
    case mstflite::TensorType_INT16: return DType::Int16;
    case mstflite::TensorType_INT8: return DType::Int8;
    case mstflite::TensorType_FLOAT64: return DType::Float64;
    case mstflite::TensorType_UINT64: return DType::UInt64;
    case mstflite::TensorType_UINT32: return DType::UInt32;
    case mstflite::TensorType_UINT16: return DType::UInt16;
    default: return DType::Undefined;
  }
}

// --- TfliteContext -------------------------------------------------------------------------------

TfliteContext::TfliteContext(Graph& g, const mstflite::Model& fb, int subgraph, std::shared_ptr<const std::string> file,
                             std::string prefix, std::vector<int> callers)
    : b(g), graph_(g), fb_(fb), sg_(*fb.subgraphs()->Get(static_cast<uint32_t>(subgraph))), file_(std::move(file)),
      prefix_(std::move(prefix)), chain_(std::move(callers)) {
  chain_.push_back(subgraph);
  reserve_names_of(g);
}

const mstflite::SubGraph& TfliteContext::subgraph(int index) const {
  if (!fb_.subgraphs() || index < 0 || index >= static_cast<int>(fb_.subgraphs()->size()))
    fail("subgraph index {} out of range (the model has {})", index, fb_.subgraphs() ? fb_.subgraphs()->size() : 0);
  return *fb_.subgraphs()->Get(static_cast<uint32_t>(index));
}

void TfliteContext::reserve_names_of(const Graph& g) {
  for (const auto& v : g.inputs) b.reserve(v.name);
  for (const auto& [name, t] : g.initializers) b.reserve(name);
  for (const auto& n : g.nodes) {
    b.reserve(n.name);
    for (const auto& o : n.outputs) b.reserve(o);
    for (const auto& [key, a] : n.attrs) {
      if (a.g) reserve_names_of(*a.g);
      for (const auto& sub : a.graphs) reserve_names_of(*sub);
    }
  }
}

const mstflite::Tensor& TfliteContext::tensor(int index) const {
  if (!sg_.tensors() || index < 0 || index >= static_cast<int>(sg_.tensors()->size()))
    fail("tensor index {} out of range", index);
  return *sg_.tensors()->Get(index);
}

int TfliteContext::input_index(const Op& op, size_t i) const {
  if (!op.inputs() || i >= op.inputs()->size()) return -1;
  return op.inputs()->Get(static_cast<uint32_t>(i));
}

std::string TfliteContext::name_of(int index) const {
  const auto& t = tensor(index);
  return prefix_ + (t.name() && t.name()->size() ? t.name()->str() : "tensor_" + std::to_string(index));
}

bool TfliteContext::quantized(const mstflite::Tensor& t) const {
  const auto* q = t.quantization();
  if (!q || !q->scale() || q->scale()->size() == 0) return false;
  DType dt = dtype_from_tflite(t.type());
  return dt == DType::Int8 || dt == DType::UInt8 || dt == DType::Int16 || dt == DType::Int32;
}

Shape TfliteContext::input_shape(const Op& op, size_t i) const {
  int idx = input_index(op, i);
  if (idx < 0) fail("input {} is absent", i);
  const auto& t = tensor(idx);
  return t.shape() ? Shape(t.shape()->begin(), t.shape()->end()) : Shape{};
}

Shape TfliteContext::output_shape(const Op& op, size_t k) const {
  if (!op.outputs() || k >= op.outputs()->size()) fail("output {} is absent", k);
  const auto& t = tensor(op.outputs()->Get(static_cast<uint32_t>(k)));
  return t.shape() ? Shape(t.shape()->begin(), t.shape()->end()) : Shape{};
}

DType TfliteContext::output_dtype(const Op& op, size_t k) const {
  if (!op.outputs() || k >= op.outputs()->size()) fail("output {} is absent", k);
  return dtype_from_tflite(tensor(op.outputs()->Get(static_cast<uint32_t>(k))).type());
}

std::optional<Tensor> TfliteContext::stored(int index) const {
  auto f = folded_.find(index);
  if (f != folded_.end()) return f->second;
  const auto& t = tensor(index);
  if (!fb_.buffers() || t.buffer() == 0 || t.buffer() >= fb_.buffers()->size()) return std::nullopt;
  const auto* buf = fb_.buffers()->Get(t.buffer());
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (buf->data() && buf->data()->size()) {
    data = buf->data()->data();
    size = buf->data()->size();
  } else if (buf->offset() > 1 && buf->size() > 0) {
    // Large models keep buffers after the flatbuffer, addressed from the start of the file.
    if (buf->offset() > file_->size() || buf->size() > file_->size() - buf->offset())
      fail("tensor '{}': buffer {} (bytes {}..{}) lies outside the {}-byte file", name_of(index), t.buffer(), buf->offset(),
           buf->offset() + buf->size(), file_->size());
    data = reinterpret_cast<const uint8_t*>(file_->data()) + buf->offset();
    size = buf->size();
  }
  if (!data) return std::nullopt;
  DType dt = dtype_from_tflite(t.type());
  if (dt == DType::Undefined || dt == DType::String)
    fail_unsupported("tensor '{}': constant of type {}", name_of(index), mstflite::EnumNameTensorType(t.type()));
  Shape shape = t.shape() ? Shape(t.shape()->begin(), t.shape()->end()) : Shape{};
  // The dense size must be sane before anything is allocated for it.
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && numel > (int64_t(1) << 40) / d)) fail("tensor '{}': constant of shape {} is invalid", name_of(index), shape_str(shape));
    numel *= d;
  }
  if (t.sparsity()) {
    size_t es = dtype_size(dt);
    if (size % es) fail("tensor '{}': sparse buffer of {} bytes is not a whole number of {}", name_of(index), size, dtype_name(dt));
    Tensor values(dt, {static_cast<int64_t>(size / es)});
    std::memcpy(values.raw(), data, size);
    return densify(*t.sparsity(), values, shape, "tensor '" + name_of(index) + "'");
  }
  if (size != static_cast<size_t>(numel) * dtype_size(dt))
    fail("tensor '{}': buffer holds {} bytes, shape {} of {} needs {}", name_of(index), size, shape_str(shape), dtype_name(dt),
         numel * dtype_size(dt));
  Tensor v(dt, shape);
  std::memcpy(v.raw(), data, size);  // copied: flatbuffer data is not aligned for every dtype
  return v;
}

std::string TfliteContext::dequantize(const std::string& raw, const mstflite::Tensor& t, const std::vector<int64_t>& perm,
                                      const std::string& hint) {
  const auto* q = t.quantization();
  size_t n = q->scale()->size();
  DType dt = dtype_from_tflite(t.type());
  if (dt == DType::Int16) fail_unsupported("tensor '{}': int16 quantization", hint);
  std::vector<float> scale(q->scale()->begin(), q->scale()->end());
  Tensor zp(dt, n == 1 ? Shape{} : Shape{static_cast<int64_t>(n)});
  for (size_t i = 0; i < n; ++i) {
    int64_t z = q->zero_point() && i < q->zero_point()->size() ? q->zero_point()->Get(static_cast<uint32_t>(i)) : 0;
    switch (dt) {
      case DType::Int8: zp.data<int8_t>()[i] = static_cast<int8_t>(z); break;
      case DType::UInt8: zp.data<uint8_t>()[i] = static_cast<uint8_t>(z); break;
      default: zp.data<int32_t>()[i] = static_cast<int32_t>(z); break;
    }
  }
  Tensor s = Tensor::from_vector(scale, n == 1 ? Shape{} : Shape{static_cast<int64_t>(n)});
  std::map<std::string, Attribute> attrs;
  if (n > 1) {
    int64_t axis = q->quantized_dimension();
    for (size_t j = 0; j < perm.size(); ++j)
      if (perm[j] == axis) {
        axis = static_cast<int64_t>(j);
        break;
      }
    attrs["axis"] = Attribute::of_int(axis);
  }
  return b.add("DequantizeLinear", {raw, b.constant(s, hint + "/scale"), b.constant(zp, hint + "/zero_point")},
               hint + "/dequant", attrs);
}

std::string TfliteContext::materialize(int index) {
  auto it = values_.find(index);
  if (it != values_.end()) return it->second;
  std::optional<Tensor> c = stored(index);
  if (!c) fail("tensor '{}' is read before any operator writes it", name_of(index));
  std::string name = b.constant(c->dtype() == DType::Float16 ? to_float32(*c) : *c, name_of(index));
  if (quantized(tensor(index)) && dtype_is_integer(c->dtype())) {
    raw_values_[index] = name;
    name = dequantize(name, tensor(index), {}, name_of(index));
  }
  return values_[index] = name;
}

std::string TfliteContext::input(const Op& op, size_t i) {
  int idx = input_index(op, i);
  if (idx < 0) fail("input {} is required", i);
  return materialize(idx);
}

std::optional<Tensor> TfliteContext::constant(const Op& op, size_t i) {
  int idx = input_index(op, i);
  return idx < 0 ? std::nullopt : stored(idx);
}

std::vector<int64_t> TfliteContext::constant_ints(const Op& op, size_t i, const char* what) {
  auto c = constant(op, i);
  if (!c) fail_unsupported("its {} (input {}) must be a constant", what, i);
  return c->to_int64_vector();
}

std::string TfliteContext::weight(const Op& op, size_t i, const std::vector<int64_t>& perm) {
  int idx = input_index(op, i);
  if (idx < 0) fail("input {} (weights) is required", i);
  std::optional<Tensor> c = stored(idx);
  std::string hint = name_of(idx) + "/permuted";
  if (!c) return b.transpose(materialize(idx), perm, hint);  // weights computed at run time
  Tensor w = importer::transpose_tensor(*c, perm);
  if (w.dtype() == DType::Float16) w = to_float32(w);
  std::string name = b.constant(w, hint);
  if (quantized(tensor(idx)) && dtype_is_integer(w.dtype())) name = dequantize(name, tensor(idx), perm, hint);
  return name;
}

std::string TfliteContext::out_hint(const Op& op, size_t k) const {
  int idx = op.outputs()->Get(static_cast<uint32_t>(k));
  return name_of(idx) + (quantized(tensor(idx)) ? "/float" : "");
}

void TfliteContext::set_output(const Op& op, size_t k, const std::string& value, int act) {
  if (!op.outputs() || k >= op.outputs()->size()) fail("output {} is absent", k);
  int idx = op.outputs()->Get(static_cast<uint32_t>(k));
  const auto& t = tensor(idx);
  std::string base = name_of(idx), v = value;
  auto clip = [&](float lo, float hi) {
    return b.add("Clip", {v, b.constant(Tensor::scalar(lo), base + "/min"), b.constant(Tensor::scalar(hi), base + "/max")},
                 base + "/act");
  };
  switch (act) {
    case mstflite::ActivationFunctionType_NONE: break;
    case mstflite::ActivationFunctionType_RELU: v = b.add("Relu", {v}, base + "/act"); break;
    case mstflite::ActivationFunctionType_RELU_N1_TO_1: v = clip(-1.f, 1.f); break;
    case mstflite::ActivationFunctionType_RELU6: v = clip(0.f, 6.f); break;
    case mstflite::ActivationFunctionType_TANH: v = b.add("Tanh", {v}, base + "/act"); break;
    default: fail_unsupported("fused activation {}", mstflite::EnumNameActivationFunctionType(static_cast<mstflite::ActivationFunctionType>(act)));
  }
  if (quantized(t)) {
    // The op's float result rounded to the output's grid, as TFLite's integer kernels store it.
    DType dt = dtype_from_tflite(t.type());
    if (dt != DType::Int8 && dt != DType::UInt8) fail_unsupported("tensor '{}': {} activations", base, dtype_name(dt));
    const auto* q = t.quantization();
    if (q->scale()->size() != 1) fail_unsupported("tensor '{}': per-channel quantized activations", base);
    Tensor zp(dt, {});
    int64_t z = q->zero_point() && q->zero_point()->size() ? q->zero_point()->Get(0) : 0;
    if (dt == DType::Int8) *zp.data<int8_t>() = static_cast<int8_t>(z);
    else *zp.data<uint8_t>() = static_cast<uint8_t>(z);
    std::string s = b.constant(Tensor::scalar(q->scale()->Get(0)), base + "/scale");
    std::string z_name = b.constant(zp, base + "/zero_point");
    std::string raw = b.add("QuantizeLinear", {v, s, z_name}, base);
    raw_values_[idx] = raw;
    v = b.add("DequantizeLinear", {raw, s, z_name}, base + "/dequant");
  }
  values_[idx] = v;
}

void TfliteContext::set_constant_output(const Op& op, size_t k, Tensor value) {
  int idx = op.outputs()->Get(static_cast<uint32_t>(k));
  folded_[idx] = std::move(value);
}

void TfliteContext::bind_graph_input(int index) {
  const auto& t = tensor(index);
  DType dt = dtype_from_tflite(t.type());
  if (dt == DType::Undefined) fail_unsupported("input '{}' of type {}", name_of(index), mstflite::EnumNameTensorType(t.type()));
  std::vector<Dim> dims;
  const auto* sig = t.shape_signature() && t.shape_signature()->size() ? t.shape_signature() : t.shape();
  if (sig)
    for (int32_t d : *sig) dims.push_back(d >= 0 ? Dim::fixed(d) : Dim{});
  std::string name = b.unique_name(name_of(index));
  graph_.inputs.push_back({name, TypeInfo::tensor(dt, dims)});
  if (quantized(t)) {
    raw_values_[index] = name;
    values_[index] = dequantize(name, t, {}, name);
  } else {
    values_[index] = name;
  }
}

std::string TfliteContext::graph_output_value(int index) {
  auto r = raw_values_.find(index);
  if (r != raw_values_.end()) return r->second;
  return materialize(index);
}

void TfliteContext::bind_value(int index, const std::string& value) {
  if (quantized(tensor(index))) fail_unsupported("tensor '{}': quantized tensors passed into IF/WHILE subgraphs", name_of(index));
  values_[index] = value;
}

TypeInfo TfliteContext::tensor_type(int subgraph_index, int index) const {
  const auto* tensors = subgraph(subgraph_index).tensors();
  if (!tensors || index < 0 || index >= static_cast<int>(tensors->size())) fail("tensor index {} out of range", index);
  const auto& t = *tensors->Get(static_cast<uint32_t>(index));
  const auto* sig = t.shape_signature() && t.shape_signature()->size() ? t.shape_signature() : t.shape();
  std::vector<Dim> dims;
  if (sig)
    for (int32_t d : *sig) dims.push_back(d >= 0 ? Dim::fixed(d) : Dim{});
  return TypeInfo::tensor(dtype_from_tflite(t.type()), dims);
}

std::vector<std::string> TfliteContext::import_subgraph(int index, Graph& into, const std::vector<std::string>& inputs,
                                                        const std::string& prefix) {
  const auto& sg = subgraph(index);
  // Subgraphs may call subgraphs, but not in a cycle (TFLite cannot run that either).
  if (std::find(chain_.begin(), chain_.end(), index) != chain_.end()) {
    std::string path;
    for (int k : chain_) path += std::to_string(k) + " -> ";
    fail("subgraph {} ('{}') calls itself ({}{}): recursive IF/WHILE is not supported", index, sg.name() ? sg.name()->str() : "",
         path, index);
  }
  TfliteContext child(into, fb_, index, file_, prefix, chain_);
  child.reserve_names_of(graph_);  // outer names are visible inside, so they must stay unique
  size_t n_in = sg.inputs() ? sg.inputs()->size() : 0;
  if (n_in != inputs.size()) fail("subgraph {} takes {} inputs, the operator passes {}", index, n_in, inputs.size());
  for (size_t i = 0; i < n_in; ++i) child.bind_value(sg.inputs()->Get(static_cast<uint32_t>(i)), inputs[i]);
  child.convert_operators();
  std::vector<std::string> outs;
  if (sg.outputs())
    for (int idx : *sg.outputs()) {
      if (child.quantized(child.tensor(idx)))
        fail_unsupported("tensor '{}': quantized outputs of IF/WHILE subgraphs", child.name_of(idx));
      outs.push_back(child.graph_output_value(idx));
    }
  for (const auto& v : into.inputs) b.reserve(v.name);
  reserve_names_of(into);
  return outs;
}

// --- import ---------------------------------------------------------------------------------------

namespace {

const Converter* converter_of(const mstflite::OperatorCode& c) {
  const ConverterTables& tables = converters();
  int code = builtin_code(c);
  if (code == mstflite::BuiltinOperator_CUSTOM) {
    auto it = tables.custom.find(c.custom_code() ? c.custom_code()->str() : "");
    return it == tables.custom.end() ? nullptr : &it->second;
  }
  auto it = tables.builtin.find(code);
  return it == tables.builtin.end() ? nullptr : &it->second;
}

const mstflite::OperatorCode& code_of(const mstflite::Model& fb, const Op& op) {
  if (!fb.operator_codes() || op.opcode_index() >= fb.operator_codes()->size())
    fail("operator with opcode index {} out of range", op.opcode_index());
  return *fb.operator_codes()->Get(op.opcode_index());
}

}  // namespace

void TfliteContext::convert_operators() {
  if (!sg_.operators()) return;
  for (uint32_t k = 0; k < sg_.operators()->size(); ++k) {
    const Op& op = *sg_.operators()->Get(k);
    const auto& code = code_of(fb_, op);
    std::string label = op_type_name(code);
    try {
      if (op.outputs() && op.outputs()->size()) {
        const auto* out_name = tensor(op.outputs()->Get(0)).name();
        label = fmt::format("'{}' ({})", out_name ? out_name->str() : "", label);
      }
      const Converter* conv = converter_of(code);
      if (!conv) fail_unsupported("no converter");
      (*conv)(*this, op);
    } catch (const Error& e) {
      std::string where = sg_.name() && chain_.size() > 1 ? fmt::format("subgraph '{}' ", sg_.name()->str()) : "";
      throw Error(e.code(), fmt::format("{}operator #{} {}: {}", where, k, label, e.what()));
    }
  }
}

Model import_tflite_bytes(std::shared_ptr<const std::string> bytes, const std::string& path, bool keep_layout) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
  // Buffers past the flatbuffer (large models) are not part of what the verifier must see.
  size_t fb_size = std::min<size_t>(bytes->size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  if (bytes->size() < 8 || !flatbuffers::BufferHasIdentifier(data, mstflite::ModelIdentifier()))
    fail("{}: not a TFLite model (no TFL3 identifier)", path);
  flatbuffers::Verifier verifier(data, fb_size, 128, 10'000'000);
  if (!mstflite::VerifyModelBuffer(verifier)) fail("{}: corrupt TFLite file (the flatbuffer does not verify)", path);
  const mstflite::Model& fb = *mstflite::GetModel(data);
  if (!fb.subgraphs() || fb.subgraphs()->size() == 0) fail("{}: the model has no subgraph", path);
  const mstflite::SubGraph& sg = *fb.subgraphs()->Get(0);

  Model m;
  m.opsets[""] = 17;
  m.producer_name = "tflite";
  m.producer_version = std::to_string(fb.version());
  m.source_path = path;
  m.graph.name = sg.name() ? sg.name()->str() : "main";

  // Every subgraph is checked (IF/WHILE bodies included), so that all unsupported ops are listed at once.
  std::map<std::string, int> unsupported;
  for (const auto* s : *fb.subgraphs())
    if (s->operators())
      for (const auto* op : *s->operators()) {
        if (op->opcode_index() >= (fb.operator_codes() ? fb.operator_codes()->size() : 0))
          fail("{}: operator with opcode index {} out of range", path, op->opcode_index());
        if (!converter_of(code_of(fb, *op))) ++unsupported[op_type_name(code_of(fb, *op))];
      }
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& [name, count] : unsupported) list += fmt::format("\n  {} ({} node{})", name, count, count > 1 ? "s" : "");
    fail_unsupported("{}: {} TFLite operator type{} not supported:{}", path, unsupported.size(),
                     unsupported.size() > 1 ? "s are" : " is", list);
  }

  TfliteContext ctx(m.graph, fb, 0, bytes);
  try {
    if (sg.inputs())
      for (int idx : *sg.inputs()) ctx.bind_graph_input(idx);
    ctx.convert_operators();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", path, e.what()));
  }

  std::set<std::string> defined;
  for (const auto& v : m.graph.inputs) defined.insert(v.name);
  for (const auto& [name, t] : m.graph.initializers) defined.insert(name);
  for (const auto& gn : m.graph.nodes) defined.insert(gn.outputs.begin(), gn.outputs.end());
  if (!sg.outputs() || sg.outputs()->size() == 0) fail("{}: the subgraph has no outputs", path);
  for (int idx : *sg.outputs()) {
    std::string value;
    try {
      value = ctx.graph_output_value(idx);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: output: {}", path, e.what()));
    }
    std::string want = ctx.tensor(idx).name() ? ctx.tensor(idx).name()->str() : value;
    bool is_io = m.graph.find_input(value) || m.graph.initializers.count(value);
    if (value != want || is_io) {
      std::string name = defined.count(want) ? ctx.b.unique_name(want + "_out") : want;
      ctx.b.reserve(name);
      ctx.b.add_node("Identity", {value}, {name});
      defined.insert(name);
      value = name;
    }
    m.graph.outputs.push_back({value, {}});
  }
  // Custom ops mapped to the project's own ops (DetectionPostProcess) need its domain declared.
  for (const auto& gn : m.graph.nodes)
    if (gn.domain == kMsDomain) m.opsets[kMsDomain] = kMsDomainVersion;
  importer::finish_imported_graph(m, keep_layout);
  return m;
}

Model load_tflite(const std::string& path, bool keep_layout) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot open file", path);
  std::stringstream ss;
  ss << f.rdbuf();
  return import_tflite_bytes(std::make_shared<const std::string>(ss.str()), path, keep_layout);
}

}  // namespace ms::tflite_format
