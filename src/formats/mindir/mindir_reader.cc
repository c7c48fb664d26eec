#include "formats/mindir/mindir_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "formats/mindir/mindir_ops.h"
#include "formats/mindir/mindir_quant_params.h"
#include "formats/mindir/mindir_sequence_forms.h"
#include "ops/op.h"

namespace ms::mindir {

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot open file", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool is_framework(const std::string& p) {
  return p == "Load" || p == "Depend" || p == "UpdateState" || p == "MakeTuple" || p == "TupleGetItem" ||
         p == "Shape" || p == "Return" || p == "make_tuple" || p == "tuple_getitem" || p == "MakeList" ||
         p == "ListGetItem" || p == "RealTupleGetItem" || p == "Switch" || p == "Partial";
}

class Reader;

class NodeReader : public ReadCtx {
 public:
  NodeReader(Reader& r, std::string prim, std::string what, std::vector<RVal> ins, std::map<std::string, MsValue> attrs,
             Abstract out, std::vector<std::string> in_names)
      : r_(r), prim_(std::move(prim)), what_(std::move(what)), ins_(std::move(ins)), attrs_(std::move(attrs)),
        out_(std::move(out)), in_names_(std::move(in_names)) {}
  const std::string& prim() const override { return prim_; }
  const std::string& what() const override { return what_; }
  const std::vector<RVal>& inputs() const override { return ins_; }
  const std::map<std::string, MsValue>& attrs() const override { return attrs_; }
  const Abstract& out_abstract() const override { return out_; }
  const MsValue* attr(const std::string& n) const override {
    auto it = attrs_.find(n);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  bool has_const_arg(size_t i, const std::string& n) const override {
    if (i < ins_.size() && ins_[i].kind == RVal::Kind::Const) return true;
    return attr(n) != nullptr;
  }
  MsValue const_arg(size_t i, const std::string& n) const override {
    if (i < ins_.size() && ins_[i].kind == RVal::Kind::Const) return ins_[i].c;
    if (const MsValue* v = attr(n)) return *v;
    if (i < ins_.size()) fail_unsupported("{}: argument '{}' is computed at run time; only constants are supported", what_, n);
    fail("{}: missing argument '{}'", what_, n);
  }
  std::string tensor(size_t i) override {
    if (i >= ins_.size()) return "";
    return tensor_of(ins_[i]);
  }
  std::string tensor_of(const RVal& v) override;
  std::string add_const(const Tensor& t, const std::string& hint) override;
  std::vector<std::string> add(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs,
                               int n_outputs) override;
  int rank(size_t i) const override;
  DType dtype(size_t i) const override;
  std::vector<int64_t> dims(size_t i) const override;
  Node* producer(const std::string& ir_name) override;
  void optional(const std::string& ir_name) override;
  std::string reclaim(const std::string& ir_name) override;
  int use_count(size_t i) const override;
  RVal generic(const std::string& ir_op) override;

 private:
  Reader& r_;
  std::string prim_, what_;
  std::vector<RVal> ins_;
  std::map<std::string, MsValue> attrs_;
  Abstract out_;
  std::vector<std::string> in_names_;
};

class Reader {
 public:
  Reader(const mind_ir::ModelProto& p, std::string file, Reader* parent = nullptr)
      : p_(p), file_(std::move(file)), parent_(parent) {
    base_dir_ = fs::path(file_).parent_path().string();
    if (base_dir_.empty()) base_dir_ = ".";
    if (parent_) {
      prims_ = parent_->prims_;
      functions_ = parent_->functions_;
    }
  }

  // A function graph called as a branch of a Switch, as an IR subgraph: its nodes, and references
  // to values of the enclosing graphs by their IR names (outer scope).
  // `bound`: values of the enclosing graph for F's inputs (a Partial's bound arguments and the
  // call's arguments); without them F's inputs become the subgraph's inputs.
  Graph read_function(const mind_ir::GraphProto& F, const std::vector<RVal>* bound = nullptr) {
    gname_ = F.name();
    model_.graph.name = F.name();
    index_uses(F);
    if (bound) {
      if (bound->size() != static_cast<size_t>(F.input_size()))
        fail("{}: function graph {} takes {} arguments, it is given {}", file_, F.name(), F.input_size(), bound->size());
      for (int k = 0; k < F.input_size(); ++k) values_[F.input(k).name()] = (*bound)[k];
    } else {
      for (const auto& in : F.input()) read_input(in);
    }
    for (const auto& n : F.node()) read_node(n);
    read_outputs(F);
    return std::move(model_.graph);
  }

  void index_uses(const mind_ir::GraphProto& G) {
    // use counts, for folding Conv2D + BiasAdd
    for (const auto& n : G.node())
      for (const auto& i : n.input()) ++uses_[i];
    for (const auto& o : G.output()) ++uses_[o.name()];
    // The names the file gives its values are claimed by those values; names the reader makes up
    // for constants and helper nodes keep clear of them.
    for (const auto& in : G.input()) reserved_.insert(strip(in.name()));
    for (const auto& n : G.node())
      if (n.op_type() != "Constant" && n.output_size()) reserved_.insert(base_name(n.output(0)));
  }

  Model run() {
    const auto& G = p_.graph();
    if (p_.has_mind_ir_version() && p_.mind_ir_version() > 3)
      fail_unsupported("{}: mind_ir_version {} is newer than this reader knows (up to 3)", file_, p_.mind_ir_version());
    if (p_.has_little_endian() && p_.little_endian() != (std::endian::native == std::endian::little))
      fail_unsupported("{}: the file was written on a host of the other byte order", file_);
    gname_ = G.name();
    for (const auto& pr : p_.primitives()) prims_[pr.name()] = &pr;
    for (const auto& f : p_.functions()) functions_[f.name()] = &f;

    model_.source_path = file_;
    model_.ir_version = 8;
    model_.opsets[""] = 17;
    model_.producer_name = p_.producer_name();
    model_.producer_version = p_.model_version();
    // The writer shortens a long graph name (it prefixes every name) and keeps it in doc_string.
    model_.graph.name = G.doc_string().empty() ? G.name() : G.doc_string();
    for (const auto& [k, v] : p_.user_info()) model_.metadata[k] = v;
    model_.doc = p_.doc_string();
    model_.metadata["mindir_ir_version"] = p_.ir_version();
    if (p_.has_mind_ir_version()) model_.metadata["mind_ir_version"] = std::to_string(p_.mind_ir_version());

    index_uses(G);
    read_parameters(G);
    for (const auto& in : G.input()) read_input(in);
    for (const auto& n : G.node()) read_node(n);
    read_outputs(G);
    return std::move(model_);
  }

