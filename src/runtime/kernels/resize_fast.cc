// Resize on float32 in two fast forms:
// - nearest-neighbour upsampling with coordinate transformation asymmetric and nearest_mode floor
//   (what PaddlePaddle and many FPN necks export), any rank: index tables per axis computed once
//   per shape as the reference maps coordinates (x_out / scale, floored, clamped), then rows
//   gathered through them;
// - any mode (nearest, linear, cubic, antialias) and coordinate transformation but
//   tf_crop_and_resize, when only the last two axes change (NCHW images, what U-Nets and
//   segmentation heads do): the taps of both axes come from the reference's own tap computation
//   (ops/resize_util.h), so coordinates agree exactly, and each output row is
//     y[p, oh, :] = sum_h w_h * sum_w w_w * x[p, ih_h, iw_w]
//   accumulated in float32 (the reference accumulates in double; results agree to rounding);
//   bilinear on a rank-2 or NCHW input is ONNX Runtime's arithmetic, shared with the reference
//   (ops/resize_util.h: bilinear_rows), so both give the same bits.
// Other forms stay on the reference.
#include <cmath>
#include <mutex>

#include "ops/resize_util.h"
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

// The output shape and per-axis scales from the sizes (input 3) or scales (input 2) of an
// opset >= 11 Resize without `axes`; false when neither is usable (the reference then reports).
bool output_plan(KernelContext& ctx, const Tensor& x, std::vector<double>& scales, Shape& out) {
  const size_t r = static_cast<size_t>(x.rank());
  scales.assign(r, 1.0);
  out.assign(r, 0);
  if (ctx.has_input(3) && ctx.input(3).numel() > 0) {
    const auto sizes = ctx.input(3).to_int64_vector();
    if (sizes.size() != r) return false;
    for (size_t d = 0; d < r; ++d) {
      out[d] = sizes[d];
      scales[d] = static_cast<double>(sizes[d]) / static_cast<double>(x.dim(static_cast<int>(d)));
    }
  } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
    const auto s = ctx.input(2).to_double_vector();
    if (s.size() != r) return false;
    for (size_t d = 0; d < r; ++d) {
      if (!(s[d] > 0)) return false;  // the reference names the bad scale
      scales[d] = s[d];
      out[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.dim(static_cast<int>(d))) * s[d]));
    }
  } else {
    return false;
  }
  return shape_numel(out) > 0;
}

class FastResizeNearest : public FastKernel {
 public:
  const char* name() const override { return "resize_nearest"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.rank() < 1 || x.numel() == 0) return false;
    const size_t r = static_cast<size_t>(x.rank());
    std::vector<double> scales;
    Shape out;
    if (!output_plan(ctx, x, scales, out)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (x.shape() != in_shape_ || out != out_shape_ || scales != scales_) plan(x.shape(), out, scales);
    Tensor y = output_tensor(memory, 0, DType::Float32, out);
    const float* px = x.data<float>();
    float* py = y.data<float>();
    // Rows of the last axis; each output row reads one input row through the last axis' table.
    const int64_t out_w = out[r - 1], in_w = x.dim(-1);
    const int64_t rows = y.numel() / out_w;
    const auto& last = index_[r - 1];
    parallel_chunks(rows, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t rem = row, src_row = 0, stride = 1;
        for (size_t d = r - 1; d-- > 0;) {
          const int64_t o = rem % out[d];
          rem /= out[d];
          src_row += index_[d][o] * stride;
          stride *= in_shape_[d];
        }
        const float* src = px + src_row * in_w;
        float* dst = py + row * out_w;
        for (int64_t o = 0; o < out_w; ++o) dst[o] = src[last[o]];
      }
    }, out_w);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  void plan(const Shape& in, const Shape& out, const std::vector<double>& scales) {
    in_shape_ = in;
    out_shape_ = out;
    scales_ = scales;
    index_.assign(in.size(), {});
    for (size_t d = 0; d < in.size(); ++d)
      for (int64_t o = 0; o < out[d]; ++o) {
        const auto i = static_cast<int64_t>(std::floor(static_cast<double>(o) / scales[d]));
        index_[d].push_back(std::clamp<int64_t>(i, 0, in[d] - 1));
      }
  }

  std::mutex mu_;
  Shape in_shape_, out_shape_;
  std::vector<double> scales_;
  std::vector<std::vector<int64_t>> index_;  // per axis: input index of each output index
};

// Taps of one axis flattened to a fixed stride per output index; `count` says how many are real.
struct FlatTaps {
  int64_t stride = 0;
  std::vector<int64_t> count, idx;
  std::vector<double> w;
};

FlatTaps flatten(const std::vector<std::vector<ResampleTap>>& taps) {
  FlatTaps f;
  for (const auto& t : taps) f.stride = std::max<int64_t>(f.stride, static_cast<int64_t>(t.size()));
  f.count.resize(taps.size());
  f.idx.assign(taps.size() * f.stride, 0);
  f.w.assign(taps.size() * f.stride, 0.0);
  for (size_t o = 0; o < taps.size(); ++o) {
    f.count[o] = static_cast<int64_t>(taps[o].size());
    for (size_t k = 0; k < taps[o].size(); ++k) {
      f.idx[o * f.stride + k] = taps[o][k].idx;
      f.w[o * f.stride + k] = taps[o][k].w;
    }
  }
  return f;
}

