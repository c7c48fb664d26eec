// fuse_attention: the multi-head attention chain PyTorch exports becomes com.mstools
// MultiHeadAttention (ops/multi_head_attention.cc), which is defined as exactly this chain:
//   Qh = Transpose(Reshape(Q, [B,S,H,D]), [0,2,1,3])     Kt = Transpose(Reshape(K, ...), [0,2,3,1])
//   Vh = Transpose(Reshape(V, ...), [0,2,1,3])
//   P  = Softmax(MatMul(Qh, Kt) / c (or * c) [+ mask], axis = -1)
//   Y  = Reshape(Transpose(MatMul(P, Vh), [0,2,1,3]), [B,S,H*D])
//   = MultiHeadAttention(Q, K, V [, mask], num_heads = H, scale = 1/c (or c))
// Needs constant reshape shapes (fold_constants first) and intermediates read only in the chain.
#include "ops/ms_domain.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  std::vector<size_t> nodes;
  std::string q, k, v, mask, out;
  int64_t heads = 0;
  float scale = 1;
};

class AttentionPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Softmax"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& sm = rw.node(index);
    Found f;
    f.nodes = {index};
    auto rank = rw.static_shape(sm.inputs[0]);
    if (!rank || rank->size() != 4) return NoMatch{};
    if (const Attribute* a = sm.attr("axis"); a && a->i != -1 && a->i != 3) return NoMatch{"Softmax is not over the last axis"};
    // Scores: [Add(mask)] <- Div/Mul(c) <- MatMul(Qh, Kt).
    std::string s = sm.inputs[0];
    size_t reader = index;
    auto take = [&](const std::string& value, const std::string& op) -> const Node* {
      const int p = rw.producer_index(value);
      if (p < 0 || rw.node(p).op_type != op || !rw.node(p).domain.empty() || !rw.only_used_by(value, reader)) return nullptr;
      f.nodes.push_back(p);
      reader = p;
      return &rw.node(p);
    };
    const int sp = rw.producer_index(s);
    if (sp >= 0 && rw.node(sp).op_type == "Add") {
      const Node* add = take(s, "Add");
      if (!add) return NoMatch{"the scores have another reader"};
      for (size_t i = 0; i < 2 && f.mask.empty(); ++i) {
        const int pi = rw.producer_index(add->inputs[i]);
        if (pi >= 0 && (rw.node(pi).op_type == "Div" || rw.node(pi).op_type == "Mul")) {
          s = add->inputs[i];
          f.mask = add->inputs[1 - i];
        }
      }
      if (f.mask.empty()) return NoMatch{};
    }
    const int scp = rw.producer_index(s);
    if (scp < 0) return NoMatch{};
    const std::string scale_op = rw.node(scp).op_type;
    const Node* scale = (scale_op == "Div" || scale_op == "Mul") ? take(s, scale_op) : nullptr;
    if (!scale) return NoMatch{};
    auto c = scalar_constant(rw, scale->inputs[1]);
    if (!c || *c == 0) return NoMatch{"scale is not a constant"};
    f.scale = static_cast<float>(scale_op == "Div" ? 1.0 / *c : *c);
    const Node* qk = take(scale->inputs[0], "MatMul");
    if (!qk) return NoMatch{};
    const size_t qk_i = reader;
    auto q = heads_input(rw, qk->inputs[0], qk_i, {0, 2, 1, 3}, f);
    auto k = heads_input(rw, qk->inputs[1], qk_i, {0, 2, 3, 1}, f);
    if (!q || !k) return NoMatch{"Q/K are not reshaped and transposed into heads"};
    // Output side: MatMul(P, Vh) -> Transpose -> Reshape.
    const auto& readers = rw.consumers(sm.outputs[0]);
    if (readers.size() != 1 || rw.is_graph_output(sm.outputs[0])) return NoMatch{"probabilities have another reader"};
    const size_t pv_i = readers[0];
    const Node& pv = rw.node(pv_i);
    if (pv.op_type != "MatMul" || pv.inputs[0] != sm.outputs[0]) return NoMatch{};
    f.nodes.push_back(pv_i);
    auto v = heads_input(rw, pv.inputs[1], pv_i, {0, 2, 1, 3}, f);
    if (!v) return NoMatch{"V is not reshaped and transposed into heads"};
    const auto& r2 = rw.consumers(pv.outputs[0]);
    if (r2.size() != 1 || rw.is_graph_output(pv.outputs[0])) return NoMatch{};
    const Node& tr = rw.node(r2[0]);
    const Attribute* perm = tr.attr("perm");
    if (tr.op_type != "Transpose" || !perm || perm->ints != std::vector<int64_t>{0, 2, 1, 3}) return NoMatch{};
    f.nodes.push_back(r2[0]);
    const auto& r3 = rw.consumers(tr.outputs[0]);
    if (r3.size() != 1 || rw.is_graph_output(tr.outputs[0]) || rw.node(r3[0]).op_type != "Reshape") return NoMatch{};
    const Node& merge = rw.node(r3[0]);
    f.nodes.push_back(r3[0]);
    auto qs = rw.static_shape(*q), vs = rw.static_shape(*v), os = rw.static_shape(merge.outputs[0]);
    if (!qs || !vs || !os || os->size() != 3 || (*os)[0] != (*qs)[0] || (*os)[1] != (*qs)[1] || (*os)[2] != (*vs)[2])
      return NoMatch{"merged heads do not have the [B, S, H*D] shape"};
    f.q = *q;
    f.k = *k;
    f.v = *v;
    f.out = merge.outputs[0];
    return f;
  }

  void rewrite(Rewriter& rw, const Found& f) override {
    Node n;
    n.op_type = "MultiHeadAttention";
    n.domain = kMsDomain;
    n.name = rw.fresh_name(f.out + "_Attention");
    n.inputs = {f.q, f.k, f.v};
    if (!f.mask.empty()) n.inputs.push_back(f.mask);
    n.outputs = {f.out};
    n.attrs["num_heads"] = Attribute::of_int(f.heads);
    n.attrs["scale"] = Attribute::of_float(f.scale);
    rw.require_domain(kMsDomain, kMsDomainVersion);
    rw.replace(f.nodes, {std::move(n)});
  }

 private:
  // value = Transpose(Reshape(X, [B, S, H, D]), perm), each read once: returns X (3-D) and sets
  // the head count (which must agree across Q, K and V).
  std::optional<std::string> heads_input(Rewriter& rw, const std::string& value, size_t reader, std::vector<int64_t> perm, Found& f) {
    const int ti = rw.producer_index(value);
    if (ti < 0 || !rw.only_used_by(value, reader)) return std::nullopt;
    const Node& t = rw.node(ti);
    const Attribute* p = t.attr("perm");
    if (t.op_type != "Transpose" || !p || p->ints != perm) return std::nullopt;
    const int ri = rw.producer_index(t.inputs[0]);
    if (ri < 0 || !rw.only_used_by(t.inputs[0], ti) || rw.node(ri).op_type != "Reshape") return std::nullopt;
    const Node& r = rw.node(ri);
    auto xs = rw.static_shape(r.inputs[0]), rs = rw.static_shape(r.outputs[0]);
    if (!xs || !rs || xs->size() != 3 || rs->size() != 4 || (*rs)[0] != (*xs)[0] || (*rs)[1] != (*xs)[1] ||
        (*rs)[2] * (*rs)[3] != (*xs)[2])
      return std::nullopt;
    if (f.heads != 0 && f.heads != (*rs)[2]) return std::nullopt;
    f.heads = (*rs)[2];
    f.nodes.push_back(ti);
    f.nodes.push_back(ri);
    return r.inputs[0];
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_attention() {
  return std::make_unique<PatternPass>("fuse_attention", "multi-head attention chain -> com.mstools MultiHeadAttention",
                                       [](const PassContext& ctx) {
                                         std::vector<std::unique_ptr<Pattern>> p;
                                         if (ctx.allow_ms_domain) p.push_back(std::make_unique<AttentionPattern>());
                                         return p;
                                       });
}

}  // namespace ms::passes