  // --- shared with NodeReader ---
  // A fresh IR name from `base`; `claim` is for the value the file itself gives that name.
  std::string unique(std::string base, bool claim = false) {
    if (base.empty()) base = "v";
    std::string n = base;
    for (int k = 1; taken().count(n) || (!claim && reserved_.count(n)); ++k) n = base + "_" + std::to_string(k);
    taken().insert(n);
    return n;
  }
  std::string add_const(const Tensor& t, const std::string& hint) {
    std::string n = unique(hint.empty() ? "const" : hint);
    model_.graph.initializers[n] = t;
    made_consts_.insert(n);
    Abstract a = abstract_of(TypeInfo::tensor(t.dtype(), t.shape()));
    abs_[n] = a;
    return n;
  }
  std::vector<std::string> add(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs,
                               int n_out) {
    Node n;
    n.op_type = op;
    n.name = unique(cur_base_ + "/" + op);
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    for (int k = 0; k < n_out; ++k) {
      std::string o = unique(cur_base_ + "__t" + std::to_string(temp_counter_++));
      temp_.insert(o);
      n.outputs.push_back(o);
      producer_[o] = {model_.graph.nodes.size(), static_cast<size_t>(k)};
    }
    model_.graph.nodes.push_back(std::move(n));
    return model_.graph.nodes.back().outputs;
  }
  // Gives value `name` a temporary name again, so that the node being read names it.
  std::string reclaim(const std::string& name) {
    std::string t = unique(cur_base_ + "__t" + std::to_string(temp_counter_++));
    rename(name, t);
    temp_.insert(t);
    return t;
  }
  Node* producer(const std::string& name) {
    auto it = producer_.find(name);
    return it == producer_.end() ? nullptr : &model_.graph.nodes[it->second.first];
  }
  Abstract abstract_of_value(const RVal& v) const {
    if (v.abs.kind != Abstract::Kind::Unknown && v.abs.dtype != DType::Undefined) return v.abs;
    if (v.kind == RVal::Kind::Tensor) {
      auto it = abs_.find(v.name);
      if (it != abs_.end()) return it->second;
    }
    if (v.kind == RVal::Kind::Const) {
      Abstract a;
      a.kind = Abstract::Kind::Tensor;
      a.rank_known = true;
      switch (v.c.kind) {
        case MsValue::Kind::Tensor:
          a.dtype = v.c.t.dtype();
          a.dims = v.c.t.shape();
          break;
        case MsValue::Kind::Bool: a.dtype = DType::Bool; break;
        case MsValue::Kind::Int: a.dtype = DType::Int64; break;
        case MsValue::Kind::Float: a.dtype = v.c.scalar_type == mind_ir::AttributeProto::DOUBLE ? DType::Float64 : DType::Float32; break;
        case MsValue::Kind::Tuple:
        case MsValue::Kind::List:
          a.dtype = !v.c.elems.empty() && v.c.elems[0].kind == MsValue::Kind::Float ? DType::Float32 : DType::Int64;
          a.dims = {static_cast<int64_t>(v.c.elems.size())};
          break;
        default: break;
      }
      return a;
    }
    return v.abs;
  }
  Tensor tensor_from_const(const MsValue& v, const std::string& what) {
    switch (v.kind) {
      case MsValue::Kind::Tensor: return v.t;
      case MsValue::Kind::Bool: return Tensor::scalar<bool>(v.i != 0);
      case MsValue::Kind::Int:
        if (v.scalar_type == mind_ir::AttributeProto::INT32) return Tensor::scalar<int32_t>(static_cast<int32_t>(v.i));
        return Tensor::scalar<int64_t>(v.i);
      case MsValue::Kind::Float:
        if (v.scalar_type == mind_ir::AttributeProto::DOUBLE) return Tensor::scalar<double>(v.f);
        return Tensor::scalar<float>(static_cast<float>(v.f));
      case MsValue::Kind::Tuple:
      case MsValue::Kind::List: {
        int64_t n = static_cast<int64_t>(v.elems.size());
        if (n > 0 && v.elems[0].kind == MsValue::Kind::Float) {
          std::vector<float> f;
          for (const auto& e : v.elems) f.push_back(static_cast<float>(e.as_double()));
          return Tensor::from_vector<float>(f, {n});
        }
        if (n > 0 && v.elems[0].kind == MsValue::Kind::Bool) {
          std::vector<bool> b;
          Tensor t(DType::Bool, {n});
          for (int64_t k = 0; k < n; ++k) t.data<bool>()[k] = v.elems[k].i != 0;
          return t;
        }
        return Tensor::from_vector<int64_t>(v.as_ints(), {n});
      }
      default: fail_unsupported("{}: value {} cannot be used as a tensor", what, v.str());
    }
  }
  std::string tensor_of(const RVal& v, const std::string& what) {
    switch (v.kind) {
      case RVal::Kind::Tensor: return v.name;
      case RVal::Kind::None: return "";
      case RVal::Kind::Const: {
        if (v.c.kind == MsValue::Kind::None) return "";
        return add_const(tensor_from_const(v.c, what), "const");
      }
      case RVal::Kind::Tuple: fail_unsupported("{}: a tuple is used where a tensor is expected", what);
      case RVal::Kind::Monad: fail("{}: a monad (state) is used where a tensor is expected", what);
      default: fail_unsupported("{}: a function value is used where a tensor is expected", what);
    }
  }
  int use_count(const std::string& mindir_name) const {
    auto it = uses_.find(mindir_name);
    return it == uses_.end() ? 0 : it->second;
  }
  // MindSpore's implicit conversion for broadcasting ops: a number (Python scalar) next to tensors
  // takes the tensors' dtype (x * 2.0 stays float32 although the file writes 2.0 as DOUBLE).
  DType scalar_operand_dtype(NodeReader& c, const OpDef& def) const {
    if (!(def.traits & kTraitBroadcast)) return DType::Undefined;
    for (const auto& in : c.inputs()) {
      if (in.kind != RVal::Kind::Tensor) continue;
      DType dt = abstract_of_value(in).dtype;
      if (dt != DType::Undefined && dt != DType::Bool && dt != DType::String) return dt;
    }
    return DType::Undefined;
  }
  static Tensor scalar_in(DType dt, const MsValue& v) {
    double d = v.as_double();
    switch (dt) {
      case DType::Float64: return Tensor::scalar<double>(d);
      case DType::Float16: return Tensor::scalar<float16_t>(float16_t(static_cast<float>(d)));
      case DType::Int64: return Tensor::scalar<int64_t>(static_cast<int64_t>(d));
      case DType::Int32: return Tensor::scalar<int32_t>(static_cast<int32_t>(d));
      case DType::Int16: return Tensor::scalar<int16_t>(static_cast<int16_t>(d));
      case DType::Int8: return Tensor::scalar<int8_t>(static_cast<int8_t>(d));
      case DType::UInt8: return Tensor::scalar<uint8_t>(static_cast<uint8_t>(d));
      default: return Tensor::scalar<float>(static_cast<float>(d));
    }
  }

