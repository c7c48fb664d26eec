// GridSample: y[n,c,h,w] = x[n,c] sampled (bilinear / nearest / bicubic) at the normalized location
// grid[n,h,w] = (x, y) in [-1, 1], with zeros / border / reflection padding outside the image.
#include <cmath>

#include "ops/kernel_util.h"

namespace ms {
namespace {

enum class Pad { Zeros, Border, Reflection };

// Reflects x into [lo, hi] (repeatedly, like a mirror at both ends).
double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double d = lo - x;
    const int64_t n = int64_t(d / range);
    const double r = d - double(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double d = x - hi;
    const int64_t n = int64_t(d / range);
    const double r = d - double(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_coeffs(double t, double c[4]) {
  const double A = -0.75;
  c[0] = ((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A;
  c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
  c[2] = ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1;
  c[3] = ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A;
}

}  // namespace

void register_op_grid_sample(OpRegistry& r) {
  r.add(OpDef("GridSample")
            .inputs(2)
            .outputs(1)
            .attr_int("align_corners", 0)
            .attr_string("mode", "bilinear")
            .attr_string("padding_mode", "zeros")
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              const TypeInfo& gt = ctx.input_type(1);
              if (!xt.shape || !gt.shape || xt.shape->size() != 4 || gt.shape->size() != 4) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(xt.dtype));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, {(*xt.shape)[0], (*xt.shape)[1], (*gt.shape)[1], (*gt.shape)[2]}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& grid = ctx.input(1);
              const std::string label = ctx.node().label();
              if (x.rank() != 4) fail_unsupported("{}: only 4-D input (N, C, H, W) is supported, got {}", label, shape_str(x.shape()));
              if (grid.rank() != 4 || grid.dim(0) != x.dim(0) || grid.dim(3) != 2)
                fail("{}: grid {} must be (N={}, H_out, W_out, 2)", label, shape_str(grid.shape()), x.dim(0));
              std::string mode = ctx.attr_string("mode");
              if (mode == "linear") mode = "bilinear";  // opset 20 names
              if (mode == "cubic") mode = "bicubic";
              if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
                fail_unsupported("{}: mode '{}' is not supported", label, mode);
              const std::string pm = ctx.attr_string("padding_mode");
              Pad pad = pm == "zeros" ? Pad::Zeros : pm == "border" ? Pad::Border : pm == "reflection" ? Pad::Reflection
                                                                                                        : (fail("{}: unknown padding_mode '{}'", label, pm), Pad::Zeros);
              const bool align = ctx.attr_int("align_corners") != 0;
              const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), Ho = grid.dim(1), Wo = grid.dim(2);
              Tensor y(x.dtype(), {N, C, Ho, Wo});
              // Valid coordinate range: pixel centres with align_corners, pixel edges without.
              const double xmin = align ? 0 : -0.5, xmax = align ? double(W - 1) : double(W) - 0.5;
              const double ymin = align ? 0 : -0.5, ymax = align ? double(H - 1) : double(H) - 0.5;
              auto denorm = [&](double v, int64_t size) {
                return align ? (v + 1) / 2 * double(size - 1) : ((v + 1) * double(size) - 1) / 2;
              };
              const auto gv = grid.to_double_vector();
              dispatch_float(x.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* xp = x.data<T>();
                T* yp = y.data<T>();
                for (int64_t n = 0; n < N; ++n)
                  for (int64_t c = 0; c < C; ++c) {
                    const T* img = xp + (n * C + c) * H * W;
                    auto pixel = [&](int64_t px, int64_t py) -> double {
                      if (pad == Pad::Zeros) {
                        if (px < 0 || px >= W || py < 0 || py >= H) return 0.0;
                      } else if (pad == Pad::Border) {
                        px = std::clamp<int64_t>(px, 0, W - 1);
                        py = std::clamp<int64_t>(py, 0, H - 1);
                      } else {
                        px = std::clamp<int64_t>(int64_t(reflect(double(px), xmin, xmax)), 0, W - 1);
                        py = std::clamp<int64_t>(int64_t(reflect(double(py), ymin, ymax)), 0, H - 1);
                      }
                      return double(img[py * W + px]);
                    };
                    for (int64_t h = 0; h < Ho; ++h)
                      for (int64_t w = 0; w < Wo; ++w) {
                        const double* g = gv.data() + ((n * Ho + h) * Wo + w) * 2;
                        double fx = denorm(g[0], W), fy = denorm(g[1], H);
                        if (mode == "nearest") {
                          fx = std::nearbyint(fx);
                          fy = std::nearbyint(fy);
                        }
                        if (fx < xmin || fx > xmax || fy < ymin || fy > ymax) {
                          if (pad == Pad::Border) {
                            fx = std::clamp(fx, 0.0, double(W - 1));
                            fy = std::clamp(fy, 0.0, double(H - 1));
                          } else if (pad == Pad::Reflection) {
                            fx = reflect(fx, xmin, xmax);
                            fy = reflect(fy, ymin, ymax);
                          }
                        }
                        double v = 0;
                        if (mode == "nearest") {
                          v = pixel(int64_t(std::nearbyint(fx)), int64_t(std::nearbyint(fy)));
                        } else if (mode == "bilinear") {
                          const int64_t x1 = int64_t(std::floor(fx)), y1 = int64_t(std::floor(fy));
                          const double dx = fx - double(x1), dy = fy - double(y1);
                          v = (1 - dy) * ((1 - dx) * pixel(x1, y1) + dx * pixel(x1 + 1, y1)) +
                              dy * ((1 - dx) * pixel(x1, y1 + 1) + dx * pixel(x1 + 1, y1 + 1));
                        } else {
                          const int64_t x0 = int64_t(std::floor(fx)) - 1, y0 = int64_t(std::floor(fy)) - 1;
                          double cx[4], cy[4];
                          cubic_coeffs(fx - double(x0) - 1, cx);
                          cubic_coeffs(fy - double(y0) - 1, cy);
                          for (int i = 0; i < 4; ++i) {
                            double row = 0;
                            for (int j = 0; j < 4; ++j) row += cx[j] * pixel(x0 + j, y0 + i);
                            v += cy[i] * row;
                          }
                        }
                        yp[((n * C + c) * Ho + h) * Wo + w] = T(v);
                      }
                  }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