class FastResizeSeparable : public FastKernel {
 public:
  FastResizeSeparable(ResizeOptions opt, std::string label) : opt_(std::move(opt)), label_(std::move(label)) {}
  const char* name() const override { return "resize_separable"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.rank() < 2 || x.numel() == 0) return false;
    const size_t r = static_cast<size_t>(x.rank());
    std::vector<double> scales;
    Shape out;
    if (!output_plan(ctx, x, scales, out)) return false;
    for (size_t d = 0; d + 2 < r; ++d)
      if (out[d] != x.dim(static_cast<int>(d)) || scales[d] != 1.0) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (x.shape() != in_shape_ || out != out_shape_ || scales != scales_) {
      const int64_t H = x.dim(-2), W = x.dim(-1);
      bilinear_ = bilinear_like_ort(x.shape(), out, scales, opt_);
      if (bilinear_) {
        bi_rows_ = bilinear_axis(H, out[r - 2], scales[r - 2], opt_.coord);
        bi_cols_ = bilinear_axis(W, out[r - 1], scales[r - 1], opt_.coord);
      } else {
        rows_ = flatten(resample_axis_taps(H, out[r - 2], scales[r - 2], opt_, label_));
        cols_ = flatten(resample_axis_taps(W, out[r - 1], scales[r - 1], opt_, label_));
      }
      in_shape_ = x.shape();
      out_shape_ = out;
      scales_ = scales;
    }
    Tensor y = output_tensor(memory, 0, DType::Float32, out);
    const float* px = x.data<float>();
    float* py = y.data<float>();
    const int64_t H = x.dim(-2), W = x.dim(-1), OH = out[r - 2], OW = out[r - 1];
    if (bilinear_) {
      parallel_chunks(y.numel() / OW, [&](int64_t begin, int64_t end) {
        bilinear_rows(px, py, H, W, bi_rows_, bi_cols_, begin, end);
      }, OW * 4);
      ctx.set_output(0, std::move(y));
      return true;
    }
    // Each output sums its taps in the reference's order (row taps outer, column taps inner) and
    // precision (double), so the two agree to the bit; a requantizing consumer would otherwise
    // see a rounding flip now and then.
    const int64_t sh = rows_.stride, sw = cols_.stride;
    parallel_chunks(y.numel() / OW, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / OH, oh = row % OH;
        const float* src = px + plane * H * W;
        float* dst = py + row * OW;
        for (int64_t o = 0; o < OW; ++o) {
          double acc = 0;
          for (int64_t t = 0; t < rows_.count[oh]; ++t) {
            const double wh = rows_.w[oh * sh + t];
            const float* line = src + rows_.idx[oh * sh + t] * W;
            for (int64_t k = 0; k < cols_.count[o]; ++k)
              acc += wh * cols_.w[o * sw + k] * static_cast<double>(line[cols_.idx[o * sw + k]]);
          }
          dst[o] = static_cast<float>(acc);
        }
      }
    }, OW * sh * sw);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  ResizeOptions opt_;
  std::string label_;
  std::mutex mu_;
  Shape in_shape_, out_shape_;
  std::vector<double> scales_;
  FlatTaps rows_, cols_;
  bool bilinear_ = false;  // ONNX Runtime's bilinear form (bi_rows_, bi_cols_) instead of the taps
  BilinearAxis bi_rows_, bi_cols_;
};

std::unique_ptr<FastKernel> make_resize(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0) || info.opset < 11) return nullptr;  // opset 10 puts scales at input 1
  AttrReader a = info.attrs();
  auto is = [&](const char* attr, const char* value) {
    return !info.node.attr(attr) || a.attr_string(attr) == value;
  };
  if (info.node.attr("axes") || !is("keep_aspect_ratio_policy", "stretch")) return nullptr;
  ResizeOptions o;
  o.mode = a.attr_string("mode");
  o.coord = a.attr_string("coordinate_transformation_mode");
  o.nearest_mode = a.attr_string("nearest_mode");
  o.cubic_a = a.attr_float("cubic_coeff_a");
  o.exclude_outside = a.attr_int("exclude_outside") != 0;
  o.antialias = a.attr_int("antialias") != 0;
  const bool explicit_nearest_floor_asymmetric = info.node.attr("coordinate_transformation_mode") &&
                                                 info.node.attr("nearest_mode") && o.mode == "nearest" &&
                                                 o.coord == "asymmetric" && o.nearest_mode == "floor";
  if (explicit_nearest_floor_asymmetric && !o.antialias) return std::make_unique<FastResizeNearest>();
  const bool known_mode = o.mode == "nearest" || o.mode == "linear" || o.mode == "cubic";
  if (!known_mode || o.coord == "tf_crop_and_resize") return nullptr;
  return std::make_unique<FastResizeSeparable>(o, info.node.label());
}

}  // namespace

void register_resize_kernels(FastKernelRegistry& r) { r.add("", "Resize", make_resize); }

}  // namespace ms::rt
