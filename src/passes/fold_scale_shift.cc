// fold_scale_shift: a constant per-channel (or scalar) Mul, Div, Add or Sub right after Conv,
// ConvTranspose or Gemm folds into its weight and bias (passes/channel_fold.h):
//   op(x)*c = op(x)*s with s = c;   op(x)/c: s = 1/c;   op(x)+c: t = c;   op(x)-c: t = -c.
// The constant must broadcast along the output's channel axis only (shape [C,1,1], [1,C,1,1],
// [1], scalar for an NCHW output), so that the output shape does not change.
#include "ops/channel_layout.h"
#include "passes/channel_fold.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  ChannelFold fold;
  size_t op;
};

class ScaleShiftPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"Mul", "Div", "Add", "Sub"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& n = rw.node(index);
    if (n.inputs.size() != 2) return NoMatch{};
    const bool commutes = n.op_type == "Mul" || n.op_type == "Add";
    for (size_t x = 0; x < (commutes ? 2u : 1u); ++x) {
      const Tensor* c = rw.constant(n.inputs[1 - x]);
      const int p = rw.producer_index(n.inputs[x]);
      if (!c || p < 0 || !dtype_is_float(c->dtype())) continue;
      auto channels = foldable_channels(rw, p);
      if (auto* no = std::get_if<NoMatch>(&channels)) return *no;
      if (!rw.only_used_by(n.inputs[x], index)) return NoMatch{"producer output has another reader"};
      const TypeInfo* yt = rw.type(n.inputs[x]);
      if (!yt || !yt->shape) return NoMatch{"producer output rank unknown"};
      const int rank = static_cast<int>(yt->shape->size());
      const int axis = channel_layout_of(rw.node(p))->output_axis;
      const int64_t C = std::get<int64_t>(channels);
      if (c->rank() > rank) return NoMatch{"constant has a higher rank than the output"};
      bool per_channel = c->numel() == 1 || c->numel() == C;
      for (int d = 0; d < c->rank(); ++d) {
        const int out_d = rank - c->rank() + d;
        if (c->dim(d) != 1 && !(out_d == axis && c->dim(d) == C)) per_channel = false;
      }
      if (!per_channel) return NoMatch{"constant is not per output channel"};
      std::vector<double> s(C, 1.0), t(C, 0.0);
      for (int64_t k = 0; k < C; ++k) {
        const double v = c->as_double(c->numel() == 1 ? 0 : k);
        if (n.op_type == "Mul") s[k] = v;
        else if (n.op_type == "Div") {
          if (v == 0) return NoMatch{"division by zero"};
          s[k] = 1.0 / v;
        } else if (n.op_type == "Add") t[k] = v;
        else t[k] = -v;
      }
      return Found{plan_channel_fold(rw, p, s, t), index};
    }
    return NoMatch{};
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    const std::string out = rw.node(f.op).outputs[0];
    apply_channel_fold(rw, f.fold, {f.fold.index, f.op}, out);
  }
};

}  // namespace

std::unique_ptr<Pass> make_fold_scale_shift() {
  return std::make_unique<PatternPass>("fold_scale_shift", "constant per-channel Mul/Div/Add/Sub folded into Conv/Gemm weights and bias",
                                       single_pattern<ScaleShiftPattern>());
}

}  // namespace ms::passes
