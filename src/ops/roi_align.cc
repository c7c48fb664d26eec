// RoiAlign: y[r,c,ph,pw] = average (or max) of bilinear samples of x[batch[r],c] on a regular grid
// inside bin (ph, pw) of region of interest r (x1, y1, x2, y2) scaled by spatial_scale.
#include <cmath>

#include "ops/kernel_util.h"

namespace ms {

void register_op_roi_align(OpRegistry& r) {
  r.add(OpDef("RoiAlign")
            .inputs(3)
            .outputs(1)
            .attr_string("coordinate_transformation_mode", "half_pixel")
            .attr_string("mode", "avg")
            .attr_int("output_height", 1)
            .attr_int("output_width", 1)
            .attr_int("sampling_ratio", 0)
            .attr_float("spatial_scale", 1.0f)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              const TypeInfo& rt = ctx.input_type(1);
              Dim nr = rt.shape && !rt.shape->empty() ? (*rt.shape)[0] : Dim{};
              Dim c = xt.shape && xt.shape->size() == 4 ? (*xt.shape)[1] : Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, {nr, c, Dim::fixed(ctx.attr_int("output_height")),
                                                                 Dim::fixed(ctx.attr_int("output_width"))}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& rois = ctx.input(1);
              const Tensor& bidx = ctx.input(2);
              const std::string label = ctx.node().label();
              if (x.rank() != 4) fail("{}: X must be 4-D (N, C, H, W), got {}", label, shape_str(x.shape()));
              if (rois.rank() != 2 || rois.dim(1) != 4) fail("{}: rois must be (num_rois, 4), got {}", label, shape_str(rois.shape()));
              const int64_t R = rois.dim(0);
              if (bidx.numel() != R) fail("{}: batch_indices has {} values for {} rois", label, bidx.numel(), R);
              const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
              const int64_t PH = ctx.attr_int("output_height"), PW = ctx.attr_int("output_width");
              const int64_t ratio = ctx.attr_int("sampling_ratio");
              const double ss = ctx.attr_float("spatial_scale");
              const std::string mode = ctx.attr_string("mode");
              if (mode != "avg" && mode != "max") fail("{}: unknown mode '{}'", label, mode);
              const std::string ctm = ctx.attr_string("coordinate_transformation_mode");
              // RoiAlign-10 had no attribute and behaved like output_half_pixel.
              const bool half_pixel = ctx.has_attr("coordinate_transformation_mode") ? ctm == "half_pixel" : ctx.opset() >= 16;
              if (PH <= 0 || PW <= 0) fail("{}: output size {}x{} must be positive", label, PH, PW);
              Tensor y(x.dtype(), {R, C, PH, PW});
              const auto rv = rois.to_double_vector();
              const auto bv = bidx.to_int64_vector();
              dispatch_float(x.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                T* yp = y.data<T>();
                for (int64_t ri = 0; ri < R; ++ri) {
                  if (bv[ri] < 0 || bv[ri] >= N) fail("{}: batch index {} out of range [0, {})", label, bv[ri], N);
                  const double off = half_pixel ? 0.5 : 0.0;
                  const double x1 = rv[ri * 4] * ss - off, y1 = rv[ri * 4 + 1] * ss - off;
                  double rw = rv[ri * 4 + 2] * ss - off - x1, rh = rv[ri * 4 + 3] * ss - off - y1;
                  if (!half_pixel) {
                    rw = std::max(rw, 1.0);
                    rh = std::max(rh, 1.0);
                  }
                  const double bh = rh / double(PH), bw = rw / double(PW);
                  const int64_t gh = ratio > 0 ? ratio : int64_t(std::ceil(rh / double(PH)));
                  const int64_t gw = ratio > 0 ? ratio : int64_t(std::ceil(rw / double(PW)));
                  const double count = double(std::max<int64_t>(gh * gw, 1));
                  for (int64_t c = 0; c < C; ++c) {
                    const T* img = xp + (bv[ri] * C + c) * H * W;
                    for (int64_t ph = 0; ph < PH; ++ph)
                      for (int64_t pw = 0; pw < PW; ++pw) {
                        double acc = 0;
                        bool first = true;
                        for (int64_t iy = 0; iy < gh; ++iy)
                          for (int64_t ix = 0; ix < gw; ++ix) {
                            double yy = y1 + double(ph) * bh + (double(iy) + 0.5) * bh / double(gh);
                            double xx = x1 + double(pw) * bw + (double(ix) + 0.5) * bw / double(gw);
                            double s = 0;
                            // Samples more than one pixel outside the map contribute zero.
                            if (!(yy < -1.0 || yy > double(H) || xx < -1.0 || xx > double(W))) {
                              yy = std::max(yy, 0.0);
                              xx = std::max(xx, 0.0);
                              int64_t ylo = int64_t(yy), xlo = int64_t(xx), yhi, xhi;
                              if (ylo >= H - 1) { yhi = ylo = H - 1; yy = double(ylo); } else { yhi = ylo + 1; }
                              if (xlo >= W - 1) { xhi = xlo = W - 1; xx = double(xlo); } else { xhi = xlo + 1; }
                              const double ly = yy - double(ylo), lx = xx - double(xlo), hy = 1 - ly, hx = 1 - lx;
                              const double v1 = hy * hx * double(img[ylo * W + xlo]), v2 = hy * lx * double(img[ylo * W + xhi]);
                              const double v3 = ly * hx * double(img[yhi * W + xlo]), v4 = ly * lx * double(img[yhi * W + xhi]);
                              s = mode == "avg" ? v1 + v2 + v3 + v4 : std::max(std::max(v1, v2), std::max(v3, v4));
                            }
                            if (mode == "avg") acc += s;
                            else acc = first ? s : std::max(acc, s);
                            first = false;
                          }
                        yp[((ri * C + c) * PH + ph) * PW + pw] = T(mode == "avg" ? acc / count : acc);
                      }
                  }
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