  RVal generic(NodeReader& c, const std::string& ir_op, const std::vector<std::pair<std::string, std::string>>& renames) {
    const OpDef* def = OpRegistry::global().find("", ir_op);
    if (!def) fail_unsupported("{}: the IR has no operator {}", c.what(), ir_op);
    DType scalar_dt = scalar_operand_dtype(c, *def);
    std::vector<std::string> ins;
    for (size_t i = 0; i < c.inputs().size(); ++i) {
      const RVal& in = c.inputs()[i];
      if (in.kind == RVal::Kind::Monad) continue;
      bool number = in.kind == RVal::Kind::Const && (in.c.kind == MsValue::Kind::Float || in.c.kind == MsValue::Kind::Int);
      ins.push_back(number && scalar_dt != DType::Undefined ? add_const(scalar_in(scalar_dt, in.c), "const") : c.tensor(i));
    }
    while (!ins.empty() && ins.back().empty()) ins.pop_back();
    std::map<std::string, Attribute> attrs;
    for (const auto& [k, v] : c.attrs()) {
      std::string name = k;
      for (const auto& [ms, ir] : renames)
        if (ms == k) name = ir;
      const AttrSpec* spec = def->find_attr(name);
      if (!spec) continue;  // MindSpore bookkeeping (input_names, output_names, ...)
      attrs[name] = attr_from_value(v, spec->type, c.what() + " attribute '" + k + "'");
    }
    const Abstract& oa = c.out_abstract();
    if (oa.kind == Abstract::Kind::Tuple) {
      auto outs = add(ir_op, ins, attrs, static_cast<int>(oa.elems.size()));
      std::vector<RVal> e;
      for (size_t i = 0; i < outs.size(); ++i) e.push_back(RVal::tensor(outs[i], oa.elems[i]));
      return RVal::tuple(std::move(e));
    }
    return RVal::tensor(add(ir_op, ins, attrs, 1)[0], oa);
  }

 private:
  friend class NodeReader;

  std::string strip(const std::string& mindir_name) const {
    std::string n = mindir_name;
    if (!gname_.empty() && n.rfind(gname_ + ":", 0) == 0) n = n.substr(gname_.size() + 1);
    return n;
  }
  // `<graph>:<debug>:<counter>` -> debug
  std::string base_name(const std::string& mindir_name) const {
    std::string n = strip(mindir_name);
    auto c = n.rfind(':');
    if (c != std::string::npos && c + 1 < n.size() &&
        n.find_first_not_of("0123456789", c + 1) == std::string::npos)
      n = n.substr(0, c);
    return n;
  }

  Tensor external(const mind_ir::TensorProto& t, const std::string& what) {
    const auto& ed = t.external_data();
    fs::path loc(ed.location());
    if (loc.is_absolute() || ed.location().find("..") != std::string::npos)
      fail("{}: external data location '{}' leaves the model's folder", what, ed.location());
    std::string path = (fs::path(base_dir_) / loc).string();
    auto it = data_files_.find(path);
    if (it == data_files_.end()) {
      if (!fs::exists(path)) fail("{}: external data file {} is missing", what, path);
      std::string blob = read_all(path);
      if (blob.size() < 64) fail("{}: external data file {} is truncated", what, path);
      bool le = blob[0] == 1;
      if (le != (std::endian::native == std::endian::little))
        fail_unsupported("{}: external data file {} was written on a host of the other byte order", what, path);
      it = data_files_.emplace(path, std::move(blob)).first;
    }
    DType dt = dtype_from_mindir(t.data_type(), what);
    Shape shape(t.dims().begin(), t.dims().end());
    Tensor r(dt, shape);
    int64_t off = ed.offset(), len = ed.has_length() ? ed.length() : static_cast<int64_t>(r.nbytes());
    if (len != static_cast<int64_t>(r.nbytes()))
      fail("{}: external data length {} does not match {}{} ({} bytes)", what, len, dtype_name(dt), shape_str(shape), r.nbytes());
    if (off < 0 || off + len > static_cast<int64_t>(it->second.size()))
      fail("{}: external data [{}, +{}) lies outside {} ({} bytes)", what, off, len, path, it->second.size());
    if (len) std::memcpy(r.raw(), it->second.data() + off, static_cast<size_t>(len));
    return r;
  }

  void add_parameter(const mind_ir::TensorProto& t) {
    std::string full = t.name();
    std::string name = full.substr(full.find(':') == std::string::npos ? 0 : full.find(':') + 1);
    std::string what = file_ + ": parameter '" + name + "'";
    if (t.has_compression_type() && t.compression_type() != mind_ir::TensorProto::NO_COMPRESSION)
      fail_unsupported("{} is stored compressed (compression_type {}); compressed weights are not supported", what,
                       static_cast<int>(t.compression_type()));
    Tensor data = t.has_external_data() && !t.has_raw_data() ? external(t, what) : tensor_from_raw(t, what);
    std::string ir = unique(name, true);
    values_[full] = RVal::tensor(ir, abstract_of(TypeInfo::tensor(data.dtype(), data.shape())));
    // linear-quant weights: stored integers + per-channel scale/zero point -> DequantizeLinear, the
    // channel axis the one MindSpore Lite takes from the consuming primitive (mindir_quant_params.h).
    for (const auto& qp : t.quant_params()) {
      if (dtype_is_float(data.dtype())) continue;  // parameters recorded on a float tensor: nothing to undo
      if (data.dtype() != DType::Int8 && data.dtype() != DType::UInt8 && data.dtype() != DType::Int32)
        fail_unsupported("{}: quantized weights of {} are not supported", what, dtype_name(data.dtype()));
      auto d = decode_linear_quant(qp, data.dtype(), what);
      if (!d) continue;
      const int axis = resolve_weight_axis(d->q.channels(), data.shape(), preferred_axis(full, data.rank()), what);
      std::string qn = unique(name + "_quantized");
      model_.graph.initializers[qn] = data;
      std::string sn = add_const(scale_tensor(d->q, axis < 0), name + "_scale");
      std::string zn = add_const(zero_point_tensor(d->q, axis < 0), name + "_zero_point");
      cur_base_ = name;
      auto o = add("DequantizeLinear", {qn, sn, zn}, axis < 0 ? std::map<std::string, Attribute>{}
                                                            : std::map<std::string, Attribute>{{"axis", Attribute::of_int(axis)}}, 1);
      rename(o[0], ir);
      values_[full] = RVal::tensor(ir, abstract_of(TypeInfo::tensor(DType::Float32, data.shape())));
      return;
    }
    model_.graph.initializers[ir] = std::move(data);
  }

  int preferred_axis(const std::string& param, int rank) const {
    auto prim_of = [&](const std::string& op) -> const mind_ir::PrimitiveProto* {
      if (op.rfind("REF::", 0) != 0) return nullptr;
      auto it = prims_.find(op.substr(5));
      return it == prims_.end() ? nullptr : it->second;
    };
    return preferred_axis_in_graph(p_.graph(), prim_of, param, rank);
  }

