#include "formats/tf/tf_importer.h"

#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "formats/tf/tf_context.h"
#include "formats/tf/tf_tensor.h"
#include "ops/infer_graph.h"

namespace ms::tf_format {

namespace {

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_nn_converters(t);
    add_math_converters(t);
    add_array_converters(t);
    return t;
  }();
  return table;
}

// "node:k" -> (node, k); "node" -> (node, 0). Control inputs ("^node") are filtered out earlier.
std::pair<std::string, int> split_tensor_name(const std::string& s) {
  auto colon = s.rfind(':');
  if (colon != std::string::npos && colon + 1 < s.size()) {
    bool digits = true;
    for (size_t i = colon + 1; i < s.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(s[i]));
    if (digits) return {s.substr(0, colon), std::stoi(s.substr(colon + 1))};
  }
  return {s, 0};
}

std::vector<std::string> data_inputs(const ms_tf::NodeDef& n) {
  std::vector<std::string> out;
  for (const auto& i : n.input())
    if (i.empty() || i[0] != '^') out.push_back(i);
  return out;
}

bool is_graph_leaf_op(const std::string& op) {
  return op == "Const" || op == "NoOp" || op == "Placeholder" || op == "Assert" || op == "PlaceholderWithDefault";
}

// Whether a node's value traces back to Const nodes only (through its data inputs); iterative, and a
// cycle (control-flow loop) counts as not constant.
bool const_only(const ms_tf::NodeDef& root, const std::unordered_map<std::string, const ms_tf::NodeDef*>& by_name) {
  std::unordered_map<std::string, int> state;  // 1 = on the stack, 2 = const-only, 3 = not
  std::vector<const ms_tf::NodeDef*> stack{&root};
  while (!stack.empty()) {
    const ms_tf::NodeDef* n = stack.back();
    int& s = state[n->name()];
    if (s >= 2) {
      stack.pop_back();
      continue;
    }
    auto ins = data_inputs(*n);
    if (n->op() == "Const") {
      s = 2;
    } else if (ins.empty()) {
      s = 3;  // Placeholder, random sources, variables: not constants
    } else {
      s = 1;
      bool pending = false, all_const = true;
      for (const auto& i : ins) {
        const ms_tf::NodeDef* src = by_name.at(split_tensor_name(i).first);
        int t = state[src->name()];
        if (t == 0) {
          stack.push_back(src);
          pending = true;
        } else if (t != 2) {
          all_const = false;  // not constant, or on the stack (a cycle)
        }
      }
      if (pending && all_const) continue;
      s = all_const ? 2 : 3;
    }
    stack.pop_back();
  }
  return state[root.name()] == 2;
}

TypeInfo placeholder_type(const TfContext& ctx, const ms_tf::NodeDef& n) {
  DType dt = ctx.attr_dtype(n, "dtype", DType::Float32);
  auto it = n.attr().find("shape");
  if (it == n.attr().end() || !it->second.has_shape() || it->second.shape().unknown_rank())
    return TypeInfo::tensor_unknown_shape(dt);
  std::vector<Dim> dims;
  for (const auto& d : it->second.shape().dim()) dims.push_back(d.size() >= 0 ? Dim::fixed(d.size()) : Dim{});
  return TypeInfo::tensor(dt, dims);
}

}  // namespace

// --- TfContext ----------------------------------------------------------------------------------

size_t TfContext::num_inputs(const ms_tf::NodeDef& n) const { return data_inputs(n).size(); }

std::string TfContext::input(const ms_tf::NodeDef& n, size_t i) const {
  auto ins = data_inputs(n);
  if (i >= ins.size()) fail("has {} inputs, input {} is required", ins.size(), i);
  return resolve(ins[i]);
}

const Tensor* TfContext::constant_input(const ms_tf::NodeDef& n, size_t i) const {
  auto it = model_.graph.initializers.find(input(n, i));
  return it == model_.graph.initializers.end() ? nullptr : &it->second;
}

const Tensor& TfContext::require_constant(const ms_tf::NodeDef& n, size_t i, const char* what) const {
  const Tensor* t = constant_input(n, i);
  if (!t) fail_unsupported("its {} (input {}) must be a constant", what, i);
  return *t;
}

std::vector<int64_t> TfContext::constant_ints(const ms_tf::NodeDef& n, size_t i, const char* what) const {
  return require_constant(n, i, what).to_int64_vector();
}

std::string TfContext::output_name(const ms_tf::NodeDef& n, int k) {
  auto& outs = outputs_[n.name()];
  if (static_cast<int>(outs.size()) <= k) outs.resize(k + 1);
  if (outs[k].empty()) outs[k] = k == 0 ? n.name() : b.unique_name(n.name() + "_" + std::to_string(k));
  return outs[k];
}

void TfContext::alias_output(const ms_tf::NodeDef& n, int k, const std::string& value) {
  auto& outs = outputs_[n.name()];
  if (static_cast<int>(outs.size()) <= k) outs.resize(k + 1);
  outs[k] = value;
}

