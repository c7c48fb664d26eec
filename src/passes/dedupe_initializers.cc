// dedupe_initializers: initializers with identical dtype, shape and bytes are stored once; readers
// of the copies read the first. Initializers that are graph inputs or outputs are left alone.
#include <cstring>
#include <functional>
#include <string_view>

#include "passes/pass_list.h"

namespace ms::passes {
namespace {

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DType::String) {
    for (int64_t i = 0; i < a.numel(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    return true;
  }
  return std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

size_t tensor_hash(const Tensor& t) {
  size_t h = std::hash<std::string>()(shape_str(t.shape())) ^ static_cast<size_t>(t.dtype());
  if (t.dtype() != DType::String)
    h ^= std::hash<std::string_view>()(std::string_view(static_cast<const char*>(t.raw()), t.nbytes())) * 31;
  return h;
}

void dedupe(Rewriter& rw, const PassContext&, PassStats& stats) {
  std::unordered_map<size_t, std::vector<std::string>> seen;
  std::vector<std::pair<std::string, std::string>> dups;  // copy -> kept
  for (const auto& [name, t] : rw.graph().initializers) {
    if (rw.is_graph_input(name) || rw.is_graph_output(name)) continue;
    auto& bucket = seen[tensor_hash(t)];
    bool found = false;
    for (const auto& kept : bucket)
      if (same_tensor(rw.graph().initializers.at(kept), t)) {
        dups.emplace_back(name, kept);
        found = true;
        break;
      }
    if (!found) bucket.push_back(name);
  }
  for (const auto& [copy, kept] : dups) {
    rw.replace_uses(copy, kept);
    rw.model().graph.initializers.erase(copy);
  }
  if (!dups.empty()) rw.reindex();
  stats.rewrites += dups.size();
}

}  // namespace

std::unique_ptr<Pass> make_dedupe_initializers() {
  return std::make_unique<FunctionPass>("dedupe_initializers", "identical initializers stored once", dedupe);
}

}  // namespace ms::passes
