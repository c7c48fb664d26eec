// com.mstools DetectionPostProcess: TFLite's TFLite_Detection_PostProcess (SSD box decoding + NMS).
//   inputs     box_encodings [N, boxes, >=4] (ty, tx, th, tw per anchor; extra coordinates ignored),
//              class_predictions [N, boxes, num_classes + label_offset] (leading background columns),
//              anchors [boxes, 4] (ycenter, xcenter, h, w)
//   outputs    detection_boxes [N, D, 4] (ymin, xmin, ymax, xmax), detection_classes [N, D] (class
//              index without the background columns), detection_scores [N, D], num_detections [N],
//              all float32; D = max_detections * max_classes_per_detection; unused slots are 0.
//   attributes TFLite's custom options, same names.
// Decoding: yc = ty / y_scale * ah + ay, xc = tx / x_scale * aw + ax, h = exp(th / h_scale) * ah,
// w = exp(tw / w_scale) * aw. Fast NMS (use_regular_nms = 0): each box takes its top
// max_classes_per_detection classes, boxes are suppressed by their best class score, single-class
// NMS keeps up to max_detections boxes, and each kept box fills max_classes_per_detection slots.
// Regular NMS: NMS per class (up to detections_per_class each), then the max_detections best of all.
// Scores pass when >= nms_score_threshold; a box is suppressed when IoU > nms_iou_threshold. Ties
// keep the lower box (and class) index first. ONNX has no equivalent op (its NonMaxSuppression
// neither decodes nor pads), hence the project domain.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/kernel_util.h"
#include "ops/ms_domain.h"

namespace ms {
namespace {

struct Corners {
  float ymin, xmin, ymax, xmax;
};

float iou(const Corners& a, const Corners& b) {
  const float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin), area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (area_a <= 0 || area_b <= 0) return 0.f;
  const float ih = std::max(std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin), 0.f);
  const float iw = std::max(std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin), 0.f);
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

// Greedy single-class NMS over `scores` (one per box): indices of the kept boxes, best first.
std::vector<int64_t> nms(const std::vector<float>& scores, const std::vector<Corners>& boxes, float score_th, float iou_th,
                         int64_t max_keep) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < int64_t(scores.size()); ++i)
    if (scores[i] >= score_th) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return scores[i] > scores[j]; });
  std::vector<int64_t> kept;
  std::vector<char> active(order.size(), 1);
  for (size_t i = 0; i < order.size() && int64_t(kept.size()) < max_keep; ++i) {
    if (!active[i]) continue;
    kept.push_back(order[i]);
    for (size_t j = i + 1; j < order.size(); ++j)
      if (active[j] && iou(boxes[order[i]], boxes[order[j]]) > iou_th) active[j] = 0;
  }
  return kept;
}

int64_t slots(const AttrReader& a) {
  return a.attr_int("max_detections") * std::max<int64_t>(1, a.attr_int("max_classes_per_detection"));
}

}  // namespace

