// Resize in its nearest-neighbour upsampling form (mode nearest, coordinate transformation
// asymmetric, nearest_mode floor: what PaddlePaddle and many FPN necks export) on float32: index
// tables per axis computed once per shape as the reference maps coordinates (x_out / scale,
// floored, clamped), then rows gathered through them. Other modes stay on the reference.
#include <cmath>
#include <mutex>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

class FastResizeNearest : public FastKernel {
 public:
  const char* name() const override { return "resize_nearest"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Float32 || x.rank() < 1 || x.numel() == 0) return false;
    const size_t r = static_cast<size_t>(x.rank());
    std::vector<double> scales(r);
    Shape out(r);
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
    if (shape_numel(out) == 0) return false;
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

std::unique_ptr<FastKernel> make_resize(const KernelBuildInfo& info) {
  if (!info.maybe_f32(0) || info.opset < 11) return nullptr;  // opset 10 puts scales at input 1
  AttrReader a = info.attrs();
  auto is = [&](const char* attr, const char* value) {
    return !info.node.attr(attr) || a.attr_string(attr) == value;
  };
  if (a.attr_string("mode") != "nearest" || !info.node.attr("coordinate_transformation_mode") ||
      a.attr_string("coordinate_transformation_mode") != "asymmetric" || !info.node.attr("nearest_mode") ||
      a.attr_string("nearest_mode") != "floor")
    return nullptr;
  if (info.node.attr("axes") || (info.node.attr("antialias") && a.attr_int("antialias")) ||
      !is("keep_aspect_ratio_policy", "stretch"))
    return nullptr;
  return std::make_unique<FastResizeNearest>();
}

}  // namespace

void register_resize_kernels(FastKernelRegistry& r) { r.add("", "Resize", make_resize); }

}  // namespace ms::rt
