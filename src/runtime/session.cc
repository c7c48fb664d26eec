#include "runtime/session.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <unordered_map>

#include "ops/infer_graph.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/memory/activation_arena.h"
#include "runtime/quantized_graph.h"

namespace ms {

// Per graph: the op definition of each node, and the values each node releases when it is done.
struct Session::GraphPlan {
  std::vector<const OpDef*> defs;
  std::vector<std::vector<std::string>> release_after;  // per node: local names whose last use it was
  std::vector<std::unique_ptr<rt::FastKernel>> fast;    // per node: the selected fast kernel or null
  std::set<std::string> blocked;                        // values in the channel-blocked layout
  // The graph's initializers as values, made once: a run's scope looks them up here instead of
  // copying them in (an If/Loop body's scope is made on every run of the body).
  std::unordered_map<std::string, Value> initializers;
  // Main graph: the bytes of every initializer and tensor attribute of the model (bodies included),
  // sorted by start, so that an output viewing them is handed to the caller as its own copy.
  std::vector<std::pair<const char*, const char*>> model_bytes;
};

namespace {

// Names a graph reads from its enclosing scopes (used by a node that owns it as a subgraph).
void collect_free_names(const Graph& g, std::set<std::string>& out) {
  std::set<std::string> local;
  for (const auto& v : g.inputs) local.insert(v.name);
  for (const auto& [n, t] : g.initializers) local.insert(n);
  for (const auto& node : g.nodes) {
    for (const auto& in : node.inputs)
      if (!in.empty() && !local.count(in)) out.insert(in);
    for (const auto& [k, a] : node.attrs) {
      std::set<std::string> inner;
      if (a.g) collect_free_names(*a.g, inner);
      for (const auto& sg : a.graphs) collect_free_names(*sg, inner);
      for (const auto& n : inner)
        if (!local.count(n)) out.insert(n);
    }
    for (const auto& o : node.outputs) local.insert(o);
  }
  for (const auto& o : g.outputs)
    if (!local.count(o.name)) out.insert(o.name);
}

std::vector<std::string> node_reads(const Node& node) {
  std::set<std::string> names;
  for (const auto& in : node.inputs)
    if (!in.empty()) names.insert(in);
  for (const auto& [k, a] : node.attrs) {
    if (a.g) collect_free_names(*a.g, names);
    for (const auto& sg : a.graphs) collect_free_names(*sg, names);
  }
  return {names.begin(), names.end()};
}

struct UnknownOps {
  std::map<std::string, std::vector<std::string>> by_type;  // op -> node names
};

void find_unknown_ops(const Graph& g, UnknownOps& u) {
  const auto& reg = OpRegistry::global();
  for (const auto& n : g.nodes) {
    if (!reg.find(n.domain, n.op_type)) {
      std::string type = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
      u.by_type[type].push_back(n.name.empty() ? "#" + (n.outputs.empty() ? std::string("?") : n.outputs[0]) : n.name);
    }
    for (const auto& [k, a] : n.attrs) {
      if (a.g) find_unknown_ops(*a.g, u);
      for (const auto& sg : a.graphs) find_unknown_ops(*sg, u);
    }
  }
}

// A chain of scopes: a subgraph sees its own values first, then its parents'.
// Values set in a scope (graph inputs, node outputs) hide its graph's initializers of the same name.
class Scope {
 public:
  Scope(const Scope* parent, const std::unordered_map<std::string, Value>* initializers, size_t expected_values)
      : parent_(parent), initializers_(initializers) {
    values_.reserve(expected_values);
  }
  const Value* find(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent_) {
      auto it = s->values_.find(n);
      if (it != s->values_.end()) return &it->second;
      if (s->initializers_) {
        auto init = s->initializers_->find(n);
        if (init != s->initializers_->end()) return &init->second;
      }
    }
    return nullptr;
  }
  void set(const std::string& n, Value v) { values_[n] = std::move(v); }
  void erase(const std::string& n) { values_.erase(n); }

