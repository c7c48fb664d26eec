#include "formats/mindir/mindir_writer.h"

#include <bit>
#include <chrono>
#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "formats/mindir/mindir_ops.h"
#include "formats/mindir/mindir_quant_fold.h"
#include "formats/mindir/mindir_sequence_forms.h"
#include "ops/op.h"

namespace ms::mindir {

namespace fs = std::filesystem;

namespace {

constexpr size_t kLongGraphName = 16;

std::string sanitize(std::string s) {
  for (auto& ch : s)
    if (ch == ':') ch = '_';
  return s;
}

Tensor constant_node_tensor(const Node& n) {
  auto get = [&](const char* k) { return n.attr(k); };
  if (const Attribute* a = get("value")) return a->t;
  if (const Attribute* a = get("value_float")) return Tensor::scalar<float>(a->f);
  if (const Attribute* a = get("value_int")) return Tensor::scalar<int64_t>(a->i);
  if (const Attribute* a = get("value_floats")) return Tensor::from_vector<float>(a->floats, {static_cast<int64_t>(a->floats.size())});
  if (const Attribute* a = get("value_ints")) return Tensor::from_vector<int64_t>(a->ints, {static_cast<int64_t>(a->ints.size())});
  fail_unsupported("{}: this Constant form cannot be written to MindIR", n.label());
}

// A Constant becomes a value node of each function graph that reads it (MindSpore keeps value
// nodes per graph), so one read by several graphs is stored once per graph: Silero VAD's LSTM
// weights, read by both branches of the If inside each sample-rate branch, were 1.05 MB of its
// 3.44 MB. Those large enough to matter become parameters of the main graph instead, stored once
// and read by name from every function, as MindSpore stores weights. Small ones (shapes, axes)
// stay value nodes, which MindSpore's shape inference can read.
constexpr size_t kSharedConstantBytes = 1024;

void note_constant_reads(const Graph& g, std::map<std::string, std::set<const Graph*>>& readers,
                         std::map<std::string, size_t>& sizes) {
  for (const Node& n : g.nodes) {
    for (const auto& i : n.inputs)
      if (!i.empty()) readers[i].insert(&g);
    if (n.op_type == "Constant" && n.domain.empty() && n.outputs.size() == 1)
      if (const Attribute* a = n.attr("value"); a && a->t.dtype() != DType::String) sizes[n.outputs[0]] = a->t.nbytes();
    for (const auto& [k, a] : n.attrs) {
      if (a.g) note_constant_reads(*a.g, readers, sizes);
      for (const auto& sg : a.graphs) note_constant_reads(*sg, readers, sizes);
    }
  }
  for (const auto& v : g.outputs) readers[v.name].insert(&g);
}

std::set<std::string> constants_read_by_several_graphs(const Graph& main) {
  std::map<std::string, std::set<const Graph*>> readers;
  std::map<std::string, size_t> sizes;
  note_constant_reads(main, readers, sizes);
  std::set<std::string> r;
  for (const auto& [name, bytes] : sizes)
    if (bytes >= kSharedConstantBytes && readers[name].size() > 1) r.insert(name);
  return r;
}

class Writer;
void write_inline_streamed(Writer& w, const std::string& path);

class Writer : public WriteCtx {
  friend void write_inline_streamed(Writer& w, const std::string& path);

 public:
  // `unfolded`: quantized weights to keep as explicit DequantizeLinear nodes (mindir_quant_fold.h).
  Writer(const Model& m, const WriteOptions& o, std::set<std::string> unfolded = {}) : m_(m), opts_(o), unfolded_(std::move(unfolded)) {}

