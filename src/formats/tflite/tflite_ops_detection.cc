// TFLite_Detection_PostProcess (the SSD detectors' custom op): its custom options are a flexbuffer
// map whose keys become the attributes of the project's DetectionPostProcess op (src/ops/
// detection_post_process.cc), which holds the semantics.
#include <flatbuffers/flexbuffers.h>

#include "formats/tflite/tflite_context.h"
#include "ops/ms_domain.h"

namespace ms::tflite_format {

namespace {

void detection_post_process(TfliteContext& c, const Op& op) {
  const auto* opts = op.custom_options();
  if (!opts || opts->size() == 0) fail("has no custom options (a flexbuffer map of the NMS parameters)");
  if (!flexbuffers::VerifyBuffer(opts->data(), opts->size())) fail("custom options are not a valid flexbuffer");
  auto root = flexbuffers::GetRoot(opts->data(), opts->size());
  if (!root.IsMap()) fail("custom options are not a flexbuffer map");
  auto map = root.AsMap();
  std::map<std::string, Attribute> attrs;
  // Required keys: TFLite itself reads them without defaults.
  for (const char* key : {"max_detections", "max_classes_per_detection", "num_classes"}) {
    auto v = map[key];
    if (v.IsNull()) fail("custom options lack '{}'", key);
    if (v.AsInt64() < 1 || v.AsInt64() > 1'000'000) fail("custom option '{}' = {} is out of range", key, v.AsInt64());
    attrs[key] = Attribute::of_int(v.AsInt64());
  }
  for (const char* key : {"nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale", "h_scale", "w_scale"}) {
    auto v = map[key];
    if (v.IsNull()) fail("custom options lack '{}'", key);
    attrs[key] = Attribute::of_float(v.AsFloat());
  }
  for (const char* key : {"y_scale", "x_scale", "h_scale", "w_scale"})
    if (attrs[key].f == 0.f) fail("custom option '{}' is 0", key);
  // Optional keys, TFLite's defaults.
  auto per_class = map["detections_per_class"];
  attrs["detections_per_class"] = Attribute::of_int(per_class.IsNull() ? 100 : per_class.AsInt64());
  auto regular = map["use_regular_nms"];
  attrs["use_regular_nms"] = Attribute::of_int(!regular.IsNull() && regular.AsBool() ? 1 : 0);

  std::vector<std::string> outs;
  for (size_t k = 0; k < 4; ++k) outs.push_back(c.b.unique_name(c.out_hint(op, k)));
  Node& n = c.b.add_node("DetectionPostProcess", {c.input(op, 0), c.input(op, 1), c.input(op, 2)}, outs, std::move(attrs));
  n.domain = kMsDomain;
  for (size_t k = 0; k < 4; ++k) c.set_output(op, k, outs[k]);
}

}  // namespace

void add_detection_converters(ConverterTables& t) { t.custom["TFLite_Detection_PostProcess"] = detection_post_process; }

}  // namespace ms::tflite_format
