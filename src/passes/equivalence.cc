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

std::vector<OutputDiff> compare_outputs(const std::vector<Value>& ref, const Model& candidate, const std::vector<Value>& feeds,
                                        const std::vector<ValueInfo>& names) {
  std::vector<Value> got = run_reference(candidate, feeds);
  std::vector<OutputDiff> diffs;
  for (size_t i = 0; i < ref.size(); ++i) {
    OutputDiff d;
    d.name = i < names.size() ? names[i].name : std::to_string(i);
    if (i >= got.size() || !ref[i].is_tensor() || !got[i].is_tensor()) {
      d.problem = "missing or not a tensor";
      diffs.push_back(d);
      continue;
    }
    const Tensor &a = ref[i].tensor, &b = got[i].tensor;
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
      d.problem = fmt::format("{} {} became {} {}", dtype_name(a.dtype()), shape_str(a.shape()), dtype_name(b.dtype()), shape_str(b.shape()));
    } else if (a.dtype() != DType::String) {
      double max_ref = 0, max_diff = 0;
      for (int64_t k = 0; k < a.numel(); ++k) {
        const double x = a.as_double(k), y = b.as_double(k);
        if (std::isnan(x) != std::isnan(y)) max_diff = INFINITY;
        else if (!std::isnan(x) && x != y) max_diff = std::max(max_diff, std::fabs(x - y));
        if (std::isfinite(x)) max_ref = std::max(max_ref, std::fabs(x));
      }
      d.rel_error = max_ref > 0 ? max_diff / max_ref : max_diff;
    }
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
