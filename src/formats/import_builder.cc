#include "formats/import_builder.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include "ops/infer_graph.h"
#include "ops/op.h"

namespace ms::importer {

std::string GraphBuilder::unique_name(const std::string& base) {
  std::string name = base.empty() ? "v" : base;
  for (int k = 2; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

Node& GraphBuilder::add_node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                             std::map<std::string, Attribute> attrs, const std::string& node_name) {
  Node n;
  n.op_type = op;
  n.name = node_name.empty() ? (outputs.empty() ? op : outputs[0]) : node_name;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  g_.nodes.push_back(std::move(n));
  return g_.nodes.back();
}

std::string GraphBuilder::add(const std::string& op, std::vector<std::string> inputs, const std::string& hint,
                              std::map<std::string, Attribute> attrs) {
  std::string out = unique_name(hint);
  add_node(op, std::move(inputs), {out}, std::move(attrs));
  return out;
}

std::string GraphBuilder::constant(Tensor t, const std::string& hint) {
  std::string name = unique_name(hint);
  g_.initializers[name] = std::move(t);
  return name;
}

std::string GraphBuilder::int64s(const std::vector<int64_t>& v, const std::string& hint) {
  return constant(Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}), hint);
}

std::string GraphBuilder::transpose(const std::string& x, const std::vector<int64_t>& perm, const std::string& hint) {
  return add("Transpose", {x}, hint, {{"perm", Attribute::of_ints(perm)}});
}

std::vector<int64_t> channels_first_perm(int rank) {
  std::vector<int64_t> p{0, rank - 1};
  for (int k = 1; k < rank - 1; ++k) p.push_back(k);
  return p;
}

std::vector<int64_t> channels_last_perm(int rank) {
  std::vector<int64_t> p{0};
  for (int k = 2; k < rank; ++k) p.push_back(k);
  p.push_back(1);
  return p;
}

std::string GraphBuilder::to_channels_first(const std::string& x, int rank, const std::string& hint) {
  return transpose(x, channels_first_perm(rank), hint + "/to_nchw");
}

std::string GraphBuilder::to_channels_last(const std::string& x, int rank, const std::string& hint) {
  return transpose(x, channels_last_perm(rank), hint + "/to_nhwc");
}

