// Upsample (all forms) and Resize-10 -> Resize-13. Both sample at output index / scale
// ("asymmetric") and pick the nearest pixel by floor when enlarging, ceil when shrinking; Resize-13
// names one nearest_mode for all axes, so scales must be constant and all >= 1 or all <= 1.
#include "formats/onnx/opset_adapters.h"

namespace ms::onnx_format::adapters {
namespace {

// `enlarges`: the op only enlarges (Upsample requires scales >= 1), so floor is right even when the
// scales are only known at run time.
void set_nearest_mode(Node& n, UpgradeCtx& c, const std::vector<double>* scales, int version, bool enlarges) {
  const Attribute* mode = n.attr("mode");
  if (mode && mode->s != "nearest") return;
  if (!scales && enlarges) {
    n.attrs["nearest_mode"] = Attribute::of_string("floor");
    return;
  }
  if (!scales) c.unsupported(n, version, "nearest mode needs constant scales to choose Resize's nearest_mode");
  bool up = true, down = true;
  for (double s : *scales) up &= s >= 1, down &= s <= 1;
  if (!up && !down) c.unsupported(n, version, "nearest mode enlarges some axes and shrinks others, which one Resize cannot express");
  n.attrs["nearest_mode"] = Attribute::of_string(up ? "floor" : "ceil");
}

}  // namespace

void upsample_to_resize(Node& n, UpgradeCtx& c) {
  std::vector<double> scales;
  bool known = true;
  std::string scales_name;
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {  // Upsample-9
    scales_name = n.inputs[1];
    if (const Tensor* t = c.constant_of(scales_name)) scales = t->to_double_vector();
    else known = false;
  } else {
    std::vector<float> f;
    if (const Attribute* s = n.attr("scales")) f = s->floats;  // Upsample-7
    else if (n.attr("height_scale") && n.attr("width_scale")) f = {1, 1, n.attr("height_scale")->f, n.attr("width_scale")->f};
    else c.unsupported(n, 10, "has no scales (input, attribute or height_scale/width_scale)");
    for (float v : f) scales.push_back(v);
    scales_name = c.add_initializer(n.name + "_scales", Tensor::from_vector<float>(f, {int64_t(f.size())}));
  }
  if (const Attribute* m = n.attr("mode"); m && m->s == "bilinear") n.attrs["mode"] = Attribute::of_string("linear");
  const Attribute* m = n.attr("mode");
  if (m && m->s != "nearest" && m->s != "linear") c.unsupported(n, 10, "mode '" + m->s + "' has no Resize equivalent");
  set_nearest_mode(n, c, known ? &scales : nullptr, 10, true);
  for (const char* k : {"scales", "height_scale", "width_scale"}) drop_attr(n, k);
  n.op_type = "Resize";
  n.inputs = {n.inputs.at(0), "", scales_name};
  n.attrs["coordinate_transformation_mode"] = Attribute::of_string("asymmetric");
}

void resize_11(Node& n, UpgradeCtx& c) {
  if (n.inputs.size() < 2) c.unsupported(n, 11, "has no scales input");
  const Tensor* t = c.constant_of(n.inputs[1]);
  std::vector<double> scales;
  if (t) scales = t->to_double_vector();
  set_nearest_mode(n, c, t ? &scales : nullptr, 11, false);
  n.inputs = {n.inputs[0], "", n.inputs[1]};
  n.attrs["coordinate_transformation_mode"] = Attribute::of_string("asymmetric");
}

}  // namespace ms::onnx_format::adapters
