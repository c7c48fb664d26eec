// Broadcasting before opset 7: binary ops took `broadcast`/`axis` (B aligned with A's dims from
// `axis`), Gemm a `broadcast` flag for C, PRelu a per-channel slope. Numpy broadcasting gives the
// same result once B has trailing 1-dims.
#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format::adapters {
namespace {

// Makes `value` (rank `rank`) read as `value` with `ones` trailing 1-dims: reshapes a constant,
// else inserts an Unsqueeze in front of the node. Returns the name to use.
std::string with_trailing_ones(Node& n, UpgradeCtx& c, const std::string& value, int rank, int ones, int version) {
  if (ones == 0) return value;
  if (auto it = c.graph.initializers.find(value); it != c.graph.initializers.end()) {
    Shape s = it->second.shape();
    s.resize(s.size() + ones, 1);
    return c.add_initializer(value + "_aligned", it->second.reshaped(s));
  }
  if (rank < 0) c.unsupported(n, version, "needs the rank of '" + value + "' to align it, and it is not known");
  std::vector<int64_t> axes;
  for (int k = 0; k < ones; ++k) axes.push_back(rank + k);
  const std::string out = c.fresh(value + "_aligned");
  c.add_node(true, n, "Unsqueeze", {value, c.add_initializer(n.name + "_axes", int64_vector(axes))}, {out});
  return out;
}

}  // namespace

void legacy_broadcast_7(Node& n, UpgradeCtx& c) {
  const Attribute* b = n.attr("broadcast");
  const Attribute* axis = n.attr("axis");
  if (b && b->i != 0 && axis && n.inputs.size() == 2) {
    const int ra = c.rank_of(n.inputs[0]), rb = c.rank_of(n.inputs[1]);
    if (ra < 0 || rb < 0) c.unsupported(n, 7, "needs the ranks of both inputs to replace broadcast/axis, and they are not known");
    const int64_t start = axis->i < 0 ? axis->i + ra : axis->i;
    const int64_t ones = ra - start - rb;
    if (start < 0 || ones < 0) c.unsupported(n, 7, fmt::format("broadcast axis {} does not fit input ranks {} and {}", axis->i, ra, rb));
    n.inputs[1] = with_trailing_ones(n, c, n.inputs[1], rb, int(ones), 7);
  }
  drop_attr(n, "broadcast");
  drop_attr(n, "axis");
}

void gemm_7(Node& n, UpgradeCtx&) {
  // broadcast=0 required C to be M x N already, which unidirectional broadcasting leaves as it is.
  drop_attr(n, "broadcast");
}

void prelu_7(Node& n, UpgradeCtx& c) {
  // PRelu-6 applied a 1-D slope of C values per channel (axis 1); numpy aligns it with the last axis.
  if (n.inputs.size() < 2) return;
  const int rx = c.rank_of(n.inputs[0]), rs = c.rank_of(n.inputs[1]);
  if (rs != 1) return;
  const Tensor* slope = c.constant_of(n.inputs[1]);
  if (slope && slope->numel() == 1) return;
  if (rx < 0) c.unsupported(n, 7, "needs the rank of '" + n.inputs[0] + "' to place the per-channel slope, and it is not known");
  if (rx <= 2) return;  // [N, C]: channel axis and last axis are the same
  n.inputs[1] = with_trailing_ones(n, c, n.inputs[1], 1, rx - 2, 7);
}

}  // namespace ms::onnx_format::adapters