Tensor transpose_tensor(const Tensor& t, const std::vector<int64_t>& perm) {
  int r = t.rank();
  MS_CHECK(static_cast<int>(perm.size()) == r, "transpose of a rank-{} tensor with a {}-entry permutation", r, perm.size());
  std::vector<bool> seen(r, false);
  for (int64_t a : perm) {
    MS_CHECK(a >= 0 && a < r && !seen[a], "transpose permutation entry {} is out of range or repeated", a);
    seen[a] = true;
  }
  Shape out_shape(r);
  for (int i = 0; i < r; ++i) out_shape[i] = t.dim(static_cast<int>(perm[i]));
  Tensor out(t.dtype(), out_shape);
  // Strides of the source, visited in the order of the output's axes.
  std::vector<int64_t> src_stride(r, 1);
  for (int i = r - 2; i >= 0; --i) src_stride[i] = src_stride[i + 1] * t.dim(i + 1);
  std::vector<int64_t> idx(r, 0);
  size_t es = dtype_size(t.dtype());
  bool strings = t.dtype() == DType::String;
  for (int64_t o = 0, n = out.numel(); o < n; ++o) {
    int64_t src = 0;
    for (int i = 0; i < r; ++i) src += idx[i] * src_stride[perm[i]];
    if (strings)
      out.data<std::string>()[o] = t.data<std::string>()[src];
    else
      std::memcpy(static_cast<char*>(out.raw()) + o * es, static_cast<const char*>(t.raw()) + src * es, es);
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[i] < out_shape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

void emit_strided_slice(GraphBuilder& b, const std::string& x, const StridedSlice& s, const std::string& out,
                        const std::string& hint) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const size_t L = s.begin.size();
  if (s.end.size() != L || s.strides.size() != L) fail("begin, end and strides differ in length ({}, {}, {})", L, s.end.size(), s.strides.size());
  auto bit = [&](int64_t mask, size_t i) { return (mask >> i) & 1; };
  int ellipsis = -1;
  for (size_t i = 0; i < L && ellipsis < 0; ++i)
    if (bit(s.ellipsis_mask, i)) ellipsis = static_cast<int>(i);
  std::vector<int64_t> starts, ends, axes, steps, squeeze_axes, unsqueeze_axes;
  // Entry i applied to input axis `in` (output position `out`); axes after an ellipsis count
  // from the end, so the input's rank is never needed.
  auto entry = [&](size_t i, int64_t in_axis, int64_t out_axis) {
    if (bit(s.new_axis_mask, i)) {
      unsqueeze_axes.push_back(out_axis);
      return;
    }
    if (bit(s.shrink_axis_mask, i)) {
      starts.push_back(s.begin[i]);
      ends.push_back(s.begin[i] == -1 ? kMax : s.begin[i] + 1);
      steps.push_back(1);
      axes.push_back(in_axis);
      squeeze_axes.push_back(in_axis);
      return;
    }
    int64_t step = s.strides[i];
    if (step == 0) fail("stride {} is zero", i);
    starts.push_back(bit(s.begin_mask, i) ? (step > 0 ? 0 : kMax) : s.begin[i]);
    ends.push_back(bit(s.end_mask, i) ? (step > 0 ? kMax : kMin) : s.end[i]);
    steps.push_back(step);
    axes.push_back(in_axis);
  };
  int64_t in_axis = 0, out_axis = 0;
  for (size_t i = 0; i < (ellipsis < 0 ? L : static_cast<size_t>(ellipsis)); ++i) {
    entry(i, in_axis, out_axis);
    if (!bit(s.new_axis_mask, i)) ++in_axis;
    if (!bit(s.shrink_axis_mask, i) || bit(s.new_axis_mask, i)) ++out_axis;
  }
  if (ellipsis >= 0) {
    in_axis = -1, out_axis = -1;
    for (size_t i = L; i-- > static_cast<size_t>(ellipsis) + 1;) {
      entry(i, in_axis, out_axis);
      if (!bit(s.new_axis_mask, i)) --in_axis;
      if (!bit(s.shrink_axis_mask, i) || bit(s.new_axis_mask, i)) --out_axis;
    }
  }
  std::string v = x;
  int steps_left = (!axes.empty()) + (!squeeze_axes.empty()) + (!unsqueeze_axes.empty());
  auto next = [&](const char* tag) { return --steps_left == 0 ? out : b.unique_name(hint + "/" + tag); };
  if (steps_left == 0) {
    b.add_node("Identity", {v}, {out}, {}, hint);
    return;
  }
  if (!axes.empty()) {
    std::string o = next("slice");
    b.add_node("Slice", {v, b.int64s(starts, hint + "/starts"), b.int64s(ends, hint + "/ends"),
                           b.int64s(axes, hint + "/axes"), b.int64s(steps, hint + "/steps")}, {o}, {}, hint);
    v = o;
  }
  if (!squeeze_axes.empty()) {
    std::string o = next("squeeze");
    b.add_node("Squeeze", {v, b.int64s(squeeze_axes, hint + "/squeeze_axes")}, {o});
    v = o;
  }
  if (!unsqueeze_axes.empty()) {
    b.add_node("Unsqueeze", {v, b.int64s(unsqueeze_axes, hint + "/new_axes")}, {next("unsqueeze")});
  }
}


void emit_tf_resize(GraphBuilder& b, const std::string& x_nchw, const std::string& size_hw, bool bilinear,
                    bool align_corners, bool half_pixel_centers, const std::string& out, const std::string& hint) {
  if (align_corners && half_pixel_centers) fail("align_corners and half_pixel_centers cannot both be set");
  std::map<std::string, Attribute> attrs;
  attrs["mode"] = Attribute::of_string(bilinear ? "linear" : "nearest");
  std::string coord = align_corners        ? "align_corners"
                      : half_pixel_centers ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn")
                                           : "asymmetric";
  attrs["coordinate_transformation_mode"] = Attribute::of_string(coord);
  if (!bilinear) attrs["nearest_mode"] = Attribute::of_string(align_corners ? "round_prefer_ceil" : "floor");
  // sizes = [N, C] of the input followed by the requested [H, W].
  std::string nc = b.add("Shape", {x_nchw}, hint + "/in_shape", {{"end", Attribute::of_int(2)}});
  std::string sizes = b.add("Concat", {nc, size_hw}, hint + "/sizes", {{"axis", Attribute::of_int(0)}});
  b.add_node("Resize", {x_nchw, "", "", sizes}, {out}, attrs, hint);
}


namespace {

std::vector<int64_t> perm_of(const Node& n) {
  const Attribute* a = n.attr("perm");
  return a ? a->ints : std::vector<int64_t>{};
}

bool undoes(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.empty() || first.size() != second.size()) return false;
  for (size_t i = 0; i < second.size(); ++i)
    if (second[i] < 0 || second[i] >= static_cast<int64_t>(first.size()) || first[second[i]] != static_cast<int64_t>(i))
      return false;
  return true;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& p) {
  std::vector<int64_t> inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
  return inv;
}

struct Uses {
  std::unordered_map<std::string, int> count;
  std::set<std::string> graph_outputs;
  explicit Uses(const Graph& g) {
    for (const auto& n : g.nodes)
      for (const auto& i : n.inputs) ++count[i];
    for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  }
  bool single_internal_use(const std::string& v) const {
    auto it = count.find(v);
    return it != count.end() && it->second == 1 && !graph_outputs.count(v);
  }
};

// Node k now writes a fresh value; a Transpose by `perm` after it restores its output's name.
void insert_transpose_after(Graph& g, GraphBuilder& b, size_t k, const std::vector<int64_t>& perm) {
  std::string out = g.nodes[k].outputs[0];
  g.nodes[k].outputs[0] = b.unique_name(out + "/pre_transpose");
  Node after;
  after.op_type = "Transpose";
  after.name = out + "/transpose";
  after.inputs = {g.nodes[k].outputs[0]};
  after.outputs = {out};
  after.attrs["perm"] = Attribute::of_ints(perm);
  g.nodes.insert(g.nodes.begin() + k + 1, std::move(after));
}

// E(Transpose(x, p), Transpose(y, p), consts) becomes Transpose(E(x, y, consts'), p), where
// consts' are the constants permuted back. Only for elementwise ops; every operand must be a
// single-use Transpose with the same permutation or a constant of no higher rank.
bool sink_one(Graph& g, GraphBuilder& b) {
  const OpRegistry& reg = OpRegistry::global();
  Uses uses(g);
  std::unordered_map<std::string, size_t> producer;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const auto& o : g.nodes[k].outputs) producer[o] = k;
  for (size_t e = 0; e < g.nodes.size(); ++e) {
    Node& el = g.nodes[e];
    const OpDef* def = reg.find(el.domain, el.op_type);
    if (!def || el.outputs.size() != 1 || el.inputs.empty()) continue;
    // Per-tensor (de)quantization is elementwise too: scalar scale and zero point.
    bool per_tensor_quant = (def->traits & kTraitQuantized) && el.inputs.size() > 1;
    for (size_t i = 1; i < el.inputs.size() && per_tensor_quant; ++i) {
      auto it = g.initializers.find(el.inputs[i]);
      per_tensor_quant = el.inputs[i].empty() || (it != g.initializers.end() && it->second.numel() == 1);
    }
    if (!(def->traits & kTraitElementwise) && !per_tensor_quant) continue;
    std::vector<int64_t> p;
    std::vector<size_t> transposes;
    bool ok = true;
    for (const auto& in : el.inputs) {
      if (in.empty()) continue;
      auto pi = producer.find(in);
      if (pi != producer.end()) {
        const Node& tr = g.nodes[pi->second];
        std::vector<int64_t> tp = tr.op_type == "Transpose" && tr.domain.empty() ? perm_of(tr) : std::vector<int64_t>{};
        if (tp.empty() || !uses.single_internal_use(in) || (!p.empty() && tp != p)) {
          ok = false;
          break;
        }
        p = tp;
        transposes.push_back(pi->second);
      } else if (!g.initializers.count(in)) {
        ok = false;  // a graph input
        break;
      }
    }
    if (!ok || transposes.empty()) continue;
    for (const auto& in : el.inputs)
      if (!in.empty() && !producer.count(in) && g.initializers.at(in).rank() > static_cast<int>(p.size())) ok = false;
    if (!ok) continue;
    for (auto& in : el.inputs) {
      if (in.empty()) continue;
      auto pi = producer.find(in);
      if (pi != producer.end()) {
        in = g.nodes[pi->second].inputs[0];
        continue;
      }
      const Tensor& c = g.initializers.at(in);
      if (c.numel() == 1) continue;  // scalars broadcast in any layout (and Clip wants them scalar)
      Shape full(p.size() - c.rank(), 1);
      full.insert(full.end(), c.shape().begin(), c.shape().end());
      in = b.constant(transpose_tensor(c.reshaped(full), inverse(p)), in + "/permuted");
    }
    insert_transpose_after(g, b, e, p);
    std::sort(transposes.begin(), transposes.end());
    for (size_t k = transposes.size(); k-- > 0;) g.nodes.erase(g.nodes.begin() + transposes[k]);
    return true;
  }
  return false;
}

