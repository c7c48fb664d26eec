#include "passes/channel_fold.h"

#include "ops/channel_layout.h"

namespace ms::passes {

std::variant<int64_t, NoMatch> foldable_channels(Rewriter& rw, size_t index) {
  const Node& p = rw.node(index);
  auto layout = channel_layout_of(p);
  if (!layout) return NoMatch{};  // not a candidate at all
  if (p.outputs.size() != 1) return NoMatch{"producer has several outputs"};
  const Tensor* w = layout->weight_input < p.inputs.size() ? rw.constant(p.inputs[layout->weight_input]) : nullptr;
  if (!w || w->dtype() != DType::Float32 || w->rank() <= layout->weight_axis) return NoMatch{"weight is not a float32 constant"};
  const bool has_bias = layout->bias_input < p.inputs.size() && !p.inputs[layout->bias_input].empty();
  if (has_bias) {
    const Tensor* b = rw.constant(p.inputs[layout->bias_input]);
    if (!b || b->dtype() != DType::Float32) return NoMatch{"bias is not a float32 constant"};
    if (layout->bias_scaled_by_beta ? b->rank() > 2 : b->numel() != w->dim(layout->weight_axis))
      return NoMatch{"bias shape does not fit the channels"};
  }
  return w->dim(layout->weight_axis);
}

ChannelFold plan_channel_fold(Rewriter& rw, size_t index, const std::vector<double>& s, const std::vector<double>& t) {
  const Node& p = rw.node(index);
  const ChannelLayout layout = *channel_layout_of(p);
  ChannelFold f;
  f.index = index;
  f.node = p;
  const Tensor& w = *rw.constant(p.inputs[layout.weight_input]);
  const int64_t channels = w.dim(layout.weight_axis);
  int64_t inner = 1;
  for (int d = layout.weight_axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  f.weight = Tensor(DType::Float32, w.shape());
  const float* src = w.data<float>();
  float* dst = f.weight.data<float>();
  for (int64_t i = 0; i < w.numel(); ++i) dst[i] = static_cast<float>(src[i] * s[(i / inner) % channels]);

  const bool has_bias = layout.bias_input < p.inputs.size() && !p.inputs[layout.bias_input].empty();
  const Tensor* b = has_bias ? rw.constant(p.inputs[layout.bias_input]) : nullptr;
  double beta = 1;
  if (layout.bias_scaled_by_beta) {
    if (const Attribute* a = p.attr("beta")) beta = a->f;
    f.node.attrs["beta"] = Attribute::of_float(1.f);
  }
  // The bias as rows x channels (Gemm's C may be [M, N], [1, N], [N], [1] or a scalar).
  const int64_t rows = b && b->rank() == 2 ? b->dim(0) : 1;
  const int64_t bcols = b ? (b->rank() == 0 ? 1 : b->dim(-1)) : 1;
  f.bias = Tensor(DType::Float32, rows == 1 ? Shape{channels} : Shape{rows, channels});
  float* bo = f.bias.data<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < channels; ++c) {
      const double bv = b ? b->data<float>()[r * bcols + (bcols == 1 ? 0 : c)] : 0.0;
      bo[r * channels + c] = static_cast<float>(beta * bv * s[c] + t[c]);
    }
  return f;
}

void apply_channel_fold(Rewriter& rw, ChannelFold fold, const std::vector<size_t>& remove, const std::string& output) {
  const ChannelLayout layout = *channel_layout_of(fold.node);
  Node& n = fold.node;
  const std::string base = n.name.empty() ? output : n.name;
  n.inputs[layout.weight_input] = rw.add_initializer(base + "_folded_w", std::move(fold.weight));
  if (n.inputs.size() <= layout.bias_input) n.inputs.resize(layout.bias_input + 1);
  n.inputs[layout.bias_input] = rw.add_initializer(base + "_folded_b", std::move(fold.bias));
  n.outputs = {output};
  rw.replace(remove, {std::move(n)});
}

}  // namespace ms::passes