std::string TfContext::resolve(const std::string& tf_name) const {
  auto [node, k] = split_tensor_name(tf_name);
  auto it = outputs_.find(node);
  if (it == outputs_.end() || k >= static_cast<int>(it->second.size()) || it->second[k].empty())
    fail("input '{}' is not available: node '{}' defines no output {} here", tf_name, node, k);
  return it->second[k];
}

int TfContext::outputs_of(const std::string& node) const {
  auto it = outputs_.find(node);
  return it == outputs_.end() ? 0 : static_cast<int>(it->second.size());
}

bool TfContext::has_attr(const ms_tf::NodeDef& n, const char* key) const { return n.attr().count(key) > 0; }

int64_t TfContext::attr_int(const ms_tf::NodeDef& n, const char* key, int64_t def) const {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? def : it->second.i();
}

float TfContext::attr_float(const ms_tf::NodeDef& n, const char* key, float def) const {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? def : it->second.f();
}

bool TfContext::attr_bool(const ms_tf::NodeDef& n, const char* key, bool def) const {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? def : it->second.b();
}

std::string TfContext::attr_string(const ms_tf::NodeDef& n, const char* key, const std::string& def) const {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? def : it->second.s();
}

std::vector<int64_t> TfContext::attr_ints(const ms_tf::NodeDef& n, const char* key) const {
  auto it = n.attr().find(key);
  if (it == n.attr().end()) return {};
  return {it->second.list().i().begin(), it->second.list().i().end()};
}

DType TfContext::attr_dtype(const ms_tf::NodeDef& n, const char* key, DType def) const {
  auto it = n.attr().find(key);
  if (it == n.attr().end()) return def;
  DType dt = dtype_from_tf(it->second.type());
  if (dt == DType::Undefined) fail_unsupported("attribute {} has TensorFlow type {} with no equivalent", key, ms_tf::DataType_Name(it->second.type()));
  return dt;
}

bool TfContext::channels_first(const ms_tf::NodeDef& n) const {
  std::string f = attr_string(n, "data_format", "NHWC");
  return f == "NCHW" || f == "NCDHW" || f == "NCW";
}

int TfContext::rank_of(const std::string& value) const {
  auto d = dims_of(value);
  return d.empty() && !model_.graph.initializers.count(value) ? -1 : static_cast<int>(d.size());
}

std::vector<int64_t> TfContext::dims_of(const std::string& value) const {
  auto it = model_.graph.initializers.find(value);
  if (it != model_.graph.initializers.end()) return it->second.shape();
  GraphInference gi = infer_graph(model_);
  const TypeInfo* t = gi.type_of(model_.graph, value);
  if (!t || t->kind != TypeInfo::Kind::Tensor || !t->shape) return {};
  std::vector<int64_t> dims;
  for (const auto& d : *t->shape) dims.push_back(d.is_static() ? d.value : -1);
  return dims;
}

// --- import ---------------------------------------------------------------------------------------

std::vector<std::string> supported_tf_ops() {
  std::vector<std::string> ops{"Const", "Placeholder", "PlaceholderWithDefault", "NoOp"};
  for (const auto& [k, v] : converters()) ops.push_back(k);
  return ops;
}