 private:
  const Scope* parent_;
  const std::unordered_map<std::string, Value>* initializers_;
  std::unordered_map<std::string, Value> values_;
};

using ByteRanges = std::vector<std::pair<const char*, const char*>>;

// The bytes `t` holds (at least one, so that an empty tensor's address still counts).
void add_range(const Tensor& t, ByteRanges& out) {
  if (!t.defined() || !t.raw()) return;
  const char* b = static_cast<const char*>(t.raw());
  out.push_back({b, b + std::max<size_t>(t.nbytes(), 1)});
}

void collect_model_bytes(const Graph& g, ByteRanges& out) {
  auto add = [&](const Tensor& t) { add_range(t, out); };
  for (const auto& [n, t] : g.initializers) add(t);
  for (const auto& node : g.nodes)
    for (const auto& [k, a] : node.attrs) {
      add(a.t);
      for (const auto& t : a.tensors) add(t);
      if (a.g) collect_model_bytes(*a.g, out);
      for (const auto& sg : a.graphs) collect_model_bytes(*sg, out);
    }
}

// Sorts byte ranges and merges those that overlap (tensors may view one another).
void merge_ranges(ByteRanges& r) {
  std::sort(r.begin(), r.end());
  size_t n = 0;
  for (const auto& x : r) {
    if (n > 0 && x.first < r[n - 1].second) r[n - 1].second = std::max(r[n - 1].second, x.second);
    else r[n++] = x;
  }
  r.resize(n);
}

// True when `t` starts inside one of the merged byte ranges.
bool starts_in(const Tensor& t, const ByteRanges& ranges) {
  const char* p = static_cast<const char*>(t.raw());
  if (!t.defined() || !p || ranges.empty()) return false;
  auto it = std::upper_bound(ranges.begin(), ranges.end(), p, [](const char* x, const auto& r) { return x < r.first; });
  return it != ranges.begin() && p < std::prev(it)->second;
}

// Outputs that share storage with the model's constants or the caller's feeds (views made by
// Identity, Reshape, Squeeze, a same-type Cast ...) become the caller's own copies: writing into an
// output must not change the model or an input.
void own_outputs(std::vector<Value>& outs, const std::vector<Value>& feeds,
                 const ByteRanges& model_bytes) {
  ByteRanges feed_bytes;
  for (const auto& f : feeds) {
    add_range(f.tensor, feed_bytes);
    for (const auto& t : f.sequence) add_range(t, feed_bytes);
  }
  merge_ranges(feed_bytes);
  auto own = [&](Tensor& t) {
    if (starts_in(t, model_bytes) || starts_in(t, feed_bytes)) t = t.clone();
  };
  for (auto& v : outs) {
    if (v.is_tensor()) own(v.tensor);
    for (auto& t : v.sequence) own(t);
  }
}

}  // namespace

void check_input_value(const ValueInfo& info, const Value& v) {
  const TypeInfo& t = info.type;
  if (t.kind != TypeInfo::Kind::Tensor) return;
  if (!v.is_tensor()) fail("input '{}' expects a tensor {}", info.name, t.str());
  const Tensor& x = v.tensor;
  if (t.dtype != DType::Undefined && x.dtype() != t.dtype)
    fail("input '{}' expects dtype {} but the data is {} (shape {})", info.name, dtype_name(t.dtype),
         dtype_name(x.dtype()), shape_str(x.shape()));
  if (!t.shape) return;
  bool ok = t.shape->size() == x.shape().size();
  for (size_t i = 0; ok && i < t.shape->size(); ++i)
    if ((*t.shape)[i].is_static() && (*t.shape)[i].value != x.shape()[i]) ok = false;
  if (!ok) fail("input '{}' expects shape {} but the data has shape {}", info.name, t.str(), shape_str(x.shape()));
}

namespace {

// Lends one node the session's arena: its planned output slots and the shared scratch buffer.
class ArenaMemory : public rt::KernelMemory {
 public:
  ArenaMemory(rt::ActivationArena& arena, size_t node, const KernelContext& ctx) : arena_(arena), node_(node), ctx_(ctx) {}
  Tensor output(size_t i, DType dtype, const Shape& shape, size_t bytes) override {
    Tensor t = arena_.slot_tensor(node_, i, dtype, shape, bytes);
    if (t.defined() && overlaps_an_input(t.raw(), bytes, shape)) return {};
    return t;
  }
  void* scratch(size_t bytes) override { return arena_.scratch(bytes); }