  // Activation parameters (mindir-format.md §4) as IR fake quantization: QuantizeLinear then
  // DequantizeLinear of `v`, made once per value and parameters. nullopt for an entry MindSpore
  // Lite would not use either (another algorithm, or linear_quant without all its lists).
  std::optional<LinearQuant> activation_quant(const mind_ir::TensorProto_QuantParamProto& p, const std::string& what) {
    auto d = decode_linear_quant(p, activation_dtype(p, what), what);
    if (!d || !d->complete) return std::nullopt;
    if (d->q.channels() != 1) fail_unsupported("{}: per-channel activation quantization is not supported", what);
    return d->q;
  }
  RVal fake_quant(const RVal& v, const LinearQuant& q, const std::string& q_name, const std::string& dq_name,
                  const std::string& what) {
    std::string x = tensor_of(v, what);
    std::string key = fmt::format("{}|{}|{}|{}", x, q.scale[0], q.zero_point[0], dtype_name(q.dtype));
    if (auto it = fake_quant_.find(key); it != fake_quant_.end()) return it->second;
    std::string base = cur_base_;
    std::string sn = add_const(scale_tensor(q, true), q_name + "_scale");
    std::string zn = add_const(zero_point_tensor(q, true), q_name + "_zero_point");
    cur_base_ = q_name;
    std::string qv = add("QuantizeLinear", {x, sn, zn}, {}, 1)[0];
    std::string qn = unique(q_name + "_quantized", true);
    rename(qv, qn);
    std::string dv = add("DequantizeLinear", {qn, sn, zn}, {}, 1)[0];
    std::string dn = unique(dq_name, true);
    rename(dv, dn);
    cur_base_ = base;
    Abstract a = abstract_of_value(v);
    RVal r = RVal::tensor(dn, a);
    if (a.kind != Abstract::Kind::Unknown) abs_[dn] = a;
    fake_quant_[key] = r;
    return r;
  }
  bool is_graph_input(const RVal& v) const {
    if (v.kind != RVal::Kind::Tensor) return false;
    return std::any_of(model_.graph.inputs.begin(), model_.graph.inputs.end(), [&](const ValueInfo& i) { return i.name == v.name; });
  }

