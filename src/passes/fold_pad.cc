// fold_pad: a zero constant-mode Pad of the spatial dims only, feeding Conv or AveragePool with
// count_include_pad = 1, becomes part of the consumer's own padding (both pad with zeros):
//   Conv(Pad(x, p), pads = q) = Conv(x, pads = q + p)
// Pad's pads are [begin of every dim..., end of every dim...]; Conv's are [begin of each spatial
// dim..., end of each spatial dim...].
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t pad, consumer;
  std::vector<int64_t> pads;
};

class PadPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Conv", "AveragePool"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    const Node* pad = input_producer(rw, n, 0, "Pad");
    if (!pad) return NoMatch{};
    if (n.op_type == "AveragePool") {
      const Attribute* cip = n.attr("count_include_pad");
      if (!cip || cip->i != 1) return NoMatch{"AveragePool does not count padded zeros"};
    }
    if (const Attribute* ap = n.attr("auto_pad"); ap && ap->s != "NOTSET" && !ap->s.empty()) return NoMatch{"auto_pad is set"};
    if (const Attribute* m = pad->attr("mode"); m && m->s != "constant") return NoMatch{"Pad mode is not constant"};
    if (pad->inputs.size() > 3 && !pad->inputs[3].empty()) return NoMatch{"Pad has axes"};
    if (pad->inputs.size() > 2 && !pad->inputs[2].empty()) {
      const Tensor* v = rw.constant(pad->inputs[2]);
      if (!v || v->numel() != 1 || v->as_double(0) != 0) return NoMatch{"Pad value is not zero"};
    }
    const Tensor* pt = pad->inputs.size() > 1 ? rw.constant(pad->inputs[1]) : nullptr;
    if (!pt) return NoMatch{"pads are not constant"};
    const std::vector<int64_t> p = pt->to_int64_vector();
    const size_t rank = p.size() / 2;
    if (rank < 3) return NoMatch{"input rank below 3"};
    for (int64_t v : p)
      if (v < 0) return NoMatch{"Pad crops"};
    if (p[0] || p[1] || p[rank] || p[rank + 1]) return NoMatch{"Pad pads batch or channels"};
    const size_t spatial = rank - 2;
    std::vector<int64_t> q(2 * spatial, 0);
    if (const Attribute* a = n.attr("pads"); a && !a->ints.empty()) {
      if (a->ints.size() != q.size()) return NoMatch{"pads attribute has the wrong length"};
      q = a->ints;
    }
    for (size_t d = 0; d < spatial; ++d) {
      q[d] += p[2 + d];
      q[spatial + d] += p[rank + 2 + d];
    }
    if (!rw.only_used_by(n.inputs[0], index)) return NoMatch{"Pad output has another reader"};
    return Found{static_cast<size_t>(rw.producer_index(n.inputs[0])), index, q};
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    Node n = rw.node(f.consumer);
    n.inputs[0] = rw.node(f.pad).inputs[0];
    n.attrs["pads"] = Attribute::of_ints(f.pads);
    rw.replace({f.pad, f.consumer}, {std::move(n)});
  }
};

}  // namespace

std::unique_ptr<Pass> make_fold_pad() {
  return std::make_unique<PatternPass>("fold_pad", "zero Pad folded into Conv/AveragePool padding",
                                       single_pattern<PadPattern>());
}

}  // namespace ms::passes