 private:
  // A slot may share bytes with an input only as the plan made it: in place, same start and same
  // shape (or size). Run-time shapes that differ from the inferred ones would otherwise let a
  // kernel write over input elements it has not read yet.
  bool overlaps_an_input(const void* p, size_t bytes, const Shape& shape) const {
    const char* b = static_cast<const char*>(p);
    for (size_t i = 0; i < ctx_.num_inputs(); ++i) {
      if (!ctx_.has_input(i) || !ctx_.input_value(i).is_tensor()) continue;
      const Tensor& x = ctx_.input_value(i).tensor;
      const char* xb = static_cast<const char*>(x.raw());
      const size_t xn = x.dtype() == DType::String ? 0 : x.nbytes();
      if (xn == 0 || xb >= b + bytes || b >= xb + xn) continue;
      if (xb != b || (xn != bytes && x.shape() != shape)) return true;
    }
    return false;
  }

  rt::ActivationArena& arena_;
  size_t node_;
  const KernelContext& ctx_;
};

class Executor : public SubgraphRunner {
 public:
  Executor(const std::map<const Graph*, std::unique_ptr<Session::GraphPlan>>& plans, int opset, const Scope* scope,
           RunProfile* profile = nullptr, rt::SessionArena* arena = nullptr, const ValueWatch* watch = nullptr,
           double* body_reference_us = nullptr)
      : plans_(plans), opset_(opset), scope_(scope), profile_(profile), arena_(arena), watch_(watch),
        body_reference_us_(body_reference_us) {}

  std::vector<Value> run(const Graph& body, const std::vector<Value>& inputs) const override {
    return execute(body, inputs, scope_);
  }

