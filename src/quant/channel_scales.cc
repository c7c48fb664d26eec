#include "quant/channel_scales.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "ops/quant_weight.h"
#include "quant/fresh_names.h"

namespace ms::quant {
namespace {

// How often each value is read, by this graph's nodes and by the bodies they hold (a body may read
// any outer name).
void count_reads(const Graph& g, std::map<std::string, int>& reads) {
  for (const auto& n : g.nodes) {
    for (const auto& s : n.inputs)
      if (!s.empty()) ++reads[s];
    for (const auto& [k, a] : n.attrs) {
      if (a.g) count_reads(*a.g, reads);
      for (const auto& sg : a.graphs) count_reads(*sg, reads);
    }
  }
  for (const auto& o : g.outputs) ++reads[o.name];
}

const Tensor* initializer(const Graph& g, const std::string& name, DType dtype) {
  auto it = g.initializers.find(name);
  return it != g.initializers.end() && it->second.dtype() == dtype ? &it->second : nullptr;
}

bool all_zero(const Tensor& t) {
  for (double v : t.to_double_vector())
    if (v != 0) return false;
  return true;
}

// The bias a per-channel divide can apply to: one value per channel, along Y's channel axis.
bool per_channel_bias(const Tensor& b, int64_t channels, int out_axis) {
  if (b.numel() != channels) return false;
  if (out_axis >= 0) return b.rank() == 1;
  for (int d = 0; d + 1 < b.rank(); ++d)
    if (b.dim(d) != 1) return false;
  return b.rank() >= 1;
}

class Mover {
 public:
  explicit Mover(Model& m) : names_(m.graph) {}

  size_t run(Graph& g) {
    size_t moved = 0;
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      for (auto& [key, a] : g.nodes[k].attrs) {
        if (a.g) moved += run(*a.g);
        for (auto& sg : a.graphs) moved += run(*sg);
      }
    }
    std::map<std::string, int> reads;
    count_reads(g, reads);
    for (size_t k = 0; k < g.nodes.size(); ++k)
      if (g.nodes[k].op_type == "DequantizeLinear" && g.nodes[k].domain.empty() && try_move(g, k, reads)) ++moved;
    return moved;
  }

 private:
  // Rewrites DequantizeLinear g.nodes[dq] and its consumer when the identity in the header applies.
  bool try_move(Graph& g, size_t dq, std::map<std::string, int>& reads) {
    const Node d = g.nodes[dq];
    if (d.inputs.size() < 2 || d.outputs.size() != 1 || d.attr("block_size")) return false;
    const Tensor* q = initializer(g, d.inputs[0], DType::Int8);
    const Tensor* s = initializer(g, d.inputs[1], DType::Float32);
    if (!q || !s || s->rank() != 1 || s->numel() < 2 || q->rank() < 1) return false;
    const Tensor* z = d.inputs.size() > 2 && !d.inputs[2].empty() ? initializer(g, d.inputs[2], DType::Int8) : nullptr;
    if (d.inputs.size() > 2 && !d.inputs[2].empty() && (!z || !all_zero(*z))) return false;
    const Attribute* axis_attr = d.attr("axis");
    const int axis = int(axis_attr ? (axis_attr->i < 0 ? axis_attr->i + q->rank() : axis_attr->i) : 1);
    const int64_t channels = s->numel();
    if (axis < 0 || axis >= q->rank() || q->dim(axis) != channels) return false;
    const double param_bytes = double(channels * kMindIRChannelParamBytes);
    if (param_bytes <= kNativeParamShare * double(q->numel())) return false;  // MindSpore's own form costs little
    const std::vector<double> scale = s->to_double_vector();
    for (double v : scale)
      if (!(v > 0) || !std::isfinite(v)) return false;

    const std::string& w = d.outputs[0];
    if (reads[w] != 1) return false;
    size_t c = dq + 1;
    while (c < g.nodes.size() && std::find(g.nodes[c].inputs.begin(), g.nodes[c].inputs.end(), w) == g.nodes[c].inputs.end()) ++c;
    if (c == g.nodes.size()) return false;
    const Node& user = g.nodes[c];
    const auto spec = quant_weight_spec(user, int(q->rank()));
    if (!spec || !spec->output_channel_axis || spec->channel_axis != axis || int(user.inputs.size()) <= spec->input ||
        user.inputs[spec->input] != w || user.outputs.empty() || user.outputs[0].empty())
      return false;
    const int out_axis = *spec->output_channel_axis;
    std::string bias;
    if (spec->bias_input >= 0 && int(user.inputs.size()) > spec->bias_input) bias = user.inputs[spec->bias_input];
    // The bias divided per channel, so that the Mul brings it back. An all-zero channel has a tiny
    // scale that a bias divided by it would overflow: such weights keep their form.
    std::vector<float> divided;
    if (!bias.empty()) {
      const Tensor* b = initializer(g, bias, DType::Float32);
      if (!b || reads[bias] != 1 || !per_channel_bias(*b, channels, out_axis)) return false;
      for (int64_t i = 0; i < channels; ++i) {
        divided.push_back(static_cast<float>(double(b->data<float>()[i]) / scale[size_t(i)]));
        if (!std::isfinite(divided.back())) return false;
      }
    }

    // The rewrite.
    // A new tensor: copies of the model share initializer storage.
    if (!bias.empty()) g.initializers[bias] = Tensor::from_vector<float>(divided, g.initializers[bias].shape());
    // Y's channel axis: counted from the end, or (Conv) from the start of an output of the weight's rank.
    Shape mul_shape{channels};
    if (out_axis >= 0)
      for (int64_t r = out_axis + 1; r < q->rank(); ++r) mul_shape.push_back(1);
    const std::string scale_name = names_.fresh(w + "_channel_scale");
    g.initializers[scale_name] = s->reshaped(mul_shape);
    const std::string unit = names_.fresh(w + "_unit_scale");
    g.initializers[unit] = Tensor::scalar<float>(1.f);
    for (size_t i = 1; i < d.inputs.size(); ++i)
      if (!d.inputs[i].empty() && --reads[d.inputs[i]] == 0) g.initializers.erase(d.inputs[i]);
    Node& dn = g.nodes[dq];
    dn.inputs = {d.inputs[0], unit};
    dn.attrs.erase("axis");

    Node mul;
    mul.name = names_.fresh(user.name.empty() ? w + "_channel_scale_Mul" : user.name + "_channel_scale");
    mul.op_type = "Mul";
    const std::string y = user.outputs[0];
    const std::string unscaled = names_.fresh(y + "_unscaled");
    mul.inputs = {unscaled, scale_name};
    mul.outputs = {y};
    g.nodes[c].outputs[0] = unscaled;
    g.nodes.insert(g.nodes.begin() + std::ptrdiff_t(c + 1), std::move(mul));
    return true;
  }

  Names names_;
};

}  // namespace

size_t move_channel_scales_after_ops(Model& m) {
  Mover mover(m);
  return mover.run(m.graph);
}

}  // namespace ms::quant
