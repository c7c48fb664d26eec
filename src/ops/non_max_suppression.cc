// NonMaxSuppression: per batch and class, greedily keep the highest-scoring boxes (score above
// score_threshold) whose IoU with every kept box is <= iou_threshold; y = [k, 3] of (batch, class, box).
#include <algorithm>
#include <numeric>

#include "ops/kernel_util.h"

namespace ms {
namespace {

struct Box {
  double y1, x1, y2, x2;
};

Box corners(const double* b, bool center) {
  if (center) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  // Corners may be given in either order.
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

double iou(const Box& a, const Box& b) {
  const double area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  if (area_a <= 0 || area_b <= 0) return 0;
  const double ih = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const double iw = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

}  // namespace

void register_op_non_max_suppression(OpRegistry& r) {
  r.add(OpDef("NonMaxSuppression")
            .inputs(2, 5)
            .outputs(1)
            .attr_int("center_point_box", 0)
            .infer_fn([](InferContext& ctx) {
              ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, {Dim{}, Dim::fixed(3)}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& boxes = ctx.input(0);
              const Tensor& scores = ctx.input(1);
              const std::string label = ctx.node().label();
              if (boxes.rank() != 3 || boxes.dim(2) != 4)
                fail("{}: boxes must be (batches, spatial, 4), got {}", label, shape_str(boxes.shape()));
              if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
                fail("{}: scores {} must be (batches, classes, {}) for boxes {}", label, shape_str(scores.shape()),
                     boxes.dim(1), shape_str(boxes.shape()));
              auto scalar = [&](size_t i, auto def) -> decltype(def) {
                if (!ctx.has_input(i) || ctx.input(i).numel() == 0) return def;
                if constexpr (std::is_integral_v<decltype(def)>) return ctx.input(i).as_int64(0);
                else return ctx.input(i).as_double(0);
              };
              const int64_t max_out = scalar(2, int64_t(0));
              const double iou_th = scalar(3, 0.0);
              const bool has_score_th = ctx.has_input(4) && ctx.input(4).numel() > 0;
              const double score_th = scalar(4, 0.0);
              const bool center = ctx.attr_int("center_point_box") != 0;
              const int64_t B = boxes.dim(0), S = boxes.dim(1), K = scores.dim(1);
              const auto bv = boxes.to_double_vector();
              const auto sv = scores.to_double_vector();
              std::vector<int64_t> sel;
              for (int64_t b = 0; b < B; ++b) {
                std::vector<Box> bx(S);
                for (int64_t s = 0; s < S; ++s) bx[s] = corners(bv.data() + (b * S + s) * 4, center);
                for (int64_t k = 0; k < K; ++k) {
                  if (max_out <= 0) break;
                  const double* sc = sv.data() + (b * K + k) * S;
                  std::vector<int64_t> order;
                  for (int64_t s = 0; s < S; ++s)
                    if (!has_score_th || sc[s] > score_th) order.push_back(s);
                  // Highest score first; ties keep the lower box index first.
                  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sc[i] > sc[j]; });
                  std::vector<int64_t> kept;
                  for (int64_t s : order) {
                    if (int64_t(kept.size()) >= max_out) break;
                    bool ok = true;
                    for (int64_t t : kept)
                      if (iou(bx[s], bx[t]) > iou_th) {
                        ok = false;
                        break;
                      }
                    if (ok) kept.push_back(s);
                  }
                  for (int64_t s : kept) sel.insert(sel.end(), {b, k, s});
                }
              }
              Tensor y(DType::Int64, {int64_t(sel.size() / 3), 3});
              std::copy(sel.begin(), sel.end(), y.data<int64_t>());
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
