// fold_transpose_into_gemm: a 2-D Transpose feeding Gemm (or a 2-D MatMul, which becomes a Gemm)
// is absorbed by Gemm's own transpose flags:
//   Gemm(Transpose(A), B, transA = t) = Gemm(A, B, transA = !t)   (likewise for B)
//   MatMul(Transpose(A), B) = Gemm(A, B, transA = 1)               (2-D A and B)
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t node;
  std::vector<std::pair<size_t, size_t>> transposes;  // (input slot, Transpose node index)
};

class TransposeGemmPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Gemm", "MatMul"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    if (n.op_type == "MatMul") {
      auto sa = rw.static_shape(n.inputs[0]), sb = rw.static_shape(n.inputs[1]);
      if (!sa || !sb || sa->size() != 2 || sb->size() != 2) return NoMatch{};
    }
    Found f{index, {}};
    for (size_t slot = 0; slot < 2; ++slot) {
      const Node* t = input_producer(rw, n, slot, "Transpose");
      if (!t) continue;
      const Attribute* perm = t->attr("perm");
      auto shape = rw.static_shape(t->inputs[0]);
      const bool swaps = (perm && perm->ints == std::vector<int64_t>{1, 0}) || (!perm && shape && shape->size() == 2);
      if (!swaps) continue;
      if (!rw.only_used_by(n.inputs[slot], index)) {
        if (!rw.constant(t->inputs[0])) continue;  // another reader keeps the Transpose; nothing gained
      }
      f.transposes.emplace_back(slot, static_cast<size_t>(rw.producer_index(n.inputs[slot])));
    }
    if (f.transposes.empty()) return NoMatch{};
    return f;
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    Node n = rw.node(f.node);
    n.op_type = "Gemm";
    std::vector<size_t> remove{f.node};
    for (const auto& [slot, ti] : f.transposes) {
      const char* flag = slot == 0 ? "transA" : "transB";
      const Attribute* a = n.attr(flag);
      n.attrs[flag] = Attribute::of_int(a && a->i ? 0 : 1);
      const std::string t_out = n.inputs[slot];
      n.inputs[slot] = rw.node(ti).inputs[0];
      if (rw.only_used_by(t_out, f.node)) remove.push_back(ti);
    }
    rw.replace(remove, {std::move(n)});
  }
};

}  // namespace

std::unique_ptr<Pass> make_fold_transpose_into_gemm() {
  return std::make_unique<PatternPass>("fold_transpose_into_gemm", "2-D Transpose absorbed by Gemm's transA/transB",
                                       single_pattern<TransposeGemmPattern>());
}

}  // namespace ms::passes
