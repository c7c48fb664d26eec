// Softmax, LogSoftmax and Hardmax before 13 coerce the input to 2-D at `axis` (default 1) and
// normalize over the flattened trailing dims; from 13 they normalize over the one `axis`. The two
// agree when axis is the last dim; otherwise Flatten -> op over axis 1 -> Reshape to the input's shape.
#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format::adapters {

void softmax_13(Node& n, UpgradeCtx& c) {
  const Attribute* a = n.attr("axis");
  const int64_t axis = a ? a->i : 1;
  const int rank = c.rank_of(n.inputs.at(0));
  if (rank >= 1 && (axis == rank - 1 || axis == -1)) {
    n.attrs["axis"] = Attribute::of_int(-1);
    return;
  }
  const std::string x = n.inputs[0], y = n.outputs.at(0);
  const std::string flat = c.fresh(x + "_2d"), flat_y = c.fresh(y + "_2d"), shape = c.fresh(x + "_shape");
  c.add_node(true, n, "Flatten", {x}, {flat}).attrs["axis"] = Attribute::of_int(axis);
  c.add_node(true, n, "Shape", {x}, {shape});
  n.inputs[0] = flat;
  n.outputs[0] = flat_y;
  n.attrs["axis"] = Attribute::of_int(1);
  c.add_node(false, n, "Reshape", {flat_y, shape}, {y});
}

}  // namespace ms::onnx_format::adapters