// Moves the Transpose feeding node `k` (input 0, produced by node t) to after it. The source
// Transpose is removed unless something else reads it.
void move_transpose_after(Graph& g, GraphBuilder& b, size_t k, size_t t, bool keep_source) {
  g.nodes[k].inputs[0] = g.nodes[t].inputs[0];
  insert_transpose_after(g, b, k, perm_of(g.nodes[t]));
  if (!keep_source) g.nodes.erase(g.nodes.begin() + t);
}

// Pad(Transpose(x, p), pads) becomes Transpose(Pad(x, pads'), p) with the pads permuted back
// (TFLite pads channels this way in residual blocks, between two convolutions).
bool sink_through_pad(Graph& g, GraphBuilder& b) {
  Uses uses(g);
  std::unordered_map<std::string, size_t> producer;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const auto& o : g.nodes[k].outputs) producer[o] = k;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.op_type != "Pad" || !n.domain.empty() || n.inputs.size() < 2 || (n.inputs.size() > 3 && !n.inputs[3].empty()))
      continue;
    auto pi = producer.find(n.inputs[0]);
    auto pads = g.initializers.find(n.inputs[1]);
    if (pi == producer.end() || pads == g.initializers.end()) continue;
    const Node& tr = g.nodes[pi->second];
    std::vector<int64_t> p = tr.op_type == "Transpose" && tr.domain.empty() ? perm_of(tr) : std::vector<int64_t>{};
    std::vector<int64_t> v = pads->second.to_int64_vector();
    const size_t r = p.size();
    if (r == 0 || v.size() != 2 * r) continue;
    // A Transpose that others read too stays; moving a copy past the Pad still pays when the
    // Pad's only reader undoes it (the usual explicit padding in front of a convolution).
    bool shared = !uses.single_internal_use(n.inputs[0]);
    if (shared) {
      int readers = 0;
      bool undone = false;
      for (const auto& m : g.nodes)
        for (const auto& in : m.inputs)
          if (in == n.outputs[0]) {
            ++readers;
            undone = m.op_type == "Transpose" && undoes(p, perm_of(m));
          }
      if (readers != 1 || !undone || uses.graph_outputs.count(n.outputs[0])) continue;
    }
    // Axis j of x is axis inv[j] of the transposed value.
    std::vector<int64_t> inv = inverse(p), moved(2 * r);
    for (size_t j = 0; j < r; ++j) {
      moved[j] = v[inv[j]];
      moved[r + j] = v[r + inv[j]];
    }
    g.nodes[k].inputs[1] = b.int64s(moved, n.inputs[1] + "/permuted");
    move_transpose_after(g, b, k, pi->second, shared);
    return true;
  }
  return false;
}