  std::vector<Value> execute(const Graph& g, const std::vector<Value>& inputs, const Scope* parent) const {
    auto it = plans_.find(&g);
    if (it == plans_.end()) fail("internal: graph '{}' has no execution plan", g.name);
    const Session::GraphPlan& plan = *it->second;
    Scope scope(parent, &plan.initializers, g.inputs.size() + g.nodes.size());
    if (inputs.size() > g.inputs.size())
      fail("graph '{}' takes {} inputs but {} were given", g.name, g.inputs.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) scope.set(g.inputs[i].name, inputs[i]);
    if (watch_)
      for (size_t i = 0; i < inputs.size(); ++i) show(g.inputs[i].name, inputs[i], plan);
    Executor child(plans_, opset_, &scope, nullptr, nullptr, watch_,
                   profile_ ? &profile_->body_reference_us : body_reference_us_);
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    size_t live_bytes = 0;  // graph inputs and node outputs alive now (profiling only)
    for (const auto& v : inputs)
      if (v.is_tensor()) live_bytes += v.tensor.nbytes();
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      const auto node_start = clock::now();
      const Node& node = g.nodes[k];
      const OpDef* def = plan.defs[k];
      std::vector<const Value*> in;
      in.reserve(node.inputs.size());
      for (const auto& name : node.inputs) {
        if (name.empty()) {
          in.push_back(nullptr);
          continue;
        }
        const Value* v = scope.find(name);
        if (!v) fail("{}: input '{}' has no value (not produced by any earlier node, input or initializer)",
                     node.label(), name);
        in.push_back(v);
      }
      std::vector<Shape> in_shapes;
      if (profile_)
        for (const Value* v : in) in_shapes.push_back(v && v->is_tensor() ? v->tensor.shape() : Shape{});
      KernelContext ctx(node, *def, opset_, std::move(in), &child);
      rt::FastKernel* fast = plan.fast.empty() ? nullptr : plan.fast[k].get();
      bool ran_fast = false;
      try {
        if (fast && arena_) {
          ArenaMemory lent(arena_->arena, k, ctx);
          ran_fast = fast->run(ctx, lent);
        } else {
          ran_fast = fast && fast->run(ctx);
        }
        if (!ran_fast) def->kernel(ctx);
      } catch (const Error&) {
        throw;
      } catch (const std::exception& e) {
        fail("{}: {}", node.label(), e.what());
      }
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o].empty()) continue;
        Value& v = ctx.outputs()[o];
        if (v.is_tensor() && !v.tensor.defined())
          fail("internal: {} did not produce output {} ('{}')", node.label(), o, node.outputs[o]);
        if (arena_) settle(k, o, v, ctx);
        if (profile_ && v.is_tensor() && !in_arena(v)) live_bytes += v.tensor.nbytes();
        if (watch_) show(node.outputs[o], v, plan);
        scope.set(node.outputs[o], std::move(v));
      }
      if (body_reference_us_ && !profile_ && !ran_fast && !(def->traits & kTraitControlFlow))
        *body_reference_us_ += std::chrono::duration<double, std::micro>(clock::now() - node_start).count();
      if (profile_) {
        const auto node_end = clock::now();
        NodeRun r;
        r.node_index = k;
        r.kernel = ran_fast ? fast->name() : (def->traits & kTraitControlFlow) ? kControlFlowKernel : kReferenceKernel;
        r.start_us = std::chrono::duration<double, std::micro>(node_start - t0).count();
        r.duration_us = std::chrono::duration<double, std::micro>(node_end - node_start).count();
        r.input_shapes = std::move(in_shapes);
        for (const auto& o : node.outputs) {
          const Value* v = o.empty() ? nullptr : scope.find(o);
          r.output_shapes.push_back(v && v->is_tensor() ? v->tensor.shape() : Shape{});
        }
        r.live_bytes = live_bytes;
        r.scratch_bytes = ran_fast ? fast->scratch_bytes() : 0;
        profile_->nodes.push_back(std::move(r));
        for (const auto& n : plan.release_after[k])
          if (const Value* v = scope.find(n); v && v->is_tensor() && !g.initializers.count(n) && !in_arena(*v))
            live_bytes -= v->tensor.nbytes();
      }
      for (const auto& n : plan.release_after[k]) scope.erase(n);
    }
    if (profile_) profile_->wall_us = std::chrono::duration<double, std::micro>(clock::now() - t0).count();
    std::vector<Value> outs;
    for (const auto& o : g.outputs) {
      const Value* v = scope.find(o.name);
      if (!v) fail("graph '{}' output '{}' was never produced", g.name, o.name);
      outs.push_back(*v);
      if (arena_) arena_->arena.detach(outs.back());
    }
    return outs;
  }

 private:
  bool in_arena(const Value& v) const { return arena_ && v.is_tensor() && arena_->arena.contains(v.tensor.raw()); }

  // A watched value to the watcher, in the plain layout (a copy only when it travels blocked:
  // float32 in nChw16c/nChw8c, int8 in NHWC, as the fast kernels pass them on), or blocked as it
  // lies to see_blocked when the watcher takes it so.
  void show(const std::string& name, const Value& v, const Session::GraphPlan& plan) const {
    if (!v.is_tensor() || !v.tensor.defined() || !watch_->names.count(name)) return;
    if (!plan.blocked.count(name)) return watch_->see(name, v.tensor);
    const Tensor& x = v.tensor;
    if (x.dtype() == DType::Float32 && watch_->see_blocked && watch_->blocked_names.count(name))
      return watch_->see_blocked(name, x, int(rt::blocked_f32_desc(x.shape()).data.format_desc.blocking.inner_blks[0]));
    // One buffer for every watched value of the run: the watcher reads each before the next one
    // comes, and a fresh large allocation per value costs the kernel's page zeroing each time.
    const size_t bytes = size_t(x.numel()) * dtype_size(x.dtype());
    if (!watch_buffer_.defined() || size_t(watch_buffer_.numel()) < bytes)
      watch_buffer_ = rt::uninit_tensor(DType::UInt8, {static_cast<int64_t>(bytes)});
    Tensor plain = Tensor::view(x.dtype(), x.shape(), watch_buffer_.raw(), nullptr);  // watch_buffer_ owns it
    if (x.dtype() == DType::Float32) {
      rt::reorder(rt::blocked_f32_desc(x.shape()), x.raw(), rt::plain_f32_desc(x.shape()), plain.raw());
    } else {
      const auto t = rt::int8_data_type(x.dtype());
      if (!t) fail("internal: '{}' travels blocked as {}", name, dtype_name(x.dtype()));
      using tag = dnnl::memory::format_tag;
      rt::reorder(dnnl::memory::desc(rt::to_dims(x.shape()), *t, tag::acdb), x.raw(),
                  dnnl::memory::desc(rt::to_dims(x.shape()), *t, tag::abcd), plain.raw());
    }
    watch_->see(name, plain);
  }

  // An output that points into arena bytes it does not own gets its own copy; a plain view of an
  // input is remembered so that the next plan lets the two share bytes.
  void settle(size_t node, size_t output, Value& v, const KernelContext& ctx) const {
    std::vector<const Value*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.has_input(i) ? &ctx.input_value(i) : nullptr);
    if (auto input = arena_->arena.settle_output(node, output, v, inputs)) {
      arena_->views.insert({node, *input});
      arena_->stale = true;
    }
  }

  const std::map<const Graph*, std::unique_ptr<Session::GraphPlan>>& plans_;
  int opset_;
  const Scope* scope_;
  RunProfile* profile_;  // main graph only
  rt::SessionArena* arena_;  // main graph only; null: every value on the heap
  const ValueWatch* watch_;
  double* body_reference_us_;  // bodies of a profiled run: where their reference-kernel time adds up  // main graph and bodies
  mutable Tensor watch_buffer_;  // show()'s plain copies
};

}  // namespace