Model import_graphdef(const ms_tf::GraphDef& gd, const std::string& source_path, const ImportOptions& opts) {
  Model m;
  m.opsets[""] = 17;
  m.producer_name = "tensorflow";
  m.source_path = source_path;
  m.graph.name = "tf_graph";
  TfContext ctx(m);

  std::unordered_map<std::string, const ms_tf::NodeDef*> by_name;
  std::set<std::string> consumed;
  for (const auto& n : gd.node()) {
    if (n.name().empty()) fail("{}: a node has no name", source_path);
    if (!by_name.emplace(n.name(), &n).second) fail("{}: two nodes are named '{}'", source_path, n.name());
    ctx.b.reserve(n.name());
  }
  for (const auto& n : gd.node())
    for (const auto& raw : n.input()) {
      std::string in = !raw.empty() && raw[0] == '^' ? raw.substr(1) : raw;
      auto [src, k] = split_tensor_name(in);
      if (!by_name.count(src)) fail("{}: node '{}' ({}) reads '{}', which no node defines", source_path, n.name(), n.op(), raw);
      if (raw.empty() || raw[0] != '^') consumed.insert(src);
    }

  // The requested outputs as (node, output index); defaults are resolved after conversion.
  std::vector<std::pair<std::string, int>> wanted;
  for (const auto& name : opts.output_names) {
    auto [node, k] = split_tensor_name(name);
    if (!by_name.count(node)) fail("{}: --outputNames '{}' is not a node of the graph", source_path, name);
    wanted.push_back({node, k});
  }
  std::vector<std::string> roots;
  if (wanted.empty()) {
    // The default outputs: nodes nothing reads, except those computed from constants alone (a
    // frozen variable's `global_step/read` Identity, a folded shape), which depend on no input and
    // are leftovers of training, not results.
    for (const auto& n : gd.node())
      if (!consumed.count(n.name()) && !is_graph_leaf_op(n.op()) && !const_only(n, by_name)) roots.push_back(n.name());
    if (roots.empty())
      fail("{}: the graph has no output (every node is consumed, constant or computed from constants only); "
           "name the outputs with --outputNames", source_path);
  } else {
    for (const auto& [node, k] : wanted) roots.push_back(node);
  }

  // Depth-first post-order over data inputs from the roots: the nodes needed, in a valid order.
  std::vector<const ms_tf::NodeDef*> order;
  std::unordered_map<std::string, int> state;  // 1 = on the stack, 2 = done
  for (const auto& root : roots) {
    std::vector<std::pair<const ms_tf::NodeDef*, size_t>> stack{{by_name.at(root), 0}};
    if (state[root]) continue;
    state[root] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      auto ins = data_inputs(*node);
      if (next < ins.size()) {
        std::string src = split_tensor_name(ins[next++]).first;
        int& s = state[src];
        if (s == 1)
          fail_unsupported("{}: node '{}' ({}) is part of a cycle (TensorFlow control-flow loops are not supported)",
                           source_path, src, by_name.at(src)->op());
        if (s == 0) {
          s = 1;
          stack.push_back({by_name.at(src), 0});
        }
        continue;
      }
      state[node->name()] = 2;
      order.push_back(node);
      stack.pop_back();
    }
  }

  const ConverterTable& table = converters();
  std::map<std::string, std::vector<std::string>> unsupported;
  for (const auto* n : order)
    if (!is_graph_leaf_op(n->op()) && !table.count(n->op())) unsupported[n->op()].push_back(n->name());
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& [op, nodes] : unsupported)
      list += fmt::format("\n  {} ({} node{}: {}{})", op, nodes.size(), nodes.size() > 1 ? "s" : "", nodes[0],
                          nodes.size() > 1 ? ", ..." : "");
    fail_unsupported("{}: {} TensorFlow operator type{} not supported:{}", source_path, unsupported.size(),
                     unsupported.size() > 1 ? "s are" : " is", list);
  }

  for (const auto* n : order) {
    try {
      if (n->op() == "Placeholder") {
        m.graph.inputs.push_back({n->name(), placeholder_type(ctx, *n)});
        ctx.alias_output(*n, 0, n->name());
      } else if (n->op() == "Const") {
        auto it = n->attr().find("value");
        if (it == n->attr().end() || !it->second.has_tensor()) fail("has no 'value' tensor");
        m.graph.initializers[n->name()] = tensor_from_proto(it->second.tensor(), n->name());
        ctx.alias_output(*n, 0, n->name());
      } else if (n->op() == "PlaceholderWithDefault") {
        ctx.alias_output(*n, 0, ctx.input(*n, 0));
      } else if (n->op() == "NoOp" || n->op() == "Assert") {
        // control-only nodes define no values
      } else {
        table.at(n->op())(ctx, *n);
      }
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: node '{}' ({}): {}", source_path, n->name(), n->op(), e.what()));
    }
  }

  if (wanted.empty())
    for (const auto& root : roots)
      for (int k = 0; k < ctx.outputs_of(root); ++k) wanted.push_back({root, k});
  std::set<std::string> defined, inputs_and_consts;
  for (const auto& v : m.graph.inputs) inputs_and_consts.insert(v.name);
  for (const auto& [name, t] : m.graph.initializers) inputs_and_consts.insert(name);
  for (const auto& gn : m.graph.nodes) defined.insert(gn.outputs.begin(), gn.outputs.end());
  for (const auto& [node, k] : wanted) {
    std::string tf_name = k == 0 ? node : node + ":" + std::to_string(k);
    std::string value;
    try {
      value = ctx.resolve(tf_name);
    } catch (const Error& e) {
      fail("{}: output '{}': {}", source_path, tf_name, e.what());
    }
    // Outputs carry TensorFlow's node name; pass-through ops, inputs and constants get a copy.
    std::string name = value;
    bool node_name_free = k == 0 && !defined.count(node) && !inputs_and_consts.count(node);
    if (!defined.count(value) || inputs_and_consts.count(value) || node_name_free) {
      name = node_name_free ? node : ctx.b.unique_name(node + "_out");
      ctx.b.add_node("Identity", {value}, {name});
      defined.insert(name);
    }
    m.graph.outputs.push_back({name, {}});
  }

  importer::finish_imported_graph(m, opts.keep_layout);
  return m;
}

Model load_tf(const std::string& path, const ImportOptions& opts) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot open file", path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string bytes = ss.str();
  ms_tf::GraphDef gd;
  if (bytes.empty() || !gd.ParseFromString(bytes) || gd.node_size() == 0)
    fail("{}: not a TensorFlow GraphDef (frozen .pb): it does not parse or holds no nodes", path);
  return import_graphdef(gd, path, opts);
}

}  // namespace ms::tf_format