// Reduce(Transpose(x, p), axes, keepdims=1) becomes Transpose(Reduce(x, p[axes]), p): keeping the
// reduced axes keeps the layout (squeeze-and-excitation blocks average an image this way).
bool sink_through_reduce(Graph& g, GraphBuilder& b) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const auto& o : g.nodes[k].outputs) producer[o] = k;
  Uses uses(g);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.op_type.rfind("Reduce", 0) != 0 || !n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) continue;
    const Attribute* keep = n.attr("keepdims");
    if (keep && keep->i == 0) continue;
    auto pi = producer.find(n.inputs[0]);
    if (pi == producer.end()) continue;
    const Node& tr = g.nodes[pi->second];
    std::vector<int64_t> p = tr.op_type == "Transpose" && tr.domain.empty() ? perm_of(tr) : std::vector<int64_t>{};
    if (p.empty()) continue;
    const int64_t r = static_cast<int64_t>(p.size());
    auto remap = [&](std::vector<int64_t> axes) {
      for (auto& a : axes) a = p[a < 0 ? a + r : a];
      return axes;
    };
    auto in_range = [&](const std::vector<int64_t>& axes) {
      return std::all_of(axes.begin(), axes.end(), [&](int64_t a) { return a >= -r && a < r; });
    };
    bool shared = !uses.single_internal_use(n.inputs[0]);
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      auto it = g.initializers.find(n.inputs[1]);
      if (it == g.initializers.end() || !in_range(it->second.to_int64_vector())) continue;
      g.nodes[k].inputs[1] = b.int64s(remap(it->second.to_int64_vector()), n.inputs[1] + "/permuted");
    } else if (const Attribute* axes = n.attr("axes")) {
      if (!in_range(axes->ints)) continue;
      g.nodes[k].attrs["axes"] = Attribute::of_ints(remap(axes->ints));
    }
    move_transpose_after(g, b, k, pi->second, shared);
    return true;
  }
  return false;
}

