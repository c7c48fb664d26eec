#include "analysis/tensor_pairing.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/tensor_origin.h"

namespace ms::analysis {

std::string_view paired_by_name(PairedBy p) {
  switch (p) {
    case PairedBy::Name: return "name";
    case PairedBy::Origin: return "origin";
    case PairedBy::Output: return "output";
    case PairedBy::Structure: return "structure";
  }
  return "?";
}

namespace {

struct Producer {
  size_t node = 0;
  size_t output = 0;
};

// One model's view: who produces each tensor, and which tensor stands for each original one.
struct Side {
  const Graph& g;
  TensorOriginMap origin;
  std::map<std::string, Producer> producer;
  std::map<std::string, std::string> by_root;                   // original name -> tensor standing for it
  std::map<std::string, std::vector<size_t>> consumers;          // tensor -> nodes reading it
  std::set<std::string> constants;                                // initializers and outputs of input-less nodes

  explicit Side(const Model& m) : g(m.graph), origin(read_tensor_origin(m)) {
    for (const auto& [name, t] : g.initializers) constants.insert(name);
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      const Node& n = g.nodes[k];
      bool has_input = std::any_of(n.inputs.begin(), n.inputs.end(), [](const auto& s) { return !s.empty(); });
      for (const auto& in : n.inputs)
        if (!in.empty()) consumers[in].push_back(k);
      for (size_t o = 0; o < n.outputs.size(); ++o) {
        const std::string& name = n.outputs[o];
        if (name.empty()) continue;
        producer[name] = {k, o};
        if (!has_input) constants.insert(name);
        // Several tensors may claim one original (a fused chain's intermediate copies): the one
        // carrying the original name wins, otherwise the last produced, which is the one that
        // holds the original's value once the whole replacement has run.
        const std::string& root = tensor_origin_root(origin, name);
        auto it = by_root.find(root);
        if (it == by_root.end() || name == root || it->second != root) by_root[root] = name;
      }
    }
  }
};

class Pairing {
 public:
  Pairing(const Model& model, const Model& ref) : a_(model), b_(ref) {
    // Both models are fed the same values, bound to their inputs in order (inputs that have an
    // initializer are weights, constants to the structural match).
    for (size_t i = 0; i < a_.g.inputs.size() && i < b_.g.inputs.size(); ++i) {
      const std::string& a = a_.g.inputs[i].name;
      const std::string& b = b_.g.inputs[i].name;
      if (!a_.g.initializers.count(a) && !b_.g.initializers.count(b)) a_to_b_[a] = b;
    }
  }

  std::vector<TensorPair> run() {
    pair_by_names();
    pair_outputs();
    pair_by_structure();
    std::sort(pairs_.begin(), pairs_.end(), [&](const TensorPair& x, const TensorPair& y) {
      const Producer& px = a_.producer.at(x.name);
      const Producer& py = a_.producer.at(y.name);
      return px.node != py.node ? px.node < py.node : px.output < py.output;
    });
    return pairs_;
  }

 private:
  void add(const std::string& a, const std::string& b, PairedBy by) {
    pairs_.push_back({a, b, a_.producer.at(a).node, b_.producer.at(b).node, by});
    a_to_b_[a] = b;
    b_paired_.insert(b);
  }

  void pair_by_names() {
    for (const auto& [root, a_name] : a_.by_root) {
      auto it = b_.by_root.find(root);
      if (it == b_.by_root.end()) continue;
      bool plain = a_name == root && it->second == root;
      add(a_name, it->second, plain ? PairedBy::Name : PairedBy::Origin);
    }
  }

  void pair_outputs() {
    for (size_t i = 0; i < a_.g.outputs.size() && i < b_.g.outputs.size(); ++i) {
      const std::string& a = a_.g.outputs[i].name;
      const std::string& b = b_.g.outputs[i].name;
      if (a_.producer.count(a) && b_.producer.count(b) && !a_to_b_.count(a) && !b_paired_.count(b))
        add(a, b, PairedBy::Output);
    }
  }

  // How input `in` of a node of the model under test must look in the reference node.
  enum class InputKind { Omitted, Constant, Paired, Unknown };
  InputKind kind_of(const std::string& in) const {
    if (in.empty()) return InputKind::Omitted;
    if (a_to_b_.count(in)) return InputKind::Paired;
    if (a_.constants.count(in)) return InputKind::Constant;
    return InputKind::Unknown;
  }

  bool inputs_match(const Node& na, const Node& nb, bool& same_constant_names) const {
    if (na.op_type != nb.op_type || na.domain != nb.domain || na.inputs.size() != nb.inputs.size() ||
        na.outputs.size() != nb.outputs.size())
      return false;
    same_constant_names = true;
    for (size_t i = 0; i < na.inputs.size(); ++i) {
      const std::string& ia = na.inputs[i];
      const std::string& ib = nb.inputs[i];
      switch (kind_of(ia)) {
        case InputKind::Omitted:
          if (!ib.empty()) return false;
          break;
        case InputKind::Paired:
          if (a_to_b_.at(ia) != ib) return false;
          break;
        case InputKind::Constant:
          if (!b_.constants.count(ib)) return false;
          same_constant_names = same_constant_names && ia == ib;
          break;
        case InputKind::Unknown: return false;
      }
    }
    for (const auto& o : nb.outputs)
      if (!o.empty() && b_paired_.count(o)) return false;
    return true;
  }

  void pair_by_structure() {
    for (size_t k = 0; k < a_.g.nodes.size(); ++k) {
      const Node& na = a_.g.nodes[k];
      bool open = std::any_of(na.outputs.begin(), na.outputs.end(),
                              [&](const auto& o) { return !o.empty() && !a_to_b_.count(o); });
      auto anchor = std::find_if(na.inputs.begin(), na.inputs.end(),
                                 [&](const auto& in) { return kind_of(in) == InputKind::Paired; });
      if (!open || anchor == na.inputs.end()) continue;
      auto readers = b_.consumers.find(a_to_b_.at(*anchor));
      if (readers == b_.consumers.end()) continue;
      // Exactly one candidate, or exactly one whose weights carry the same names.
      std::vector<size_t> candidates, same_names;
      for (size_t kb : readers->second) {
        bool same = false;
        if (!inputs_match(na, b_.g.nodes[kb], same)) continue;
        if (std::find(candidates.begin(), candidates.end(), kb) != candidates.end()) continue;
        candidates.push_back(kb);
        if (same) same_names.push_back(kb);
      }
      const std::vector<size_t>& pick = candidates.size() == 1 ? candidates : same_names;
      if (pick.size() != 1) continue;
      const Node& nb = b_.g.nodes[pick[0]];
      for (size_t o = 0; o < na.outputs.size(); ++o)
        if (!na.outputs[o].empty() && !nb.outputs[o].empty() && !a_to_b_.count(na.outputs[o]))
          add(na.outputs[o], nb.outputs[o], PairedBy::Structure);
    }
  }

  Side a_, b_;
  std::map<std::string, std::string> a_to_b_;
  std::set<std::string> b_paired_;
  std::vector<TensorPair> pairs_;
};

}  // namespace

std::vector<TensorPair> pair_tensors(const Model& model, const Model& ref) { return Pairing(model, ref).run(); }

}  // namespace ms::analysis