namespace {

// Validates a graph (references resolved in order, schema arity) and builds its plan.
void plan_graph(const Graph& g, const std::set<std::string>& outer,
                std::map<const Graph*, std::unique_ptr<Session::GraphPlan>>& plans, const std::string& file) {
  const auto& reg = OpRegistry::global();
  auto plan = std::make_unique<Session::GraphPlan>();
  std::set<std::string> visible = outer;
  std::set<std::string> local;
  for (const auto& v : g.inputs) visible.insert(v.name), local.insert(v.name);
  for (const auto& [n, t] : g.initializers) visible.insert(n), local.insert(n);
  std::map<std::string, size_t> last_use;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& node = g.nodes[k];
    const OpDef* def = reg.find(node.domain, node.op_type);
    plan->defs.push_back(def);
    int nin = static_cast<int>(node.inputs.size());
    int nout = static_cast<int>(node.outputs.size());
    if (nin < def->min_inputs || (def->max_inputs >= 0 && nin > def->max_inputs))
      fail("{}: {} has {} inputs, expected {}..{}", file, node.label(), nin, def->min_inputs,
           def->max_inputs < 0 ? std::string("n") : std::to_string(def->max_inputs));
    if (nout < 1 || (def->max_outputs >= 0 && nout > def->max_outputs))
      fail("{}: {} has {} outputs, expected {}..{}", file, node.label(), nout, def->min_outputs,
           def->max_outputs < 0 ? std::string("n") : std::to_string(def->max_outputs));
    for (const auto& [key, a] : node.attrs) {
      if (a.g) plan_graph(*a.g, visible, plans, file);
      for (const auto& sg : a.graphs) plan_graph(*sg, visible, plans, file);
    }
    for (const auto& name : node_reads(node)) {
      if (!visible.count(name))
        fail("{}: {} reads '{}', which no earlier node, graph input or initializer produces", file, node.label(),
             name);
      if (local.count(name)) last_use[name] = k;
    }
    for (const auto& o : node.outputs)
      if (!o.empty()) visible.insert(o), local.insert(o), last_use[o] = k;
  }
  for (const auto& o : g.outputs) {
    if (!visible.count(o.name)) fail("{}: graph '{}' output '{}' is never produced", file, g.name, o.name);
    last_use.erase(o.name);  // graph outputs live to the end
  }
  for (const auto& [name, t] : g.initializers) plan->initializers.emplace(name, Value(t));
  plan->release_after.resize(g.nodes.size());
  for (const auto& [name, k] : last_use)
    if (!g.initializers.count(name)) plan->release_after[k].push_back(name);
  plans[&g] = std::move(plan);
}