void register_op_detection_post_process(OpRegistry& r) {
  r.add(OpDef("DetectionPostProcess", kMsDomain)
            .trait(kTraitNoOnnxForm)  // TFLite's custom op: box decoding + NMS with no ONNX op
            .inputs(3)
            .outputs(4)
            .attr_int("max_detections", 10)
            .attr_int("max_classes_per_detection", 1)
            .attr_int("detections_per_class", 100)
            .attr_int("use_regular_nms", 0)
            .attr_int("num_classes", 1)
            .attr_float("nms_score_threshold", 0.f)
            .attr_float("nms_iou_threshold", 0.5f)
            .attr_float("y_scale", 10.f)
            .attr_float("x_scale", 10.f)
            .attr_float("h_scale", 5.f)
            .attr_float("w_scale", 5.f)
            .infer_fn([](InferContext& ctx) {
              Dim n{};
              const TypeInfo& t = ctx.input_type(0);
              if (t.shape && !t.shape->empty()) n = (*t.shape)[0];
              const Dim d = Dim::fixed(slots(ctx));
              ctx.set_output_type(0, TypeInfo::tensor(DType::Float32, {n, d, Dim::fixed(4)}));
              ctx.set_output_type(1, TypeInfo::tensor(DType::Float32, {n, d}));
              ctx.set_output_type(2, TypeInfo::tensor(DType::Float32, {n, d}));
              ctx.set_output_type(3, TypeInfo::tensor(DType::Float32, {n}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string label = ctx.node().label();
              const Tensor& enc = ctx.input(0);
              const Tensor& cls = ctx.input(1);
              const Tensor& anc = ctx.input(2);
              const int64_t num_classes = ctx.attr_int("num_classes");
              const int64_t max_det = ctx.attr_int("max_detections");
              const int64_t per_det = std::min(std::max<int64_t>(1, ctx.attr_int("max_classes_per_detection")), num_classes);
              const int64_t width = std::max<int64_t>(1, ctx.attr_int("max_classes_per_detection"));
              const int64_t per_class = ctx.attr_int("detections_per_class");
              if (enc.rank() != 3 || enc.dim(2) < 4)
                fail("{}: box_encodings must be [batch, boxes, >=4], got {}", label, shape_str(enc.shape()));
              const int64_t N = enc.dim(0), B = enc.dim(1), E = enc.dim(2);
              if (anc.rank() != 2 || anc.dim(0) != B || anc.dim(1) != 4)
                fail("{}: anchors must be [{}, 4], got {}", label, B, shape_str(anc.shape()));
              if (cls.rank() != 3 || cls.dim(0) != N || cls.dim(1) != B || cls.dim(2) < num_classes)
                fail("{}: class_predictions must be [{}, {}, >= num_classes {}], got {}", label, N, B, num_classes,
                     shape_str(cls.shape()));
              if (num_classes < 1 || max_det < 0 || per_class < 0)
                fail("{}: num_classes {} / max_detections {} / detections_per_class {} out of range", label, num_classes,
                     max_det, per_class);
              const int64_t C = cls.dim(2), offset = C - num_classes;
              const float ys = ctx.attr_float("y_scale"), xs = ctx.attr_float("x_scale");
              const float hs = ctx.attr_float("h_scale"), ws = ctx.attr_float("w_scale");
              const float score_th = ctx.attr_float("nms_score_threshold"), iou_th = ctx.attr_float("nms_iou_threshold");
              const auto ev = enc.to_double_vector(), cv = cls.to_double_vector(), av = anc.to_double_vector();
              const int64_t D = max_det * width;
              Tensor out_boxes(DType::Float32, {N, D, 4}), out_cls(DType::Float32, {N, D}), out_sc(DType::Float32, {N, D}),
                  out_n(DType::Float32, {N});
              float* ob = out_boxes.data<float>();
              float* oc = out_cls.data<float>();
              float* os = out_sc.data<float>();
              std::fill(ob, ob + N * D * 4, 0.f);
              std::fill(oc, oc + N * D, 0.f);
              std::fill(os, os + N * D, 0.f);
              for (int64_t n = 0; n < N; ++n) {
                std::vector<Corners> boxes(B);
                for (int64_t b = 0; b < B; ++b) {
                  const double* e = ev.data() + (n * B + b) * E;
                  const float ay = float(av[b * 4]), ax = float(av[b * 4 + 1]), ah = float(av[b * 4 + 2]), aw = float(av[b * 4 + 3]);
                  const float yc = float(e[0]) / ys * ah + ay, xc = float(e[1]) / xs * aw + ax;
                  const float hh = 0.5f * std::exp(float(e[2]) / hs) * ah, hw = 0.5f * std::exp(float(e[3]) / ws) * aw;
                  boxes[b] = {yc - hh, xc - hw, yc + hh, xc + hw};
                }
                auto score = [&](int64_t b, int64_t c) { return float(cv[(n * B + b) * C + offset + c]); };
                auto put = [&](int64_t slot, int64_t b, int64_t c) {
                  const Corners& k = boxes[b];
                  float* p = ob + (n * D + slot) * 4;
                  p[0] = k.ymin, p[1] = k.xmin, p[2] = k.ymax, p[3] = k.xmax;
                  oc[n * D + slot] = float(c);
                  os[n * D + slot] = score(b, c);
                };
                int64_t count = 0;
                if (ctx.attr_int("use_regular_nms") == 0) {
                  // Each box's classes, best first; the box competes with its best score.
                  std::vector<std::vector<int64_t>> top(B);
                  std::vector<float> best(B);
                  for (int64_t b = 0; b < B; ++b) {
                    top[b].resize(num_classes);
                    std::iota(top[b].begin(), top[b].end(), 0);
                    std::stable_sort(top[b].begin(), top[b].end(), [&](int64_t i, int64_t j) { return score(b, i) > score(b, j); });
                    best[b] = score(b, top[b][0]);
                  }
                  for (int64_t b : nms(best, boxes, score_th, iou_th, max_det)) {
                    for (int64_t k = 0; k < per_det; ++k) put(count * width + k, b, top[b][k]);
                    ++count;
                  }
                } else {
                  struct Pick {
                    float s;
                    int64_t b, c;
                  };
                  std::vector<Pick> picks;
                  std::vector<float> col(B);
                  for (int64_t c = 0; c < num_classes; ++c) {
                    for (int64_t b = 0; b < B; ++b) col[b] = score(b, c);
                    for (int64_t b : nms(col, boxes, score_th, iou_th, per_class)) picks.push_back({col[b], b, c});
                  }
                  std::stable_sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.s > b.s; });
                  for (; count < std::min<int64_t>(max_det, int64_t(picks.size())); ++count) put(count, picks[count].b, picks[count].c);
                }
                out_n.data<float>()[n] = float(count);
              }
              ctx.set_output(0, std::move(out_boxes));
              ctx.set_output(1, std::move(out_cls));
              ctx.set_output(2, std::move(out_sc));
              ctx.set_output(3, std::move(out_n));
            }));
}

}  // namespace ms
