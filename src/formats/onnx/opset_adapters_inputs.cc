// Attributes that became inputs: the attribute's value becomes an initializer of the node's graph.
#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format::adapters {
namespace {

// Appends `name` as input `index`, with "" for omitted optional inputs in between.
void set_input(Node& n, size_t index, const std::string& name) {
  if (n.inputs.size() <= index) n.inputs.resize(index + 1);
  n.inputs[index] = name;
}

// The int64 list of attribute `key` as an initializer input `index`; false when absent.
bool ints_to_input(Node& n, UpgradeCtx& c, const std::string& key, size_t index) {
  const Attribute* a = n.attr(key);
  if (!a) return false;
  set_input(n, index, c.add_initializer(n.name + "_" + key, int64_vector(a->ints)));
  drop_attr(n, key);
  return true;
}

DType input_dtype(const Node& n, UpgradeCtx& c, int version, const std::string& what) {
  const DType dt = c.dtype_of(n.inputs.at(0));
  if (dt == DType::Undefined)
    c.unsupported(n, version, "needs " + what + " as an input of the data's dtype, and the dtype of '" + n.inputs[0] +
                                  "' is not known");
  return dt;
}

}  // namespace

void clip_11(Node& n, UpgradeCtx& c) {
  const Attribute* lo = n.attr("min");
  const Attribute* hi = n.attr("max");
  if (!lo && !hi) return;
  const DType dt = input_dtype(n, c, 11, "min/max");
  n.inputs.resize(1);
  if (lo) set_input(n, 1, c.add_initializer(n.name + "_min", scalar_of(dt, lo->f)));
  if (hi) set_input(n, 2, c.add_initializer(n.name + "_max", scalar_of(dt, hi->f)));
  drop_attr(n, "min");
  drop_attr(n, "max");
}

void slice_10(Node& n, UpgradeCtx& c) {
  n.inputs.resize(1);
  if (!ints_to_input(n, c, "starts", 1) || !ints_to_input(n, c, "ends", 2))
    c.unsupported(n, 10, "needs the starts and ends attributes of Slice-1");
  ints_to_input(n, c, "axes", 3);
}

void pad_2(Node& n, UpgradeCtx&) {
  if (auto it = n.attrs.find("paddings"); it != n.attrs.end()) {
    n.attrs["pads"] = it->second;
    n.attrs.erase(it);
  }
}

void pad_11(Node& n, UpgradeCtx& c) {
  n.inputs.resize(1);
  if (!ints_to_input(n, c, "pads", 1)) c.unsupported(n, 11, "needs the pads attribute of Pad-2");
  const Attribute* v = n.attr("value");
  const Attribute* mode = n.attr("mode");
  if (v && v->f != 0 && (!mode || mode->s == "constant"))
    set_input(n, 2, c.add_initializer(n.name + "_value", scalar_of(input_dtype(n, c, 11, "the pad value"), v->f)));
  drop_attr(n, "value");
}

void topk_10(Node& n, UpgradeCtx& c) {
  const Attribute* k = n.attr("k");
  if (!k) c.unsupported(n, 10, "needs the k attribute of TopK-1");
  n.inputs.resize(1);
  set_input(n, 1, c.add_initializer(n.name + "_k", int64_vector({k->i})));
  drop_attr(n, "k");
}

void axes_to_input_13(Node& n, UpgradeCtx& c) {
  n.inputs.resize(1);
  ints_to_input(n, c, "axes", 1);
}

void split_2(Node& n, UpgradeCtx& c) {
  // Split-1 could take the sizes as a second input; from 2 they are the attribute only.
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* s = c.constant_of(n.inputs[1]);
    if (!s) c.unsupported(n, 2, "takes split sizes as an attribute, and input '" + n.inputs[1] + "' is not a constant");
    n.attrs["split"] = Attribute::of_ints(s->to_int64_vector());
  }
  n.inputs.resize(1);
}

void split_13(Node& n, UpgradeCtx& c) {
  n.inputs.resize(1);
  ints_to_input(n, c, "split", 1);
}

void reshape_5(Node& n, UpgradeCtx& c) {
  drop_attr(n, "consumed_inputs");
  n.inputs.resize(1);
  if (!ints_to_input(n, c, "shape", 1)) c.unsupported(n, 5, "needs the shape attribute of Reshape-1");
}

void dropout_10(Node& n, UpgradeCtx& c) {
  // The mask had the data's dtype before 10 and is bool since: cast it back for its consumers.
  if (n.outputs.size() < 2 || n.outputs[1].empty()) return;
  const DType dt = input_dtype(n, c, 10, "a mask");
  const std::string mask = n.outputs[1];
  n.outputs[1] = c.fresh(mask + "_bool");
  c.add_node(false, n, "Cast", {n.outputs[1]}, {mask}).attrs["to"] = Attribute::of_int(int64_t(dt));
}

void dropout_12(Node& n, UpgradeCtx& c) {
  const Attribute* r = n.attr("ratio");
  if (r) {
    n.inputs.resize(1);
    set_input(n, 1, c.add_initializer(n.name + "_ratio", Tensor::scalar<float>(r->f)));
  }
  drop_attr(n, "ratio");
}

}  // namespace ms::onnx_format::adapters