  void read_parameters(const mind_ir::GraphProto& G) {
    for (const auto& t : G.parameter()) add_parameter(t);
    // legacy split form (MS <= 1.5): <prefix>_graph.mindir + <prefix>_variables/* GraphProtos
    std::string fname = fs::path(file_).filename().string();
    const std::string suffix = "_graph.mindir";
    if (G.parameter_size() == 0 && fname.size() > suffix.size() &&
        fname.compare(fname.size() - suffix.size(), suffix.size(), suffix) == 0) {
      fs::path var = fs::path(base_dir_) / (fname.substr(0, fname.size() - suffix.size()) + "_variables");
      if (fs::is_directory(var)) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(var))
          if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
          mind_ir::GraphProto gp;
          if (!gp.ParseFromString(read_all(f.string())))
            fail("{}: weight file {} is not a MindIR GraphProto", file_, f.string());
          for (const auto& t : gp.parameter()) add_parameter(t);
        }
      }
    }
  }

  void read_input(const mind_ir::ValueInfoProto& in) {
    std::string name = unique(strip(in.name()), true);
    ValueInfo v;
    v.name = name;
    Abstract a;
    if (in.tensor_size() > 0) {
      const auto& t = in.tensor(0);
      DType dt = dtype_from_mindir(t.data_type(), file_ + ": input '" + name + "'");
      std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
      if (dims.size() == 1 && dims[0] == -2) {
        v.type = TypeInfo::tensor_unknown_shape(dt);
      } else {
        std::vector<Dim> d;
        for (int64_t x : dims) d.push_back(x >= 0 ? Dim::fixed(x) : Dim{});
        v.type = TypeInfo::tensor(dt, d);
      }
      a = abstract_of(v.type);
    } else if (in.has_attr_info()) {
      a = decode_abstract(in.attr_info());
      if (a.kind == Abstract::Kind::List) {  // a dynamic-length list of tensors: an IR sequence
        v.type = sequence_type_of(a);
        model_.graph.inputs.push_back(v);
        abs_[name] = a;
        values_[in.name()] = RVal::tensor(name, a);
        return;
      }
      if (a.kind != Abstract::Kind::Scalar && a.kind != Abstract::Kind::Tensor)
        fail_unsupported("{}: input '{}' is a {}; only tensor and scalar inputs are supported", file_, name,
                         in.denotation().empty() ? "non-tensor value" : in.denotation());
      if (a.kind == Abstract::Kind::Scalar) {
        v.type = TypeInfo::tensor(a.dtype, std::vector<Dim>{});
        a.rank_known = true;
        a.dims.clear();
      } else {
        v.type = TypeInfo::tensor(a.dtype, Shape(a.dims.begin(), a.dims.end()));
      }
    } else {
      fail_unsupported("{}: input '{}' has no type", file_, name);
    }
    model_.graph.inputs.push_back(v);
    abs_[name] = a;
    values_[in.name()] = RVal::tensor(name, a);
  }

  // IR names are unique over the whole model, subgraphs included: one set, kept by the root reader.
  std::set<std::string>& taken() { return parent_ ? parent_->taken() : taken_; }

  RVal lookup(const std::string& n, const std::string& what) {
    auto it = values_.find(n);
    if (it != values_.end()) return it->second;
    if (parent_ && parent_->defines(n)) return parent_->lookup(n, what);
    if (functions_.count(n)) {
      RVal r;
      r.kind = RVal::Kind::Func;
      r.name = n;
      return r;
    }
    fail("{}: input '{}' is not defined before use (corrupt or unsupported file)", what, n);
  }

  bool defines(const std::string& n) const { return values_.count(n) || (parent_ && parent_->defines(n)); }

  // Switch(cond, then_fg, else_fg) called: an IR If whose branches are the two function graphs.
  // A branch is a function graph or a Partial of one; its inputs take the Partial's bound arguments
  // followed by the call's arguments, as values of this graph (outer scope in the IR's If).
  RVal read_if(const RVal& sw, const std::vector<RVal>& call_args, const Abstract& out_abs, const std::string& what) {
    const RVal& cond = sw.elems.at(0);
    std::shared_ptr<Graph> branches[2];
    for (int b = 0; b < 2; ++b) {
      const RVal& f = sw.elems.at(1 + b);
      if (f.kind != RVal::Kind::Func || !functions_.count(f.name))
        fail_unsupported("{}: a Switch branch that is not a function graph is not supported", what);
      Reader child(p_, file_, this);
      const auto& F = *functions_.at(f.name);
      std::vector<RVal> bound = f.elems;
      bound.insert(bound.end(), call_args.begin(), call_args.end());
      branches[b] = std::make_shared<Graph>(child.read_function(F, &bound));
    }
    size_t n = branches[0]->outputs.size();
    if (branches[1]->outputs.size() != n) fail("{}: the two branches of a Switch return different numbers of values", what);
    auto outs = add("If", {tensor_of(cond, what)},
                    {{"then_branch", Attribute::of_graph(branches[0])}, {"else_branch", Attribute::of_graph(branches[1])}},
                    static_cast<int>(n));
    if (n == 1 && out_abs.kind != Abstract::Kind::Tuple) return RVal::tensor(outs[0], out_abs);
    std::vector<RVal> e;
    for (size_t i = 0; i < n; ++i)
      e.push_back(RVal::tensor(outs[i], out_abs.kind == Abstract::Kind::Tuple && i < out_abs.elems.size() ? out_abs.elems[i] : Abstract{}));
    return RVal::tuple(std::move(e));
  }

  void rename(const std::string& from, const std::string& to) {
    auto it = producer_.find(from);
    if (it == producer_.end()) return;
    auto [ni, oi] = it->second;
    auto& nodes = model_.graph.nodes;
    nodes[ni].outputs[oi] = to;
    for (size_t k = ni + 1; k < nodes.size(); ++k)
      for (auto& i : nodes[k].inputs)
        if (i == from) i = to;
    for (auto& o : model_.graph.outputs)
      if (o.name == from) o.name = to;
    producer_.erase(it);
    producer_[to] = {ni, oi};
    temp_.erase(from);
    taken().insert(to);
    if (auto a = abs_.find(from); a != abs_.end()) {
      abs_[to] = a->second;
      abs_.erase(a);
    }
  }

  // Gives a value made by this node its MindIR debug name.
  RVal finalize(RVal v, const std::string& base) {
    if (v.kind == RVal::Kind::Tensor && temp_.count(v.name)) {
      std::string n = unique(base, true);
      rename(v.name, n);
      v.name = n;
    }
    if (v.kind == RVal::Kind::Tensor && v.abs.kind != Abstract::Kind::Unknown) abs_.emplace(v.name, v.abs);
    return v;
  }

  void read_node(const mind_ir::NodeProto& n) {
    std::string out = n.output_size() ? n.output(0) : n.name();
    std::string what = file_ + ": node '" + out + "' (" + n.op_type() + ")";
    if (n.op_type() == "Constant") {
      if (n.attribute_size() < 1) fail("{}: Constant without a value", what);
      MsValue v = decode_value(n.attribute(0), what);
      if (v.kind == MsValue::Kind::Monad) {  // UMonad/IOMonad: orders side effects, holds no value
        RVal m;
        m.kind = RVal::Kind::Monad;
        values_[out] = m;
      } else {
        values_[out] = RVal::constant(std::move(v));
      }
      return;
    }
    std::string prim;
    std::map<std::string, MsValue> attrs;
    Abstract out_abs;
    const mind_ir::AttributeProto* output_qp = nullptr;  // the primitive's quant_param
    const mind_ir::AttributeProto* input_qp = nullptr;   // its graph_input_quant_param
    const std::string& op = n.op_type();
    if (op.rfind("REF::", 0) == 0) {
      std::string target = op.substr(5);
      auto it = prims_.find(target);
      if (it == prims_.end() && defines(target)) {
        RVal callee = lookup(target, what);
        std::vector<RVal> call_args;
        if (callee.kind == RVal::Kind::Switch || callee.kind == RVal::Kind::Func)
          for (const auto& i : n.input()) call_args.push_back(lookup(i, what));
        if (callee.kind == RVal::Kind::Switch) {
          Abstract out_abs;
          for (const auto& a : n.attribute())
            if (a.name() == "shape") out_abs = decode_abstract(a);
          cur_base_ = base_name(out);
          values_[out] = finalize(read_if(callee, call_args, out_abs, what), cur_base_);
          return;
        }
        // A call of a Partial (or of a graph passed as a value): bound arguments first.
        if (callee.kind == RVal::Kind::Func && functions_.count(callee.name)) {
          std::vector<RVal> args = callee.elems;
          args.insert(args.end(), call_args.begin(), call_args.end());
          cur_base_ = base_name(out);
          values_[out] = finalize(read_call(*functions_.at(callee.name), args, what), cur_base_);
          return;
        }
      }
      if (it == prims_.end() && (functions_.count(target) || target == loop_header_)) {
        std::vector<RVal> args;
        for (const auto& i : n.input()) args.push_back(lookup(i, what));
        cur_base_ = base_name(out);
        // Inside a loop body, the recursive call of the loop header is the next state.
        RVal r = target == loop_header_ ? RVal::tuple(std::move(args)) : read_call(*functions_.at(target), args, what);
        values_[out] = finalize(r, cur_base_);
        return;
      }
      if (it == prims_.end()) {
        if (target.rfind("MetaFuncGraph::", 0) == 0)
          fail_unsupported("{}: calls MetaFuncGraph '{}', a Python-level function MindSpore left unresolved; only "
                           "primitives and function graphs can be converted", what, target.substr(15));
        if (target.rfind("ClassType::", 0) == 0)
          fail_unsupported("{}: calls the Python class '{}' (JIT fallback), which needs the Python interpreter; only "
                           "primitives and function graphs can be converted", what, target.substr(11));
        if (!defines(target))
          fail("{}: refers to '{}', which is neither in the primitives list nor a function graph nor a value of the "
               "file (corrupt file?)", what, target);
        if (functions_.count(target) || target == gname_)
          fail_unsupported("{}: calls of function graphs (control flow, sub-cells) are not supported", what);
        fail_unsupported("{}: calls of computed values (closures) are not supported", what);
      }
      prim = it->second->op_type();
      for (const auto& a : it->second->attribute()) {
        if (a.name() == "quant_param") output_qp = &a;
        if (a.name() == "graph_input_quant_param") input_qp = &a;
        attrs[a.name()] = decode_value(a, what + " attribute '" + a.name() + "'");
      }
    } else {
      prim = op;
      if (prim.rfind("S_Prim_", 0) == 0) prim = prim.substr(7);
    }
    for (const auto& a : n.attribute()) {
      bool legacy_shape = a.has_ref_attr_name() && a.ref_attr_name().rfind("shape:", 0) == 0;
      if (a.name() == "shape" || legacy_shape || (a.name().empty() && !legacy_shape)) {
        if (a.name() == "shape" || legacy_shape) out_abs = decode_abstract(a);
        continue;
      }
      attrs[a.name()] = decode_value(a, what + " attribute '" + a.name() + "'");
    }
    std::vector<RVal> ins;
    for (const auto& i : n.input()) ins.push_back(lookup(i, what));
    cur_base_ = base_name(out);
    what = file_ + ": node '" + out + "' (" + prim + ")";
    // Quantized graph inputs are read through fake quantization by the primitives that say so.
    if (input_qp)
      if (auto q = activation_quant(*graph_input_quant_param(*input_qp, what), what))
        for (auto& v : ins)
          if (is_graph_input(v)) v = fake_quant(v, *q, v.name, v.name + "_dequantized", what);
    std::vector<std::optional<LinearQuant>> out_quant;
    if (output_qp)
      for (const auto* p : output_quant_params(*output_qp, what)) out_quant.push_back(activation_quant(*p, what));
    // An Identity that only carries activation parameters (the writer's form for a value whose
    // other readers read it in float) is the fake quantization itself.
    if (prim == "Identity" && ins.size() == 1 && !out_quant.empty() && out_quant[0]) {
      values_[out] = fake_quant(ins[0], *out_quant[0], cur_base_, cur_base_, what);
      return;
    }
    RVal result;
    if (is_framework(prim)) {
      result = framework(prim, ins, out_abs, what);
    } else {
      const ImportRule* rule = find_import_rule(prim);
      if (!rule) fail_unsupported("{}: MindSpore primitive '{}' has no IR mapping", what, prim);
      std::vector<std::string> in_names(n.input().begin(), n.input().end());
      NodeReader ctx(*this, prim, what, ins, attrs, out_abs, in_names);
      result = rule->fn ? rule->fn(ctx) : generic(ctx, rule->ir_op, rule->renames);
    }
    if (result.kind == RVal::Kind::Tensor && result.abs.kind == Abstract::Kind::Unknown) result.abs = out_abs;
    result = finalize(result, cur_base_);
    // Output k of the node is quantized with quant_param[k] (a tuple's elements, or the value).
    for (size_t k = 0; k < out_quant.size(); ++k) {
      if (!out_quant[k]) continue;
      RVal* v = result.kind == RVal::Kind::Tuple && k < result.elems.size() ? &result.elems[k] : k == 0 ? &result : nullptr;
      if (!v || v->kind != RVal::Kind::Tensor) fail("{}: quant_param[{}] names an output the node does not have", what, k);
      *v = fake_quant(*v, *out_quant[k], v->name, v->name + "_dequantized", what);
    }
    values_[out] = result;
  }

  RVal framework(const std::string& prim, const std::vector<RVal>& ins, const Abstract& out_abs, const std::string& what) {
    if (prim == "Load" || prim == "Depend" || prim == "Return") {
      if (ins.empty()) fail("{}: no input", what);
      return ins[0];
    }
    if (prim == "UpdateState") {
      RVal m;
      m.kind = RVal::Kind::Monad;
      return m;
    }
    if (prim == "MakeTuple" || prim == "make_tuple" || prim == "MakeList") return RVal::tuple(ins);
    if (prim == "Partial") {
      if (ins.empty() || ins[0].kind != RVal::Kind::Func)
        fail_unsupported("{}: Partial of something other than a function graph", what);
      RVal r = ins[0];
      r.elems.insert(r.elems.end(), ins.begin() + 1, ins.end());
      return r;
    }
    if (prim == "Switch") {
      if (ins.size() != 3) fail("{}: Switch takes (cond, true branch, false branch)", what);
      RVal r = RVal::tuple(ins);
      r.kind = RVal::Kind::Switch;
      return r;
    }
    if (prim == "Shape") {
      if (ins.empty()) fail("{}: no input", what);
      std::string t = tensor_of(ins[0], what);
      RVal r = RVal::tensor(add("Shape", {t}, {}, 1)[0]);
      r.seq_tensor = true;
      r.abs.kind = Abstract::Kind::Tensor;
      r.abs.dtype = DType::Int64;
      return r;
    }
    // TupleGetItem
    if (ins.size() < 2 || ins[1].kind != RVal::Kind::Const) fail_unsupported("{}: TupleGetItem with a computed index", what);
    int64_t idx = ins[1].c.as_int();
    const RVal& t = ins[0];
    if (t.kind == RVal::Kind::Tuple) {
      if (idx < 0) idx += static_cast<int64_t>(t.elems.size());
      if (idx < 0 || idx >= static_cast<int64_t>(t.elems.size())) fail("{}: index {} out of range", what, idx);
      return t.elems[idx];
    }
    if (t.kind == RVal::Kind::Const && t.c.is_seq()) {
      if (idx < 0) idx += static_cast<int64_t>(t.c.elems.size());
      return RVal::constant(t.c.elems.at(idx));
    }
    if (t.kind == RVal::Kind::Tensor && t.seq_tensor) {
      std::string i = add_const(Tensor::scalar<int64_t>(idx), "index");
      RVal r = RVal::tensor(add("Gather", {t.name, i}, {{"axis", Attribute::of_int(0)}}, 1)[0]);
      r.abs.kind = Abstract::Kind::Scalar;
      r.abs.dtype = DType::Int64;
      r.abs.rank_known = true;
      return r;
    }
    if (t.kind == RVal::Kind::Tensor && idx == 0) return t;
    fail_unsupported("{}: TupleGetItem on a value that is not a tuple", what);
  }

  void flatten(const RVal& v, std::vector<RVal>& out) {
    if (v.kind == RVal::Kind::Tuple)
      for (const auto& e : v.elems) flatten(e, out);
    else if (v.kind != RVal::Kind::Monad)
      out.push_back(v);
  }

  void read_outputs(const mind_ir::GraphProto& G) {
    std::vector<RVal> outs;
    for (const auto& o : G.output()) flatten(lookup(o.name(), file_ + ": graph output"), outs);
    if (outs.empty()) fail("{}: the graph has no outputs", file_);
    std::set<std::string> used;
    std::set<std::string> inputs;
    for (const auto& i : model_.graph.inputs) inputs.insert(i.name);
    for (const auto& v : outs) {
      std::string name = tensor_of(v, file_ + ": graph output");
      if (name.empty()) fail_unsupported("{}: a graph output is None", file_);
      // A subgraph returns values it computes: an outer value or a constant goes through Identity.
      bool outer = parent_ && !producer_.count(name);
      if (used.count(name) || outer) {
        cur_base_ = name;
        std::string id = add("Identity", {name}, {}, 1)[0];
        std::string n2 = unique(name + "_copy");
        rename(id, n2);
        name = n2;
      }
      used.insert(name);
      ValueInfo vi;
      vi.name = name;
      Abstract a = abstract_of_value(v);
      if (auto it = abs_.find(name); a.dtype == DType::Undefined && it != abs_.end()) a = it->second;
      if (a.kind == Abstract::Kind::List) {
        vi.type = sequence_type_of(a);
      } else if (a.dtype != DType::Undefined && (a.kind == Abstract::Kind::Tensor || a.kind == Abstract::Kind::Scalar)) {
        if (a.kind == Abstract::Kind::Scalar) {
          vi.type = TypeInfo::tensor(a.dtype, std::vector<Dim>{});
        } else if (a.rank_known) {
          std::vector<Dim> d;
          for (int64_t x : a.dims) d.push_back(x >= 0 ? Dim::fixed(x) : Dim{});
          vi.type = TypeInfo::tensor(a.dtype, d);
        } else {
          vi.type = TypeInfo::tensor_unknown_shape(a.dtype);
        }
      }
      model_.graph.outputs.push_back(vi);
    }
    finish();
  }

  void finish() {
    drop_unused();
    // Temporary names left on values nobody named: give them readable ones.
    std::vector<std::string> left(temp_.begin(), temp_.end());
    for (const auto& t : left) {
      auto p = t.rfind("__t");
      rename(t, unique(t.substr(0, p) + "_" + t.substr(p + 3)));
    }
  }

  // --- calls of function graphs ---------------------------------------------------------------
  // MindSpore writes a loop as tail recursion: header(state...) = Switch(go, body, exit)(), where
  // body() ends in header(next state...) and exit() returns the results. Finds that shape.
  struct LoopShape {
    const mind_ir::NodeProto* sw = nullptr;    // Switch(go, body, exit)
    const mind_ir::NodeProto* call = nullptr;  // its call, the header's output
    std::string body, exit;
    std::vector<std::string> body_bound, exit_bound;  // the branches' Partial arguments
  };
  std::optional<LoopShape> loop_shape(const mind_ir::GraphProto& F) {
    if (F.output_size() != 1) return std::nullopt;
    auto producer_of = [&](const std::string& v) -> const mind_ir::NodeProto* {
      for (const auto& n : F.node())
        if (n.output_size() && n.output(0) == v) return &n;
      return nullptr;
    };
    LoopShape L;
    L.call = producer_of(F.output(0).name());
    if (!L.call || L.call->op_type().rfind("REF::", 0) != 0) return std::nullopt;
    L.sw = producer_of(L.call->op_type().substr(5));
    if (!L.sw || L.sw->input_size() != 3 || L.sw->op_type().rfind("REF::", 0) != 0) return std::nullopt;
    auto prim = prims_.find(L.sw->op_type().substr(5));
    if (prim == prims_.end() || prim->second->op_type() != "Switch") return std::nullopt;
    // A branch is a function graph by name, or Partial(graph, args...) made in F.
    auto branch = [&](const std::string& v, std::string& graph, std::vector<std::string>& bound) {
      graph = v;
      if (functions_.count(v)) return;
      const mind_ir::NodeProto* p = producer_of(v);
      if (!p || p->input_size() < 1 || p->op_type().rfind("REF::", 0) != 0) return;
      auto pp = prims_.find(p->op_type().substr(5));
      if (pp == prims_.end() || pp->second->op_type() != "Partial") return;
      graph = p->input(0);
      bound.assign(p->input().begin() + 1, p->input().end());
    };
    std::string g1, g2;
    std::vector<std::string> b1, b2;
    branch(L.sw->input(1), g1, b1);
    branch(L.sw->input(2), g2, b2);
    auto recurses = [&](const std::string& g) {
      auto f = functions_.find(g);
      if (f == functions_.end()) return false;
      for (const auto& n : f->second->node())
        if (n.op_type() == "REF::" + F.name()) return true;
      return false;
    };
    if (recurses(g1)) {
      L.body = g1, L.exit = g2, L.body_bound = b1, L.exit_bound = b2;
    } else if (recurses(g2)) {
      L.body = g2, L.exit = g1, L.body_bound = b2, L.exit_bound = b1;
    } else {
      return std::nullopt;
    }
    if (!functions_.count(L.exit)) return std::nullopt;
    return L;
  }

  RVal read_call(const mind_ir::GraphProto& F, const std::vector<RVal>& args, const std::string& what) {
    if (args.size() != static_cast<size_t>(F.input_size()))
      fail("{}: calls {} with {} arguments, it takes {}", what, F.name(), args.size(), F.input_size());
    if (auto L = loop_shape(F)) return read_loop(F, *L, args, what);
    for (int k = 0; k < F.input_size(); ++k) values_[F.input(k).name()] = args[k];
    return inline_graph(F, what);
  }

  // The nodes of function graph F read into this graph (a sub-cell call, a loop's exit).
  RVal inline_graph(const mind_ir::GraphProto& F, const std::string& what) {
    // Counted over the whole model: a recursion that is not a loop's shape passes through If branches,
    // which child readers read.
    if (++depth() > 64)
      fail_unsupported("{}: function graphs call each other more than 64 deep (a recursion that is not a while loop)", what);
    std::string outer = gname_;
    gname_ = F.name();
    index_uses(F);
    for (const auto& n : F.node()) read_node(n);
    std::vector<RVal> outs;
    for (const auto& o : F.output()) outs.push_back(lookup(o.name(), what));
    gname_ = outer;
    --depth();
    if (outs.empty()) fail("{}: function graph {} returns nothing", what, F.name());
    return outs.size() == 1 ? outs[0] : RVal::tuple(std::move(outs));
  }

  // loop(state) as an IR Loop over the header's state, with neither trip count nor initial
  // condition; its body tests the header's condition and runs MindSpore's body under an If (the
  // else branch passes the state through; the last iteration is that pass-through). The exit graph
  // then reads the final state.
  RVal read_loop(const mind_ir::GraphProto& F, const LoopShape& L, const std::vector<RVal>& args, const std::string& what) {
    // A net that reads weights in the loop carries a monad (UMonad/IOMonad) in the loop state: it
    // orders side effects and holds no value, so it stays out of the IR Loop's state.
    Reader body(p_, file_, this);
    for (const auto& a : args) body.monad_state_.push_back(a.kind == RVal::Kind::Monad);
    Graph g = body.read_loop_body(F, L, what);
    std::vector<std::string> ins{""};
    Tensor yes(DType::Bool, {});
    yes.data<bool>()[0] = true;
    ins.push_back(add_const(yes, "true"));
    for (const auto& a : args)
      if (a.kind != RVal::Kind::Monad) ins.push_back(tensor_of(a, what));
    auto outs = add("Loop", ins, {{"body", Attribute::of_graph(std::make_shared<Graph>(std::move(g)))}},
                    static_cast<int>(ins.size()) - 2);
    for (int k = 0, j = 0; k < F.input_size(); ++k)
      values_[F.input(k).name()] = args[k].kind == RVal::Kind::Monad ? args[k] : RVal::tensor(outs[j++], decode_input_abstract(F.input(k)));
    const auto& exit = *functions_.at(L.exit);
    if (L.exit_bound.size() != static_cast<size_t>(exit.input_size()))
      fail("{}: the loop exit {} takes {} arguments, it is given {}", what, exit.name(), exit.input_size(), L.exit_bound.size());
    std::vector<RVal> exit_args;
    for (const auto& b : L.exit_bound) exit_args.push_back(lookup(b, what + " (loop exit argument)"));
    for (int k = 0; k < exit.input_size(); ++k) values_[exit.input(k).name()] = exit_args[k];
    return inline_graph(exit, what);
  }

  Graph read_loop_body(const mind_ir::GraphProto& F, const LoopShape& L, const std::string& what) {
    gname_ = F.name();
    model_.graph.name = F.name();
    index_uses(F);
    for (const auto& [name, dt] : {std::pair<const char*, DType>{"iteration", DType::Int64}, {"condition", DType::Bool}}) {
      std::string n = unique(name);
      model_.graph.inputs.push_back({n, TypeInfo::tensor(dt, Shape{})});
    }
    for (int k = 0; k < F.input_size(); ++k) {
      if (static_cast<size_t>(k) < monad_state_.size() && monad_state_[k]) {
        RVal m;
        m.kind = RVal::Kind::Monad;
        values_[F.input(k).name()] = m;
      } else {
        read_input(F.input(k));
      }
    }
    const size_t n_state = model_.graph.inputs.size() - 2;
    for (const auto& n : F.node())
      if (&n != L.sw && &n != L.call) read_node(n);
    std::string go = tensor_of(lookup(L.sw->input(0), what), what);
    Reader then_reader(p_, file_, this);
    then_reader.loop_header_ = F.name();
    std::vector<RVal> body_args;
    for (const auto& b : L.body_bound) body_args.push_back(lookup(b, what + " (loop body argument)"));
    auto then_g = std::make_shared<Graph>(then_reader.read_function(*functions_.at(L.body), &body_args));
    if (then_g->outputs.size() != n_state)
      fail("{}: the loop body of {} passes {} values back, the loop has {}", what, F.name(), then_g->outputs.size(), n_state);
    auto else_g = std::make_shared<Graph>();
    else_g->name = F.name() + "_exit";  // ONNX requires graph names
    for (size_t k = 0; k < model_.graph.inputs.size() - 2; ++k) {
      Node id;
      id.op_type = "Identity";
      id.name = unique(F.name() + "/pass");
      id.inputs = {model_.graph.inputs[2 + k].name};
      id.outputs = {unique(model_.graph.inputs[2 + k].name + "_pass")};
      else_g->outputs.push_back({id.outputs[0], model_.graph.inputs[2 + k].type});
      else_g->nodes.push_back(std::move(id));
    }
    cur_base_ = F.name();
    auto outs = add("If", {go}, {{"then_branch", Attribute::of_graph(then_g)}, {"else_branch", Attribute::of_graph(else_g)}},
                    static_cast<int>(n_state));
    std::string cond_out = add("Identity", {go}, {}, 1)[0];
    model_.graph.outputs.push_back({cond_out, TypeInfo::tensor(DType::Bool, Shape{})});
    for (size_t k = 0; k < outs.size(); ++k) model_.graph.outputs.push_back({outs[k], model_.graph.inputs[2 + k].type});
    finish();
    return std::move(model_.graph);
  }

  Abstract decode_input_abstract(const mind_ir::ValueInfoProto& in) {
    if (in.tensor_size() == 0) return in.has_attr_info() ? decode_abstract(in.attr_info()) : Abstract{};
    Abstract a;
    a.kind = Abstract::Kind::Tensor;
    a.dtype = dtype_from_mindir(in.tensor(0).data_type(), file_);
    a.dims.assign(in.tensor(0).dims().begin(), in.tensor(0).dims().end());
    a.rank_known = !(a.dims.size() == 1 && a.dims[0] == -2);
    return a;
  }

  // Some import rules make values that only some uses need (LayerNorm's variance from InvStdDev)
  // and declare them optional; the nodes of those that nobody uses, and the constants only they
  // used, are dropped at the end. Everything else stays, unused or not, as the file has it.
  void drop_unused() {
    auto& nodes = model_.graph.nodes;
    std::set<std::string> live;
    for (const auto& o : model_.graph.outputs) live.insert(o.name);
    std::vector<bool> keep(nodes.size(), false);
    for (size_t k = nodes.size(); k-- > 0;) {
      for (const auto& o : nodes[k].outputs)
        if (live.count(o) || !optional_.count(o)) keep[k] = true;
      if (keep[k])
        for (const auto& i : nodes[k].inputs) live.insert(i);
    }
    std::vector<Node> kept;
    std::set<std::string> dropped_inputs;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (keep[k]) kept.push_back(std::move(nodes[k]));
      else dropped_inputs.insert(nodes[k].inputs.begin(), nodes[k].inputs.end());
    }
    nodes = std::move(kept);
    producer_.clear();
    for (size_t k = 0; k < nodes.size(); ++k)
      for (size_t j = 0; j < nodes[k].outputs.size(); ++j) producer_[nodes[k].outputs[j]] = {k, j};
    std::erase_if(temp_, [&](const std::string& t) { return !producer_.count(t); });
    for (const auto& c : made_consts_)
      if (!live.count(c) && dropped_inputs.count(c)) model_.graph.initializers.erase(c);
  }

  const mind_ir::ModelProto& p_;
  std::set<std::string> made_consts_, optional_;
  std::string file_, base_dir_, gname_;
  Model model_;
  std::map<std::string, const mind_ir::PrimitiveProto*> prims_;
  std::map<std::string, const mind_ir::GraphProto*> functions_;
  Reader* parent_ = nullptr;
  std::string loop_header_;  // in a loop body: the header graph whose calls are the next iteration
  std::vector<bool> monad_state_;  // in a loop body: which of the header's parameters are monads
  int inline_depth_ = 0;  // the root reader's count; depth() finds it
  int& depth() { return parent_ ? parent_->depth() : inline_depth_; }
  std::map<std::string, RVal> values_;
  std::map<std::string, Abstract> abs_;
  std::map<std::string, int> uses_;
  std::set<std::string> taken_, temp_, reserved_;
  std::map<std::string, std::pair<size_t, size_t>> producer_;
  std::map<std::string, std::string> data_files_;
  std::string cur_base_;
  int64_t temp_counter_ = 0;
  std::map<std::string, RVal> fake_quant_;  // fake_quant results by value and parameters
};

