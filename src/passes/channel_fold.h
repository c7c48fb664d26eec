// Folding a per-output-channel affine map into the op that produces the channels:
//   op(x; W, b) * s + t = op(x; W * s, b * s + t)
// for ops linear in W with an additive per-channel bias (ops/channel_layout.h: Conv,
// ConvTranspose, Gemm, where for Gemm the bias term is beta * C, so C' = beta * C * s + t and
// beta' = 1). Shared by fold_batch_norm and fold_scale_shift.
#pragma once
#include <variant>

#include "passes/pass.h"

namespace ms::passes {

struct ChannelFold {
  size_t index = 0;  // the producing node
  Node node;         // its replacement, before the new weight/bias names are filled in
  Tensor weight, bias;
};

// Number of output channels of the node at `index` (its weight's channel axis), or why it cannot
// be folded into (no channel layout, weight or bias not a float32 constant).
std::variant<int64_t, NoMatch> foldable_channels(Rewriter& rw, size_t index);
// Computes the folded weight and bias (pure: nothing changes yet). s and t have one value per channel.
ChannelFold plan_channel_fold(Rewriter& rw, size_t index, const std::vector<double>& s, const std::vector<double>& t);
// Replaces the nodes `remove` (the producer and the consumers folded into it) by the folded node,
// whose output takes the name `output` (the last output of the folded pattern).
void apply_channel_fold(Rewriter& rw, ChannelFold fold, const std::vector<size_t>& remove, const std::string& output);

}  // namespace ms::passes
