// Half-precision lowering, as ONNX Runtime's CPU provider inserts casts around float16 nodes it has
// no kernel for: no fast kernel here computes in float16 or bfloat16, so a half-precision model
// would otherwise run entirely on the reference kernels. Every float16/bfloat16 value inside the
// graph becomes float32 (weights widened once, Cast/EyeLike/Random* `to`/`dtype` attributes
// retargeted), and the graph's interface keeps its declared types through one Cast per half input
// and output. The Casts between half and float that the model itself holds become
// Cast(to = float32) of a float32 value, which eliminate_noops removes.
//   y = f_half(x)  ->  y = Cast_half(f_float(Cast_float(x)))   (f evaluated in float32)
// The result is at least as accurate as the half-precision graph; it is not bit-identical to it.
#include <set>

#include "passes/basic_passes.h"
#include "passes/cast_nodes.h"

namespace ms::passes {
namespace {

bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

bool widen_tensor(Tensor& t) {
  if (!is_half(t.dtype())) return false;
  Tensor wide(DType::Float32, t.shape());
  float* dst = wide.data<float>();
  if (t.dtype() == DType::Float16) {
    const float16_t* src = t.data<float16_t>();
    for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<float>(src[i]);
  } else {
    const bfloat16_t* src = t.data<bfloat16_t>();
    for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<float>(src[i]);
  }
  t = std::move(wide);
  return true;
}

bool widen_type(TypeInfo& t) {
  bool changed = false;
  if (is_half(t.dtype)) {
    t.dtype = DType::Float32;
    changed = true;
  }
  if (t.elem) changed = widen_type(*t.elem) || changed;
  return changed;
}

// Attributes that name an output dtype (Cast.to; EyeLike, RandomNormal, ..., dtype) or hold a
// tensor (Constant.value, ConstantOfShape.value).
size_t widen_node(Node& n) {
  size_t changed = 0;
  for (auto& [key, a] : n.attrs) {
    if (a.type == AttrType::Int && (key == "to" || key == "dtype") && is_half(static_cast<DType>(a.i))) {
      a.i = static_cast<int64_t>(DType::Float32);
      ++changed;
    }
    if (a.type == AttrType::Tensor && widen_tensor(a.t)) ++changed;
    for (auto& t : a.tensors) changed += widen_tensor(t);
  }
  return changed;
}

// Everything in `g` except the main graph's interface, which the caller handles.
size_t widen_inside(Graph& g, bool is_main, const std::set<std::string>& interface) {
  size_t changed = 0;
  for (auto& [name, t] : g.initializers)
    if (!(is_main && interface.count(name))) changed += widen_tensor(t);
  for (auto& n : g.nodes) changed += widen_node(n);
  for (auto& v : g.value_info) changed += widen_type(v.type);
  if (!is_main) {
    for (auto& v : g.inputs) changed += widen_type(v.type);
    for (auto& v : g.outputs) changed += widen_type(v.type);
  }
  return changed;
}

void rename_uses(Model& m, const std::string& from, const std::string& to) {
  for_each_graph(m.graph, [&](Graph& g) {
    for (auto& n : g.nodes)
      for (auto& in : n.inputs)
        if (in == from) in = to;
  });
}

}  // namespace

size_t lower_half_precision(Model& m) {
  Graph& g = m.graph;
  std::set<std::string> interface, taken;
  for (const auto& v : g.inputs) interface.insert(v.name);
  for (const auto& v : g.outputs) interface.insert(v.name);
  for_each_graph(g, [&](const Graph& sg) {
    for (const auto& [k, t] : sg.initializers) taken.insert(k);
    for (const auto& v : sg.inputs) taken.insert(v.name);
    for (const auto& n : sg.nodes) {
      taken.insert(n.outputs.begin(), n.outputs.end());
      taken.insert(n.name);
    }
  });
  size_t changed = 0;
  for_each_graph(g, [&](Graph& sg) { changed += widen_inside(sg, &sg == &g, interface); });

  std::vector<Node> front, back;
  for (const auto& v : g.inputs) {
    if (!is_half(v.type.dtype) || v.type.kind != TypeInfo::Kind::Tensor) continue;
    const std::string wide = fresh_name(v.name + "_float32", taken);
    rename_uses(m, v.name, wide);
    front.push_back(cast_node(fresh_name(v.name + "_to_float32", taken), v.name, wide, DType::Float32));
  }
  for (const auto& v : g.outputs) {
    if (!is_half(v.type.dtype) || v.type.kind != TypeInfo::Kind::Tensor) continue;
    Node* producer = nullptr;
    for (auto& n : g.nodes)
      for (auto& o : n.outputs)
        if (o == v.name) producer = &n;
    if (!producer) continue;  // a graph input or a (kept) initializer passed straight through
    const std::string wide = fresh_name(v.name + "_float32", taken);
    rename_uses(m, v.name, wide);
    for (auto& o : producer->outputs)
      if (o == v.name) o = wide;
    back.push_back(cast_node(fresh_name(v.name + "_to_" + std::string(dtype_name(v.type.dtype)), taken), wide,
                             v.name, v.type.dtype));
  }
  changed += front.size() + back.size();
  g.nodes.insert(g.nodes.begin(), front.begin(), front.end());
  g.nodes.insert(g.nodes.end(), back.begin(), back.end());
  return changed;
}

}  // namespace ms::passes