  void run(bool dry_run = false) {
    const Graph& G = m_.graph;
    // Every parameter, node and value name carries the graph's name as its prefix: a long one
    // ("Model from PaddlePaddle.", 1,898 times in PaddleOCR det) becomes "main_graph", and the
    // original travels in doc_string for the reader.
    gname_ = sanitize(G.name.empty() || G.name.size() > kLongGraphName ? "main_graph" : G.name);
    proto_.set_ir_version("0.1.1");
    proto_.set_producer_name("MindSpore");
    proto_.set_model_version(opts_.model_version);
    g_ = proto_.mutable_graph();
    g_->set_name(gname_);
    if (G.name.size() > kLongGraphName) g_->set_doc_string(G.name);
    prefix_ = gname_;
    proto_.set_little_endian(std::endian::native == std::endian::little);
    proto_.set_mind_ir_version(1);
    // Model metadata (ms.tensor_origin among it) travels in user_info, as MindSpore keeps custom
    // metadata there.
    for (const auto& [k, v] : m_.metadata) (*proto_.mutable_user_info())[k] = v;
    if (!m_.doc.empty()) proto_.set_doc_string(m_.doc);  // the ONNX model's doc_string (preprocessing notes)

    for (const auto& [name, t] : G.initializers) {
      consts_[name] = &t;
      types_[name] = TypeInfo::tensor(t.dtype(), t.shape());
    }
    plan_ = plan_quant_folding(m_, unfolded_);
    shared_constants_ = constants_read_by_several_graphs(G);
    // Sequences of tensors are dynamic-length lists (mindir_sequence_forms.cc); an optional has no
    // MindSpore type (an input or output is a tensor or None, fixed when the graph is compiled).
    for (const auto& v : G.inputs)
      if (!sequence_type_writable(v.type))
        unsupported_.push_back(fmt::format("graph input '{}' is {}; MindSpore graph inputs have one type, fixed at "
                                           "compile time (tensor, list of tensors or None)", v.name, v.type.str()));
    for (const auto& v : G.outputs)
      if (!sequence_type_writable(v.type))
        unsupported_.push_back(fmt::format("graph output '{}' is {}; MindSpore graph outputs have one type, fixed at "
                                           "compile time (tensor, list of tensors or None)", v.name, v.type.str()));
    if (!unsupported_.empty()) unsupported_ops_.insert("sequence/optional values");
    for (const auto& v : G.inputs) {
      if (G.initializers.count(v.name)) continue;  // an old-style weight input: written as a parameter
      auto* in = g_->add_input();
      in->set_name(gname_ + ":" + v.name);
      refs_[v.name] = in->name();
      types_[v.name] = v.type;
      if (v.type.kind == TypeInfo::Kind::Sequence) {  // a dynamic-length list input
        encode_abstract(abstract_of(v.type), in->mutable_attr_info());
        in->set_denotation("List");
        continue;
      }
      auto* t = in->add_tensor();
      Abstract a = abstract_of(v.type);
      if (a.rank_known)
        for (int64_t d : a.dims) t->add_dims(d);
      else
        t->add_dims(-2);
      t->set_data_type(v.type.dtype == DType::Undefined ? 1 : dtype_to_mindir(v.type.dtype));
    }
    for (const auto& v : G.value_info) types_.emplace(v.name, v.type);
    for (const auto& v : G.outputs)
      if (v.type.kind != TypeInfo::Kind::Unknown) types_.emplace(v.name, v.type);
    for (const auto& [name, k] : plan_.graph_inputs) graph_input_quant_[refs_.at(name)] = &plan_.activations[k].params;

    for (const Node& n : G.nodes) write_node(n);
    cur_ = nullptr;
    if (dry_run) return;
    if (!unsupported_.empty()) {
      std::string list;
      for (const auto& u : unsupported_) list += "\n  " + u;
      fail_unsupported("cannot write MindIR: {} node(s) cannot be expressed with MindSpore primitives:{}", unsupported_.size(), list);
    }
    // The single graph output (MakeTuple for several).
    std::vector<std::string> outs;
    std::vector<Abstract> abs;
    for (const auto& v : G.outputs) {
      outs.push_back(ref(v.name));
      abs.push_back(abstract(v.name));
    }
    auto* o = g_->add_output();
    if (outs.size() == 1 && abs[0].kind == Abstract::Kind::List) {
      o->set_name(outs[0]);
      encode_abstract(abs[0], o->mutable_attr_info());
    } else if (outs.size() == 1) {
      o->set_name(outs[0]);
      auto* t = o->add_tensor();
      mind_ir::AttributeProto tmp;
      encode_abstract(abs[0], &tmp);
      if (tmp.tensors_size()) *t = tmp.tensors(0);
    } else {
      Abstract ta;
      ta.kind = Abstract::Kind::Tuple;
      ta.elems = abs;
      std::string mt = call("MakeTuple", {}, outs, ta, "output");
      o->set_name(mt);
      encode_abstract(ta, o->mutable_attr_info());
    }
    g_->set_bprop_hash("");
    g_->set_bprop_filepath("");
    for (const auto& name : param_order_) {
      const Tensor& t = *consts_.at(name);
      auto* p = g_->add_parameter();
      p->set_name(gname_ + ":" + name);
      tensor_to_proto(t, p, false);
      p->set_ref_key(name);
      p->set_compression_type(mind_ir::TensorProto::NO_COMPRESSION);
      if (folded_.count(name)) encode_linear_quant(plan_.weights.at(name).params, p->add_quant_params());
      params_.push_back({p, &t});
    }
    if (primitives_replaced_) drop_unused_primitives();
  }