// Fixes which values of the main graph travel in the channel-blocked layout: those whose producer
// can write it and whose every reader is a kernel that takes it at that input position.
void plan_layouts(const Graph& g, Session::GraphPlan& plan) {
  std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>> readers;  // value -> (node, input)
  std::set<std::string> pinned;  // graph outputs and values read by subgraphs stay plain
  for (const auto& o : g.outputs) pinned.insert(o.name);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty()) readers[n.inputs[i]].push_back({k, i});
    for (const auto& [key, a] : n.attrs) {
      if (a.g) collect_free_names(*a.g, pinned);
      for (const auto& sg : a.graphs) collect_free_names(*sg, pinned);
    }
  }
  std::set<std::string> blocked;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (!plan.fast[k] || !plan.fast[k]->emits_blocked() || n.outputs.size() != 1 || pinned.count(n.outputs[0])) continue;
    // Inputs come first in node order, so their layouts are already fixed here.
    bool fed_blocked = false;
    for (const auto& v : n.inputs) fed_blocked = fed_blocked || blocked.count(v) > 0;
    if (plan.fast[k]->blocked_only_after_blocked() && !fed_blocked) continue;
    auto it = readers.find(n.outputs[0]);
    if (it == readers.end()) continue;
    bool all = true;
    for (const auto& [r, i] : it->second) all = all && plan.fast[r] && plan.fast[r]->accepts_blocked(i);
    if (all) blocked.insert(n.outputs[0]);
  }
  plan.blocked = blocked;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (!plan.fast[k]) continue;
    const Node& n = g.nodes[k];
    std::vector<bool> in;
    for (const auto& name : n.inputs) in.push_back(blocked.count(name) > 0);
    plan.fast[k]->use_layouts(in, n.outputs.size() == 1 && blocked.count(n.outputs[0]));
  }
}

// Selects a fast kernel per node of every graph, with the types inference found. Only initializers
// count as constant inputs: a value folded from a Shape would go stale when input shapes change.
void select_fast_kernels(const Model& model, DType compute,
                         std::map<const Graph*, std::unique_ptr<Session::GraphPlan>>& plans) {
  GraphInference inferred;
  try {
    inferred = infer_graph(model);
  } catch (const std::exception&) {
    // Without types the factories see unknown inputs and decide at run time.
  }
  const auto& reg = rt::FastKernelRegistry::global();
  const int opset = static_cast<int>(model.opset(""));
  for (auto& [g, plan] : plans) {
    plan->fast.resize(g->nodes.size());
    for (size_t k = 0; k < g->nodes.size(); ++k) {
      const Node& node = g->nodes[k];
      rt::KernelBuildInfo info{node, *plan->defs[k], opset, {}, {}, compute};
      for (const auto& in : node.inputs) {
        auto init = g->initializers.find(in);
        info.constants.push_back(init == g->initializers.end() ? nullptr : &init->second);
        info.types.push_back(in.empty() ? nullptr : inferred.type_of(*g, in));
      }
      plan->fast[k] = reg.select(info);
    }
  }
  plan_layouts(model.graph, *plans.at(&model.graph));
}

}  // namespace