std::string NodeReader::tensor_of(const RVal& v) { return r_.tensor_of(v, what_); }
std::string NodeReader::add_const(const Tensor& t, const std::string& hint) { return r_.add_const(t, hint); }
std::vector<std::string> NodeReader::add(const std::string& op, std::vector<std::string> inputs,
                                         std::map<std::string, Attribute> attrs, int n) {
  return r_.add(op, std::move(inputs), std::move(attrs), n);
}
int NodeReader::rank(size_t i) const {
  if (i >= ins_.size()) return -1;
  Abstract a = r_.abstract_of_value(ins_[i]);
  if (a.kind == Abstract::Kind::Scalar) return 0;
  return a.rank_known ? static_cast<int>(a.dims.size()) : -1;
}
DType NodeReader::dtype(size_t i) const {
  if (i >= ins_.size()) return DType::Undefined;
  return r_.abstract_of_value(ins_[i]).dtype;
}
std::vector<int64_t> NodeReader::dims(size_t i) const {
  if (i >= ins_.size()) return {};
  Abstract a = r_.abstract_of_value(ins_[i]);
  return a.rank_known ? a.dims : std::vector<int64_t>{};
}
Node* NodeReader::producer(const std::string& n) { return r_.producer(n); }
void NodeReader::optional(const std::string& ir_name) { r_.optional_.insert(ir_name); }
std::string NodeReader::reclaim(const std::string& ir_name) { return r_.reclaim(ir_name); }
int NodeReader::use_count(size_t i) const { return i < in_names_.size() ? r_.use_count(in_names_[i]) : 0; }
RVal NodeReader::generic(const std::string& ir_op) { return r_.generic(*this, ir_op, {}); }

}  // namespace