  // Folded weights whose channel axis a reader would not find again (the consuming primitive names
  // another axis of the same size, see resolve_weight_axis): they must stay explicit.
  std::set<std::string> unreadable_weight_axes() const {
    std::map<std::string, const mind_ir::PrimitiveProto*> prims;
    for (const auto& p : proto_.primitives()) prims[p.name()] = &p;
    auto prim_of = [&](const std::string& op) -> const mind_ir::PrimitiveProto* {
      if (op.rfind("REF::", 0) != 0) return nullptr;
      auto it = prims.find(op.substr(5));
      return it == prims.end() ? nullptr : it->second;
    };
    std::set<std::string> bad;
    for (const auto& name : folded_) {
      const auto& w = plan_.weights.at(name);
      const int want = w.params.channels() == 1 ? -1 : w.axis;
      int got = -2;
      try {
        int pref = preferred_axis_in_graph(proto_.graph(), prim_of, gname_ + ":" + name, w.q->rank());
        got = resolve_weight_axis(w.params.channels(), w.q->shape(), pref, name);
      } catch (const Error&) {
      }
      if (got != want) bad.insert(name);
    }
    return bad;
  }

  // Inline weights (raw_data) or external data in `location` (a relative path) with `blob` receiving
  // the data file contents.
  void fill_weights(bool split, const std::string& location, std::string* blob) {
    if (!split) {
      for (auto& [p, t] : params_) p->set_raw_data(static_cast<const char*>(t->raw()), t->nbytes());
      return;
    }
    std::vector<std::pair<mind_ir::TensorProto*, const Tensor*>> sorted = params_;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first->name() < b.first->name(); });
    blob->assign(64, '\0');
    (*blob)[0] = std::endian::native == std::endian::little ? 1 : 0;
    for (auto& [p, t] : sorted) {
      int64_t off = static_cast<int64_t>(blob->size());
      auto* ed = p->mutable_external_data();
      ed->set_location(location);
      ed->set_offset(off);
      ed->set_length(static_cast<int64_t>(t->nbytes()));
      blob->append(static_cast<const char*>(t->raw()), t->nbytes());
      size_t pad = (64 - blob->size() % 64) % 64;
      blob->append(pad, '\0');
    }
  }

  uint64_t param_bytes() const {
    uint64_t s = 0;
    for (const auto& pt : params_) s += pt.second->nbytes();
    return s;
  }

  mind_ir::ModelProto proto_;
  std::set<std::string> unsupported_ops_;

