// fold_batch_norm: BatchNormalization (inference form) after Conv, ConvTranspose or Gemm is a
// per-channel affine map and folds into the producer's weight and bias (passes/channel_fold.h):
//   BN(y) = (y - mean) * gamma / sqrt(var + eps) + beta = y * s + t,
//   s = gamma / sqrt(var + eps),  t = beta - mean * s.
// Not folded when the producer's output has another reader (it would change for that reader),
// when BN computes training statistics, or when its parameters are not constants.
#include <cmath>

#include "passes/channel_fold.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  ChannelFold fold;
  size_t bn;
};

class BatchNormPattern : public TypedPattern<Found> {
 public:
  std::vector<std::string> anchors() const override { return {"BatchNormalization"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& bn = rw.node(index);
    if (bn.inputs.size() != 5 || bn.outputs.size() != 1) return NoMatch{"BatchNormalization has training outputs"};
    if (const Attribute* tm = bn.attr("training_mode"); tm && tm->i != 0) return NoMatch{"training_mode is set"};
    const int p = rw.producer_index(bn.inputs[0]);
    if (p < 0) return NoMatch{};
    auto channels = foldable_channels(rw, p);
    if (auto* no = std::get_if<NoMatch>(&channels)) return *no;
    if (!rw.only_used_by(bn.inputs[0], index)) return NoMatch{"producer output has another reader"};
    const int64_t c = std::get<int64_t>(channels);
    const Tensor* prm[4];
    for (size_t i = 0; i < 4; ++i) {
      prm[i] = rw.constant(bn.inputs[i + 1]);
      if (!prm[i] || prm[i]->numel() != c || !dtype_is_float(prm[i]->dtype())) return NoMatch{"parameters are not constants per channel"};
    }
    double eps = 1e-5;
    if (const Attribute* e = bn.attr("epsilon")) eps = e->f;
    std::vector<double> s(c), t(c);
    for (int64_t k = 0; k < c; ++k) {
      s[k] = prm[0]->as_double(k) / std::sqrt(prm[3]->as_double(k) + eps);
      t[k] = prm[1]->as_double(k) - prm[2]->as_double(k) * s[k];
    }
    return Found{plan_channel_fold(rw, p, s, t), index};
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    const std::string out = rw.node(f.bn).outputs[0];
    apply_channel_fold(rw, f.fold, {f.fold.index, f.bn}, out);
  }
};

}  // namespace

std::unique_ptr<Pass> make_fold_batch_norm() {
  return std::make_unique<PatternPass>("fold_batch_norm", "BatchNormalization folded into Conv/ConvTranspose/Gemm",
                                       single_pattern<BatchNormPattern>());
}

}  // namespace ms::passes
