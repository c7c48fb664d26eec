// eliminate_common_subexpressions: two nodes with the same op, attributes and inputs compute the
// same values; readers of the later one's outputs read the earlier one's. Random ops, ops with
// subgraphs and nodes producing graph outputs are kept.
#include <cstring>

#include "ops/op.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

std::string tensor_key(const Tensor& t) {
  std::string k = std::to_string(static_cast<int>(t.dtype())) + shape_str(t.shape());
  if (t.dtype() == DType::String) {
    for (int64_t i = 0; i < t.numel(); ++i) k += t.data<std::string>()[i] + '\0';
  } else {
    k.append(static_cast<const char*>(t.raw()), t.nbytes());
  }
  return k;
}

// A byte string equal for equal attributes (floats compared bit for bit).
std::string attr_key(const Attribute& a) {
  std::string k = std::to_string(static_cast<int>(a.type)) + ':';
  auto bits = [&](const void* p, size_t n) { k.append(static_cast<const char*>(p), n); };
  bits(&a.f, sizeof a.f);
  bits(&a.i, sizeof a.i);
  k += a.s + '\0';
  for (float f : a.floats) bits(&f, sizeof f);
  k += '|';
  for (int64_t i : a.ints) bits(&i, sizeof i);
  k += '|';
  for (const auto& s : a.strings) k += s + '\0';
  if (a.t.defined()) k += tensor_key(a.t);
  for (const auto& t : a.tensors) k += tensor_key(t);
  return k;
}

std::optional<std::string> node_key(const Node& n) {
  const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
  if (!def || (def->traits & (kTraitRandom | kTraitControlFlow)) || n.outputs.empty()) return std::nullopt;
  std::string k = n.domain + '\0' + n.op_type + '\0' + std::to_string(n.outputs.size()) + '\0';
  for (const auto& i : n.inputs) k += i + '\0';
  for (const auto& [name, a] : n.attrs) {
    if (a.g || !a.graphs.empty()) return std::nullopt;
    k += name + '=' + attr_key(a) + '\0';
  }
  return k;
}

void cse(Rewriter& rw, const PassContext&, PassStats& stats) {
  // One walk in topological order suffices: readers of a merged node come later and are keyed
  // with their inputs already renamed. Removing node i keeps the order, so indices below i stay.
  std::unordered_map<std::string, size_t> first;
  for (size_t i = 0; i < rw.size();) {
    const Node& n = rw.node(i);
    auto key = node_key(n);
    auto it = key ? first.find(*key) : first.end();
    if (!key || it == first.end()) {
      if (key) first.emplace(*key, i);
      ++i;
      continue;
    }
    bool graph_output = false;
    for (const auto& o : n.outputs) graph_output = graph_output || rw.is_graph_output(o);
    if (graph_output) {
      stats.reject("produces a graph output", n);
      ++i;
      continue;
    }
    const std::vector<std::string> outs = n.outputs, kept_outs = rw.node(it->second).outputs;
    bool complete = true;  // the earlier node produces every output the later one does
    for (size_t k = 0; k < outs.size(); ++k) complete = complete && (outs[k].empty() || !kept_outs[k].empty());
    if (!complete) {
      stats.reject("the earlier identical node omits an output this one produces", n);
      ++i;
      continue;
    }
    for (size_t k = 0; k < outs.size(); ++k)
      if (!outs[k].empty()) rw.replace_uses(outs[k], kept_outs[k]);
    rw.replace({i}, {});
    ++stats.rewrites;
  }
}

}  // namespace

std::unique_ptr<Pass> make_eliminate_common_subexpressions() {
  return std::make_unique<FunctionPass>("eliminate_common_subexpressions", "identical nodes computed once", cse);
}

}  // namespace ms::passes