  void write_node(const Node& n) {
    if (n.op_type == "SequenceMap" && n.domain.empty()) {  // written as its ONNX function body (a Loop)
      auto is_seq = [&](const std::string& v) {
        const TypeInfo* t = type(v);
        return t && t->kind == TypeInfo::Kind::Sequence;
      };
      for (Node& e : expand_sequence_map(n, is_seq)) write_node(expanded_.emplace_back(std::move(e)));
      return;
    }
    cur_ = &n;
    infer(n, OpRegistry::global(), static_cast<int>(m_.opset("")));
    if (write_folded_quant(n)) return;
    if (n.op_type == "Constant" && n.domain.empty()) {
      owned_.push_back(constant_node_tensor(n));
      consts_[n.outputs.at(0)] = &owned_.back();
      if (!shared_constants_.count(n.outputs[0])) ir_constants_.insert(n.outputs[0]);  // else a parameter
      types_[n.outputs[0]] = TypeInfo::tensor(owned_.back().dtype(), owned_.back().shape());
      return;
    }
    // Project-domain ops (com.mstools fused ops) have entries keyed "<domain>.<op>".
    const ExportRule* rule = find_export_rule(n.domain.empty() ? n.op_type : n.domain + "." + n.op_type);
    if (!rule) {
      std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
      bool control_flow = std::any_of(n.attrs.begin(), n.attrs.end(), [](const auto& kv) {
        return kv.second.type == AttrType::Graph || kv.second.type == AttrType::Graphs;
      });
      unsupported_ops_.insert(op);
      unsupported_.push_back(control_flow ? fmt::format("{}: {} is not written to MindIR yet (MindSpore expresses loops as "
                                                        "recursive function graphs; If, Loop and Scan are written so)", n.label(), op)
                                          : fmt::format("{}: no MindSpore primitive for {}", n.label(), op));
      poison(n);
      return;
    }
    try {
      chain_start_ = g_->node_size();
      if (rule->fn)
        rule->fn(*this);
      else
        generic(*rule);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Unsupported) throw;
      unsupported_.push_back(e.what());
      unsupported_ops_.insert(n.op_type);
      poison(n);
    }
  }

  // Function graphs (ModelProto.functions), as MindSpore writes the branches of a Switch and the
  // graphs of a loop: values of the enclosing graphs are referenced by their names (MindSpore
  // resolves names file-wide); one output (MakeTuple for several).
  // Every name inside a function carries the function's name as its prefix, so it is kept short:
  // the last component of the hint's scope path, at most kLongGraphName characters of its end
  // (Silero VAD's "If_0_then_branch__Inline_0__/decoder/rnn/If_4_then" becomes "If_4_then_224";
  // the full names were 6% of its quantized file). The counter keeps it unique.
  std::string function_name(const std::string& hint) override {
    std::string base = sanitize(hint.substr(hint.find_last_of('/') == std::string::npos ? 0 : hint.find_last_of('/') + 1));
    if (base.empty()) base = "fn";
    if (base.size() > kLongGraphName) base = base.substr(base.size() - kLongGraphName);
    return base + "_" + std::to_string(++counter_);
  }

  std::vector<std::string> open_function(const std::string& fname, const std::vector<std::string>& input_names,
                                         const std::vector<Abstract>& input_types) override {
    // Sibling branches may reuse names: a function's own values stay local to it; Constant nodes
    // live in the graph that uses them.
    outer_.push_back({cur_, g_, prefix_, chain_start_, refs_, {}});
    std::swap(outer_.back().consts, const_cache_);
    g_ = proto_.add_functions();
    g_->set_name(fname);
    prefix_ = fname;
    std::vector<std::string> refs;
    for (size_t k = 0; k < input_names.size(); ++k) {
      auto* in = g_->add_input();
      in->set_name(fname + ":" + input_names[k]);
      mind_ir::AttributeProto tmp;
      encode_abstract(input_types[k], &tmp);
      if (input_types[k].kind == Abstract::Kind::List) {  // a dynamic-length list
        *in->mutable_attr_info() = tmp;
        in->set_denotation("List");
      } else if (tmp.tensors_size()) {
        *in->add_tensor() = tmp.tensors(0);
      }
      refs.push_back(in->name());
    }
    return refs;
  }

  void write_nodes(const Graph& sub, const std::map<std::string, std::string>& bound, const std::map<std::string, TypeInfo>& bound_types) override {
    for (const auto& [ir, r] : bound) refs_[ir] = r;
    for (const auto& [ir, t] : bound_types) types_[ir] = t;
    for (const auto& [name, t] : sub.initializers) {
      consts_[name] = &t;
      types_[name] = TypeInfo::tensor(t.dtype(), t.shape());
    }
    for (const auto& v : sub.value_info) types_.emplace(v.name, v.type);
    for (const auto& v : sub.outputs)
      if (v.type.kind != TypeInfo::Kind::Unknown) types_.emplace(v.name, v.type);
    for (const Node& n : sub.nodes) write_node(n);
    cur_ = outer_.back().node;
  }

  void close_function(const std::vector<std::string>& outs, const std::vector<Abstract>& abs) override {
    auto* o = g_->add_output();
    if (outs.size() == 1) {
      o->set_name(outs[0]);
      mind_ir::AttributeProto tmp;
      encode_abstract(abs[0], &tmp);
      if (tmp.tensors_size()) *o->add_tensor() = tmp.tensors(0);
    } else {
      Abstract ta;
      ta.kind = Abstract::Kind::Tuple;
      ta.elems = abs;
      o->set_name(call("MakeTuple", {}, outs, ta, "output"));
      encode_abstract(ta, o->mutable_attr_info());
    }
    Outer& b = outer_.back();
    cur_ = b.node;
    g_ = b.graph;
    prefix_ = b.prefix;
    chain_start_ = b.chain_start;
    refs_ = std::move(b.refs);
    const_cache_ = std::move(b.consts);
    outer_.pop_back();
  }

  std::string write_function(const Graph& sub, const std::string& hint) override {
    std::string fname = function_name(hint);
    open_function(fname, {}, {});
    write_nodes(sub, {}, {});
    std::vector<std::string> outs;
    std::vector<Abstract> abs;
    for (const auto& v : sub.outputs) {
      outs.push_back(ref(v.name));
      abs.push_back(abstract(v.name));
    }
    close_function(outs, abs);
    return fname;
  }

  std::string call_value(const std::string& callee, const std::vector<std::string>& inputs, const Abstract& out) override {
    std::string out_name = prefix_ + ":call:" + std::to_string(++counter_);
    auto* n = g_->add_node();
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(out_name);
    n->set_op_type("REF::" + callee);
    auto* sa = n->add_attribute();
    sa->set_name("shape");
    encode_abstract(out, sa);
    node_index_[out_name] = {g_, g_->node_size() - 1};
    return out_name;
  }

  // --- WriteCtx ---
  const Node& node() const override { return *cur_; }
  size_t num_inputs() const override { return cur_->inputs.size(); }

  std::string ref(const std::string& ir) override {
    auto it = refs_.find(ir);
    if (it != refs_.end()) return it->second;
    if (ir_constants_.count(ir)) return constant_node(MsValue::of_tensor(*consts_.at(ir)));
    auto c = consts_.find(ir);
    if (c != consts_.end()) {
      std::string r = gname_ + ":" + ir;
      refs_[ir] = r;
      if (params_seen_.insert(ir).second) param_order_.push_back(ir);
      return r;
    }
    fail("{}: value '{}' is used but never defined", cur_ ? cur_->label() : std::string("graph output"), ir);
  }
  std::string in(size_t i) override {
    if (i >= cur_->inputs.size() || cur_->inputs[i].empty()) return constant_node(MsValue::none());
    return ref(cur_->inputs[i]);
  }
  const Tensor* constant(const std::string& ir) const override {
    if (folded_.count(ir)) return nullptr;  // an int8 parameter standing for float values, not a constant
    auto it = consts_.find(ir);
    return it == consts_.end() ? nullptr : it->second;
  }
  bool is_graph_input(const std::string& ir) const override {
    return std::any_of(m_.graph.inputs.begin(), m_.graph.inputs.end(), [&](const ValueInfo& v) { return v.name == ir; });
  }
  const TypeInfo* type(const std::string& ir) const override {
    auto it = types_.find(ir);
    return it == types_.end() ? nullptr : &it->second;
  }
  Abstract abstract(const std::string& ir) const override {
    const TypeInfo* t = type(ir);
    if (t && t->kind == TypeInfo::Kind::Sequence) return abstract_of(*t);  // a dynamic-length list
    if (!t || t->kind != TypeInfo::Kind::Tensor) {
      Abstract a;
      a.kind = Abstract::Kind::Tensor;
      return a;
    }
    return abstract_of(*t);
  }
  const Attribute* attr(const std::string& name) const override {
    if (const Attribute* a = cur_->attr(name)) return a;
    if (const OpDef* d = OpRegistry::global().find(cur_->domain, cur_->op_type))
      if (const AttrSpec* s = d->find_attr(name); s && s->default_value) return &*s->default_value;
    return nullptr;
  }

  void write_generic(const std::string& prim) override { generic(ExportRule{cur_->op_type, prim, {}, nullptr}); }

  std::string constant_node(const MsValue& v) override {
    mind_ir::AttributeProto a;
    a.set_name("value");
    encode_value(v, &a);
    std::string key = a.SerializeAsString();
    auto it = const_cache_.find(key);
    if (it != const_cache_.end()) return it->second;
    std::string name = "[ValueNode]" + std::to_string(++counter_);
    auto* n = g_->add_node();
    n->add_output(name);
    n->set_op_type("Constant");
    *n->add_attribute() = a;
    const_cache_[key] = name;
    return name;
  }

  std::string call(const std::string& prim, const std::map<std::string, MsValue>& attrs,
                   const std::vector<std::string>& inputs, const Abstract& out, const std::string& debug = "") override {
    // Primitive instances are shared when they are identical (as MindSpore shares them).
    mind_ir::PrimitiveProto pp;
    pp.set_op_type(prim);
    for (const auto& [k, v] : attrs) {
      auto* a = pp.add_attribute();
      a->set_name(k);
      encode_value(v, a);
    }
    // A quantized graph input is read quantized by every primitive that reads it (MindSpore's
    // graph_input_quant_param); the plan leaves at most one per IR node.
    const LinearQuant* input_quant = nullptr;
    for (const auto& i : inputs)
      if (auto g = graph_input_quant_.find(i); g != graph_input_quant_.end()) {
        if (input_quant && input_quant != g->second)
          fail_unsupported("{}: one primitive reads two quantized graph inputs", cur_ ? cur_->label() : prim);
        input_quant = g->second;
      }
    if (input_quant) encode_graph_input_quant_param(*input_quant, pp.add_attribute());
    pp.set_instance_name("");
    std::string key = pp.SerializeAsString();
    std::string pname;
    auto it = prim_cache_.find(key);
    if (it != prim_cache_.end()) {
      pname = it->second;
    } else {
      pname = prim + ":" + std::to_string(++counter_);
      pp.set_name(pname);
      prim_index_[pname] = proto_.primitives_size();
      *proto_.add_primitives() = pp;
      prim_cache_[key] = pname;
    }
    std::string dbg = debug.empty() ? prim : debug;
    std::string out_name = prefix_ + ":" + dbg + ":" + std::to_string(++counter_);
    // Nodes carry no `name` and no `domain`: MindSpore's loader knows a node by output[0] only and
    // never reads its name, and a node loaded without a domain gets the scope name MindSpore would
    // write there ("Default/<Prim>-op<id>", CNode::fullname_with_scope). Both were a copy of what
    // the file says elsewhere, 7% of Silero VAD's WEIGHT_QUANT file.
    auto* n = g_->add_node();
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(out_name);
    n->set_op_type("REF::" + pname);
    auto* sa = n->add_attribute();
    sa->set_name("shape");
    encode_abstract(out, sa);
    node_index_[out_name] = {g_, g_->node_size() - 1};
    return out_name;
  }

  std::string get_item(const std::string& tuple, int64_t index, const Abstract& out) override {
    return call("TupleGetItem", {}, {tuple, constant_node(MsValue::of_int(index))}, out);
  }

  void bind(const std::string& ir_output, const std::string& ref_in) override {
    // Name the node that produces an IR value after it, `<graph>:<value>:<counter>`, so that a
    // reader gets the value names back. A value that is not the fresh output of this node's chain
    // (a graph input, a weight, another IR value) gets an Identity of its own to carry the name.
    std::string r = ref_in;
    auto it = node_index_.find(r);
    if (it == node_index_.end() || it->second.first != g_ || it->second.second < chain_start_ || renamed_.count(r)) {
      r = call("Identity", {}, {r}, abstract(ir_output));
      it = node_index_.find(r);
    }
    std::string final_ref = r;
    {
      auto* n = g_->mutable_node(it->second.second);
      std::string c = r.substr(r.rfind(':') + 1);
      std::string nn = prefix_ + ":" + ir_output + ":" + c;
      n->set_output(0, nn);
      node_index_[nn] = it->second;
      renamed_.insert(nn);
      renamed_.insert(r);
      final_ref = nn;
      // references made to the old name inside this node's chain
      for (int k = chain_start_; k < g_->node_size(); ++k) {
        auto* m = g_->mutable_node(k);
        for (int j = 0; j < m->input_size(); ++j)
          if (m->input(j) == r) m->set_input(j, nn);
      }
    }
    refs_[ir_output] = final_ref;
    if (auto q = plan_.producer_outputs.find(ir_output); q != plan_.producer_outputs.end() && !outer_.size()) {
      attach_output_quant(final_ref, plan_.activations[q->second].params);
      quant_attached_.insert(ir_output);
    }
  }

 private:
  // QuantizeLinear/DequantizeLinear nodes the plan folds into quantization parameters.
  bool write_folded_quant(const Node& n) {
    if (auto w = plan_.weight_nodes.find(&n); w != plan_.weight_nodes.end()) {
      const auto& fw = plan_.weights.at(w->second);
      consts_[w->second] = fw.q;  // written as the int8 parameter, named as the float weight was
      folded_.insert(w->second);
      types_[w->second] = TypeInfo::tensor(DType::Float32, fw.q->shape());
      return true;
    }
    auto a = plan_.activation_nodes.find(&n);
    if (a == plan_.activation_nodes.end()) return false;
    if (n.op_type == "QuantizeLinear") return true;  // the pair is written at its DequantizeLinear
    const auto& act = plan_.activations[a->second];
    const std::string& dq = n.outputs.at(0);
    if (const TypeInfo* t = type(act.value)) types_[dq] = *t;
    chain_start_ = g_->node_size();
    const bool on_producer = act.carrier == QuantFoldPlan::Carrier::Producer && quant_attached_.count(act.value);
    if (on_producer || act.carrier == QuantFoldPlan::Carrier::GraphInput) {
      refs_[dq] = ref(act.value);
      return true;
    }
    if (auto done = identity_refs_.find(a->second); done != identity_refs_.end()) {
      refs_[dq] = done->second;
      return true;
    }
    std::string r = call("Identity", {}, {ref(act.value)}, abstract(act.value));
    attach_output_quant(r, act.params);
    bind(dq, r);
    identity_refs_[a->second] = refs_.at(dq);
    return true;
  }

  // Puts activation parameters on the primitive of the node that outputs `r` (an instance of its
  // own unless an identical one exists: primitives are shared between nodes).
  void attach_output_quant(const std::string& r, const LinearQuant& q) {
    auto it = node_index_.find(r);
    if (it == node_index_.end() || it->second.first != g_) fail("{}: internal: no node outputs '{}'", cur_->label(), r);
    auto* node = g_->mutable_node(it->second.second);
    const std::string old = node->op_type().substr(5);
    mind_ir::PrimitiveProto pp = proto_.primitives(prim_index_.at(old));
    pp.clear_name();
    for (const auto& a : pp.attribute())
      if (a.name() == "quant_param") fail_unsupported("{}: two quantized values from one primitive call", cur_->label());
    encode_output_quant_param(q, pp.add_attribute());
    std::string key = pp.SerializeAsString();
    auto c = prim_cache_.find(key);
    std::string pname;
    if (c != prim_cache_.end()) {
      pname = c->second;
    } else {
      pname = pp.op_type() + ":" + std::to_string(++counter_);
      pp.set_name(pname);
      prim_index_[pname] = proto_.primitives_size();
      *proto_.add_primitives() = pp;
      prim_cache_[key] = pname;
    }
    node->set_op_type("REF::" + pname);
    primitives_replaced_ = true;
  }

  // Primitive instances left without a node after attach_output_quant.
  void drop_unused_primitives() {
    std::set<std::string> used;
    auto scan = [&](const mind_ir::GraphProto& g) {
      for (const auto& n : g.node())
        if (n.op_type().rfind("REF::", 0) == 0) used.insert(n.op_type().substr(5));
    };
    scan(proto_.graph());
    for (const auto& f : proto_.functions()) scan(f);
    google::protobuf::RepeatedPtrField<mind_ir::PrimitiveProto> kept;
    for (auto& p : *proto_.mutable_primitives())
      if (used.count(p.name())) *kept.Add() = std::move(p);
    proto_.mutable_primitives()->Swap(&kept);
    prim_index_.clear();
    for (int k = 0; k < proto_.primitives_size(); ++k) prim_index_[proto_.primitives(k).name()] = k;
  }

  void generic(const ExportRule& rule) {
    const Node& n = *cur_;
    std::vector<std::string> ins;
    size_t last = n.inputs.size();
    while (last > 0 && n.inputs[last - 1].empty()) --last;
    for (size_t i = 0; i < last; ++i) ins.push_back(in(i));
    std::map<std::string, MsValue> attrs;
    for (const auto& [k, v] : n.attrs) {
      std::string name = k;
      for (const auto& [from, to] : rule.renames)
        if (from == k) name = to;
      if (v.type == AttrType::Graph || v.type == AttrType::Graphs)
        fail_unsupported("{}: attribute '{}' holds a subgraph; control flow is not supported in MindIR", n.label(), k);
      attrs[name] = value_from_attr(v);
    }
    if (n.outputs.size() == 1) {
      bind(n.outputs[0], call(rule.prim, attrs, ins, abstract(n.outputs[0])));
      return;
    }
    Abstract ta;
    ta.kind = Abstract::Kind::Tuple;
    for (const auto& o : n.outputs) ta.elems.push_back(o.empty() ? Abstract{} : abstract(o));
    std::string t = call(rule.prim, attrs, ins, ta);
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) bind(n.outputs[i], get_item(t, static_cast<int64_t>(i), ta.elems[i]));
  }

  void poison(const Node& n) {
    for (const auto& o : n.outputs)
      if (!o.empty()) refs_[o] = gname_ + ":unsupported:" + o;
  }

  void infer(const Node& n, const OpRegistry& reg, int opset) {
    const OpDef* def = reg.find(n.domain, n.op_type);
    if (!def || !def->infer) return;
    std::vector<const TypeInfo*> ts;
    std::vector<const Tensor*> cs;
    for (const auto& i : n.inputs) {
      ts.push_back(i.empty() ? nullptr : type(i));
      cs.push_back(i.empty() ? nullptr : constant(i));
    }
    for (const auto* t : ts)
      if (!t && false) return;
    try {
      InferContext ctx(n, *def, opset, ts, cs);
      def->infer(ctx);
      auto& outs = ctx.output_types();
      for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty() && outs[k].kind != TypeInfo::Kind::Unknown) {
          // a declared type wins, unless it lacks the shape that inference found
          auto [it, fresh] = types_.emplace(n.outputs[k], outs[k]);
          if (!fresh && !it->second.shape && outs[k].shape) it->second = outs[k];
        }
    } catch (const std::exception&) {
      // types stay unknown; the abstract then says "dynamic rank"
    }
  }

  const Model& m_;
  WriteOptions opts_;
  std::string gname_;
  mind_ir::GraphProto* g_ = nullptr;
  const Node* cur_ = nullptr;
  int64_t counter_ = 0;
  int chain_start_ = 0;
  std::map<std::string, std::string> refs_;
  std::map<std::string, TypeInfo> types_;
  std::map<std::string, const Tensor*> consts_;
  std::set<std::string> ir_constants_;
  std::set<std::string> shared_constants_;  // Constants written as main-graph parameters
  std::deque<Tensor> owned_;
  std::deque<Node> expanded_;  // nodes of expanded functions (SequenceMap), kept while writing
  std::vector<std::string> param_order_;
  std::set<std::string> params_seen_;
  std::vector<std::pair<mind_ir::TensorProto*, const Tensor*>> params_;
  std::map<std::string, std::string> const_cache_, prim_cache_;
  std::map<std::string, std::pair<const mind_ir::GraphProto*, int>> node_index_;  // node output -> (graph, index)
  std::string prefix_;  // name prefix of the graph being written
  struct Outer {  // the graph being written when a function graph was opened
    const Node* node;
    mind_ir::GraphProto* graph;
    std::string prefix;
    int chain_start;
    std::map<std::string, std::string> refs, consts;
  };
  std::vector<Outer> outer_;
  std::set<std::string> renamed_;
  std::vector<std::string> unsupported_;
  std::set<std::string> unfolded_;
  QuantFoldPlan plan_;
  std::set<std::string> folded_;          // weights written as quantized parameters
  std::set<std::string> quant_attached_;  // Producer carriers whose primitive got quant_param
  std::map<size_t, std::string> identity_refs_;  // Identity carriers written, by activation index
  std::map<std::string, const LinearQuant*> graph_input_quant_;  // graph input reference -> parameters
  std::map<std::string, int> prim_index_;  // primitive name -> index in proto_.primitives
  bool primitives_replaced_ = false;
};