// Transpose(Transpose(x, p), q) with q undoing p: consumers read x instead.
size_t cancel_pairs(Graph& g) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const auto& o : g.nodes[k].outputs) producer[o] = k;
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  std::unordered_map<std::string, std::string> replace;
  size_t cancelled = 0;
  for (auto& n : g.nodes) {
    for (auto& in : n.inputs) {
      auto r = replace.find(in);
      if (r != replace.end()) in = r->second;
    }
    if (n.op_type != "Transpose" || !n.domain.empty() || n.inputs.size() != 1) continue;
    auto pi = producer.find(n.inputs[0]);
    if (pi == producer.end()) continue;
    const Node& first = g.nodes[pi->second];
    if (first.op_type != "Transpose" || !first.domain.empty() || !undoes(perm_of(first), perm_of(n))) continue;
    ++cancelled;
    if (graph_outputs.count(n.outputs[0])) {
      // The graph output keeps its name: the second Transpose becomes a copy.
      n.op_type = "Identity";
      n.attrs.clear();
      n.inputs = {first.inputs[0]};
    } else {
      replace[n.outputs[0]] = first.inputs[0];
      n.op_type = "";  // marked for removal
    }
  }
  if (!cancelled) return 0;
  std::vector<Node> kept;
  for (auto& n : g.nodes)
    if (!n.op_type.empty()) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
  // The first Transposes of cancelled pairs are dead now unless something else reads them.
  std::unordered_map<std::string, int> used;
  for (const auto& n : g.nodes)
    for (const auto& i : n.inputs) ++used[i];
  for (const auto& o : g.outputs) ++used[o.name];
  std::vector<Node> live;
  for (auto& n : g.nodes)
    if (!(n.op_type == "Transpose" && n.outputs.size() == 1 && !used.count(n.outputs[0]))) live.push_back(std::move(n));
  g.nodes = std::move(live);
  return cancelled;
}

}  // namespace

size_t cancel_layout_transposes(Graph& g) {
  GraphBuilder b(g);
  for (const auto& v : g.inputs) b.reserve(v.name);
  for (const auto& [name, t] : g.initializers) b.reserve(name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) b.reserve(o);
  size_t removed = 0;
  // Each sink moves one Transpose one op forward in a DAG, so this ends.
  for (;;) {
    removed += cancel_pairs(g);
    if (!sink_one(g, b) && !sink_through_pad(g, b) && !sink_through_reduce(g, b)) break;
  }
  removed += cancel_pairs(g);
  // Constants that the sinking replaced by permuted copies.
  std::set<std::string> used;
  for (const auto& n : g.nodes)
    for (const auto& i : n.inputs) used.insert(i);
  for (const auto& o : g.outputs) used.insert(o.name);
  for (auto it = g.initializers.begin(); it != g.initializers.end();)
    it = used.count(it->first) ? std::next(it) : g.initializers.erase(it);
  return removed;
}

void finish_imported_graph(Model& m, bool keep_layout) {
  if (!keep_layout) cancel_layout_transposes(m.graph);
  GraphInference gi = infer_graph(m);
  for (auto& o : m.graph.outputs)
    if (const TypeInfo* t = gi.type_of(m.graph, o.name)) o.type = *t;
}

size_t inputs_to_channels_first(Model& m) {
  Graph& g = m.graph;
  std::set<std::string> used;
  for (const auto& v : g.inputs) used.insert(v.name);
  for (const auto& [name, t] : g.initializers) used.insert(name);
  for (const auto& n : g.nodes) used.insert(n.outputs.begin(), n.outputs.end());
  std::vector<Node> front;
  size_t changed = 0;
  for (auto& in : g.inputs) {
    if (!in.type.shape || in.type.shape->size() != 4 || g.initializers.count(in.name)) continue;
    std::string nhwc = in.name + "_nhwc";
    for (int k = 2; used.count(nhwc); ++k) nhwc = in.name + "_nhwc_" + std::to_string(k);
    used.insert(nhwc);
    for (auto& n : g.nodes)
      for (auto& x : n.inputs)
        if (x == in.name) x = nhwc;
    for (auto& o : g.outputs)
      if (o.name == in.name) o.name = nhwc;  // not expected: importers put an Identity there
    const auto d = *in.type.shape;
    in.type.shape = std::vector<Dim>{d[0], d[3], d[1], d[2]};
    Node t;
    t.op_type = "Transpose";
    t.name = nhwc;
    t.inputs = {in.name};
    t.outputs = {nhwc};
    t.attrs["perm"] = Attribute::of_ints(channels_last_perm(4));
    front.push_back(std::move(t));
    ++changed;
  }
  g.nodes.insert(g.nodes.begin(), front.begin(), front.end());
  if (changed) finish_imported_graph(m);
  return changed;
}

}  // namespace ms::importer
