#include "passes/equivalence.h"

#include <cmath>
#include <memory>
#include <random>

#include "ops/kernel_util.h"
#include "runtime/session.h"

namespace ms::passes {

std::vector<Value> seeded_inputs(const Model& m, uint32_t seed, const std::map<std::string, std::vector<int64_t>>& input_shapes) {
  std::mt19937 rng(seed);
  std::vector<Value> feeds;
  for (const auto& in : m.graph.inputs) {
    if (auto init = m.graph.initializers.find(in.name); init != m.graph.initializers.end()) {
      feeds.emplace_back(init->second);  // an overridable initializer keeps its value
      continue;
    }
    if (in.type.kind != TypeInfo::Kind::Tensor) fail("input '{}' is not a tensor; give input files (--inDataFile)", in.name);
    Shape shape;
    auto fixed = input_shapes.find(in.name);
    if (fixed != input_shapes.end()) shape = fixed->second;
    else if (in.type.shape)
      for (const auto& d : *in.type.shape) shape.push_back(d.is_static() ? d.value : 1);
    Tensor t(in.type.dtype, shape);
    if (in.type.dtype == DType::Bool) {
      for (int64_t i = 0; i < t.numel(); ++i) t.data<bool>()[i] = rng() & 1;
    } else {
      dispatch_all_numeric(in.type.dtype, "input '" + in.name + "'", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = t.data<T>();
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        std::uniform_int_distribution<int> k(0, 3);
        for (int64_t i = 0; i < t.numel(); ++i) {
          if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(k(rng));
          else p[i] = static_cast<T>(u(rng));
        }
      });
    }
    feeds.emplace_back(std::move(t));
  }
  return feeds;
}

std::vector<Value> run_reference(const Model& m, const std::vector<Value>& feeds) {
  SessionOptions o;
  o.reference_kernels = true;  // the oracle: a fast kernel's deviation must not be blamed on a pass
  Session s(std::make_shared<const Model>(m), o);
  return s.run(feeds);
}

namespace {

// Relative error of b against a: max |a - b| / max |a| (max |a - b| when a is all zero); NaN
// must meet NaN.
void compare_tensors(const Tensor& a, const Tensor& b, OutputDiff& d) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    d.problem = fmt::format("{} {} became {} {}", dtype_name(a.dtype()), shape_str(a.shape()), dtype_name(b.dtype()), shape_str(b.shape()));
    return;
  }
  if (a.dtype() == DType::String) {
    for (int64_t k = 0; k < a.numel(); ++k)
      if (a.data<std::string>()[k] != b.data<std::string>()[k]) d.problem = "strings differ";
    return;
  }
  double max_ref = 0, max_diff = 0;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const double x = a.as_double(k), y = b.as_double(k);
    if (std::isnan(x) != std::isnan(y)) max_diff = INFINITY;
    else if (!std::isnan(x) && x != y) max_diff = std::max(max_diff, std::fabs(x - y));
    if (std::isfinite(x)) max_ref = std::max(max_ref, std::fabs(x));
  }
  d.rel_error = std::max(d.rel_error, max_ref > 0 ? max_diff / max_ref : max_diff);
}

void compare_values(const Value& a, const Value& b, OutputDiff& d) {
  if (a.kind != b.kind) {
    d.problem = "the kind of value changed (tensor, sequence, empty optional)";
  } else if (a.is_tensor()) {
    compare_tensors(a.tensor, b.tensor, d);
  } else if (a.is_sequence()) {
    if (a.sequence.size() != b.sequence.size()) d.problem = fmt::format("sequence of {} became {}", a.sequence.size(), b.sequence.size());
    for (size_t i = 0; i < a.sequence.size() && d.problem.empty(); ++i) compare_tensors(a.sequence[i], b.sequence[i], d);
  }
}

bool graph_has_random_ops(const Graph& g) {
  for (const auto& n : g.nodes) {
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    if (def && (def->traits & kTraitRandom)) return true;
    for (const auto& [k, a] : n.attrs) {
      if (a.g && graph_has_random_ops(*a.g)) return true;
      for (const auto& sg : a.graphs)
        if (graph_has_random_ops(*sg)) return true;
    }
  }
  return false;
}

}  // namespace

bool has_random_ops(const Model& m) { return graph_has_random_ops(m.graph); }

std::vector<OutputDiff> compare_outputs(const std::vector<Value>& ref, const Model& candidate, const std::vector<Value>& feeds,
                                        const std::vector<ValueInfo>& names) {
  std::vector<Value> got = run_reference(candidate, feeds);
  std::vector<OutputDiff> diffs;
  for (size_t i = 0; i < ref.size(); ++i) {
    OutputDiff d;
    d.name = i < names.size() ? names[i].name : std::to_string(i);
    if (i >= got.size()) d.problem = "missing";
    else compare_values(ref[i], got[i], d);
    diffs.push_back(d);
  }
  return diffs;
}

std::vector<OutputDiff> compare_outputs(const Model& reference, const Model& candidate, const std::vector<Value>& feeds) {
  return compare_outputs(run_reference(reference, feeds), candidate, feeds, reference.graph.outputs);
}

std::string describe_differences(const std::vector<OutputDiff>& diffs, double tol) {
  std::string r;
  for (const auto& d : diffs) {
    if (!d.problem.empty()) r += fmt::format("{}output '{}': {}", r.empty() ? "" : "; ", d.name, d.problem);
    else if (!(d.rel_error <= tol))
      r += fmt::format("{}output '{}' differs by {:.3g} relative (limit {:.3g})", r.empty() ? "" : "; ", d.name, d.rel_error, tol);
  }
  return r;
}

}  // namespace ms::passes