// Writes the model; a second time when some folded weight's axis would not read back.
std::unique_ptr<Writer> run_writer(const Model& model, const WriteOptions& opts) {
  auto w = std::make_unique<Writer>(model, opts);
  w->run();
  std::set<std::string> bad = w->unreadable_weight_axes();
  if (bad.empty()) return w;
  w = std::make_unique<Writer>(model, opts, std::move(bad));
  w->run();
  return w;
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("{}: cannot write file", path);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp);
      fail("{}: write failed (disk full?)", path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail("{}: cannot move the written file into place", path);
  }
}


void put_varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes the model with inline weights without copying them: the ModelProto is serialized without
// its parameters, followed by a second `graph` (field 7) record holding only the parameters, whose
// raw_data bytes are written straight from the tensors. Protobuf merges repeated occurrences of an
// embedded message, so every parser reads the same ModelProto as if the parameters were inline in
// the first record; this only saves two copies of the weights (convert time of large models).
void write_inline_streamed(Writer& w, const std::string& path) {
  auto* g = w.proto_.mutable_graph();
  std::vector<std::string> metas;
  std::vector<const Tensor*> data;
  for (auto& [p, t] : w.params_) {
    metas.push_back(p->SerializeAsString());
    data.push_back(t);
  }
  g->clear_parameter();
  std::string head;
  if (!w.proto_.SerializeToString(&head)) fail("{}: model is too large to serialize", path);
  // sizes
  std::vector<uint64_t> tlen(metas.size());
  uint64_t glen = 0;
  for (size_t k = 0; k < metas.size(); ++k) {
    uint64_t n = data[k]->nbytes();
    tlen[k] = metas[k].size() + 1 + varint_size(n) + n;
    glen += 1 + varint_size(tlen[k]) + tlen[k];
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("{}: cannot write file", path);
    f.write(head.data(), static_cast<std::streamsize>(head.size()));
    if (!metas.empty()) {
      std::string hdr;
      hdr.push_back(0x3A);  // field 7 (graph), length-delimited
      put_varint(hdr, glen);
      f.write(hdr.data(), static_cast<std::streamsize>(hdr.size()));
      for (size_t k = 0; k < metas.size(); ++k) {
        std::string e;
        e.push_back(0x1A);  // GraphProto field 3 (parameter)
        put_varint(e, tlen[k]);
        e += metas[k];
        e.push_back(0x4A);  // TensorProto field 9 (raw_data)
        put_varint(e, data[k]->nbytes());
        f.write(e.data(), static_cast<std::streamsize>(e.size()));
        f.write(static_cast<const char*>(data[k]->raw()), static_cast<std::streamsize>(data[k]->nbytes()));
      }
    }
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp);
      fail("{}: write failed (disk full?)", path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail("{}: cannot move the written file into place", path);
  }
}

}  // namespace