Session::Session(std::shared_ptr<const Model> model, SessionOptions opts) : model_(std::move(model)), opts_(opts) {
  const std::string file = model_->source_path.empty() ? "model" : model_->source_path;
  UnknownOps unknown;
  find_unknown_ops(model_->graph, unknown);
  if (!unknown.by_type.empty()) {
    std::string list;
    for (const auto& [type, nodes] : unknown.by_type) {
      list += (list.empty() ? "" : "; ") + type + " (node";
      list += nodes.size() > 1 ? "s " : " ";
      for (size_t i = 0; i < nodes.size() && i < 5; ++i) list += (i ? ", " : "") + nodes[i];
      if (nodes.size() > 5) list += fmt::format(", ... {} in all", nodes.size());
      list += ")";
    }
    fail_unsupported("{}: unsupported operators: {}", file, list);
  }
  if (model_->graph.outputs.empty()) fail("{}: graph has no outputs", file);
  plan_graph(model_->graph, {}, plans_, file);
  // After validation, so that bad input is reported against the graph as written. The rewrite is
  // only a faster form of a valid graph: should it fail, the graph runs as written.
  if (!opts_.reference_kernels && opts_.int8_kernels) {
    std::shared_ptr<const Model> prepared = model_;
    try {
      prepared = rt::prepare_quantized_graph(model_);
    } catch (const std::exception&) {
    }
    if (prepared != model_) {
      model_ = std::move(prepared);
      plans_.clear();
      plan_graph(model_->graph, {}, plans_, file);
    }
  }
  const DType compute = opts_.compute_precision;
  if (compute != DType::Float32 && compute != DType::Float16 && compute != DType::BFloat16)
    fail_unsupported("compute precision {}: float32, float16 or bfloat16 only", dtype_name(compute));
  if (!opts_.reference_kernels) select_fast_kernels(*model_, compute, plans_);
  auto& model_bytes = plans_.at(&model_->graph)->model_bytes;
  collect_model_bytes(model_->graph, model_bytes);
  merge_ranges(model_bytes);
  // Only fast kernels write into the arena: for the reference kernels it would stay empty.
  if (opts_.activation_arena && !opts_.reference_kernels) arena_ = std::make_unique<rt::SessionArena>();
}


Session::~Session() = default;

bool Session::input_has_default(size_t i) const { return model_->graph.initializers.count(inputs()[i].name) > 0; }

std::vector<Value> Session::run(const std::vector<Value>& feeds, RunProfile* profile, const ValueWatch* watch) const {
  const Graph& g = model_->graph;
  if (feeds.size() > g.inputs.size())
    fail("the model has {} inputs but {} values were given", g.inputs.size(), feeds.size());
  for (size_t i = feeds.size(); i < g.inputs.size(); ++i)
    if (!input_has_default(i))
      fail("input '{}' ({}) was not given: the model needs {} inputs, {} were given", g.inputs[i].name,
           g.inputs[i].type.str(), g.inputs.size(), feeds.size());
  if (opts_.check_input_types)
    for (size_t i = 0; i < feeds.size(); ++i) check_input_value(g.inputs[i], feeds[i]);
  if (opts_.num_threads > 0) omp_set_num_threads(opts_.num_threads);
  std::unique_lock<std::mutex> arena_lock;
  rt::SessionArena* arena = nullptr;
  if (arena_) {
    arena_lock = std::unique_lock<std::mutex>(arena_->mu, std::try_to_lock);
    if (arena_lock.owns_lock()) arena = arena_.get();
  }
  if (arena) {
    const GraphPlan& plan = *plans_.at(&g);
    // In place: an elementwise fast kernel may write over an input nothing reads afterwards, when
    // both are stored in the same layout (element i of one is then element i of the other).
    auto may_overwrite = [&](size_t node, size_t input) {
      const Node& n = g.nodes[node];
      return (plan.defs[node]->traits & kTraitElementwise) && plan.fast[node] &&
             plan.blocked.count(n.inputs[input]) == plan.blocked.count(n.outputs[0]);
    };
    rt::update_arena_plan(*arena, *model_, feeds, plan.blocked, may_overwrite);
    if (profile) profile->arena_bytes = arena->arena.bytes();
  }
  Executor exec(plans_, static_cast<int>(model_->opset("")), nullptr, profile, arena, watch && watch->see ? watch : nullptr);
  std::vector<Value> outs = exec.execute(g, feeds, nullptr);
  own_outputs(outs, feeds, plans_.at(&g)->model_bytes);
  return outs;
}

size_t Session::arena_bytes() const {
  if (!arena_) return 0;
  std::lock_guard<std::mutex> lock(arena_->mu);
  return arena_->arena.bytes();
}

std::vector<Value> Session::run(const std::map<std::string, Value>& feeds) const {
  std::vector<Value> ordered;
  const Graph& g = model_->graph;
  for (const auto& [name, v] : feeds)
    if (!g.find_input(name)) fail("the model has no input named '{}'", name);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    auto it = feeds.find(g.inputs[i].name);
    if (it == feeds.end()) break;
    ordered.push_back(it->second);
  }
  return run(ordered);
}

}  // namespace ms