bool is_encrypted_mindir(const std::string& head, std::string* mode) {
  if (head.size() < 4) return false;
  uint32_t magic = static_cast<uint8_t>(head[0]) | static_cast<uint8_t>(head[1]) << 8 |
                   static_cast<uint8_t>(head[2]) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(head[3])) << 24;
  const char* m = magic == 0x7F3A5ED8u ? "AES-GCM" : magic == 0x7F3A5ED9u ? "AES-CBC" : magic == 0x7F3A5EDAu ? "SM4-CBC" : nullptr;
  if (m && mode) *mode = m;
  return m != nullptr;
}

Model import_mindir_bytes(const std::string& bytes, const std::string& source_path) {
  if (bytes.empty()) fail("{}: file is empty, not a MindIR model", source_path);
  std::string mode;
  if (is_encrypted_mindir(bytes, &mode))
    fail_unsupported("{}: the MindIR file is encrypted ({}); decrypt it with MindSpore (load with dec_key/dec_mode) "
                     "and export it without enc_key first", source_path, mode);
  if (bytes.size() >= 8 && bytes.compare(4, 4, "MSL2") == 0)
    fail_unsupported("{}: this is a MindSpore Lite .ms model (FlatBuffers), not MindIR; reading .ms files is not "
                     "supported", source_path);
  mind_ir::ModelProto p;
  if (!p.ParseFromString(bytes))
    fail("{}: not a valid MindIR model (protobuf parse failed; the file is truncated, corrupt or not MindIR)", source_path);
  if (!p.has_graph()) fail("{}: MindIR model has no graph", source_path);
  if (p.producer_name().empty() && p.ir_version().empty())
    fail("{}: not a MindIR model (no producer_name and no ir_version)", source_path);
  Reader r(p, source_path);
  return r.run();
}

Model load_mindir(const std::string& path) { return import_mindir_bytes(read_all(path), path); }

}  // namespace ms::mindir