std::string export_mindir_bytes(const Model& model, const WriteOptions& opts) {
  auto wp = run_writer(model, opts);
  Writer& w = *wp;
  w.fill_weights(false, "", nullptr);
  std::string bytes;
  if (!w.proto_.SerializeToString(&bytes))
    fail("model is too large for one MindIR protobuf (2 GiB limit); weights over 1 GiB are written split by save_mindir");
  return bytes;
}

std::string save_mindir(const Model& model, const std::string& path, const WriteOptions& opts) {
  auto wp = run_writer(model, opts);
  Writer& w = *wp;
  if (w.param_bytes() <= opts.split_threshold) {
    write_inline_streamed(w, path);
    return path;
  }
  // Split form: <prefix>_graph.mindir + <prefix>_variables/data_0.
  fs::path p(path);
  std::string stem = p.stem().string();
  fs::path dir = p.parent_path();
  std::string var_dir_name = stem + "_variables";
  fs::path graph_path = dir / (stem + "_graph.mindir");
  fs::path var_dir = dir / var_dir_name;
  std::string blob;
  w.fill_weights(true, var_dir_name + "/data_0", &blob);
  std::string bytes;
  if (!w.proto_.SerializeToString(&bytes)) fail("{}: graph is too large to serialize", path);
  fs::path tmp_dir = dir / (var_dir_name + ".tmp");
  std::error_code ec;
  fs::remove_all(tmp_dir, ec);
  fs::create_directories(tmp_dir, ec);
  if (ec) fail("{}: cannot create {}", path, tmp_dir.string());
  write_file_atomic((tmp_dir / "data_0").string(), blob);
  fs::remove_all(var_dir, ec);
  fs::rename(tmp_dir, var_dir, ec);
  if (ec) fail("{}: cannot move {} into place", path, var_dir.string());
  write_file_atomic(graph_path.string(), bytes);
  return graph_path.string();
}

std::set<std::string> mindir_unsupported_ops(const Model& model) {
  Writer w(model, WriteOptions{});
  w.run(true);
  return w.unsupported_ops_;
}

bool mindir_can_export_op(const std::string& domain, const std::string& op_type) {
  if (!domain.empty()) return find_export_rule(domain + "." + op_type) != nullptr;
  return op_type == "Constant" || find_export_rule(op_type) != nullptr;
}

}  // namespace ms::mindir
