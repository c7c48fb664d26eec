// Shared helpers for convolution, pooling, resize and quantized ops: sliding-window geometry
// (kernel/strides/dilations/pads/auto_pad -> output size), the window offset table the reference
// kernels iterate over, a batched matmul index helper and quantization rounding.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

// Geometry of one spatial axis of a sliding window.
struct AxisWindow {
  int64_t in = 0, k = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0, out = 0;
};

struct WindowGeom {
  std::vector<AxisWindow> axes;
  Shape in_shape() const;
  Shape kernel_shape() const;
  Shape out_shape() const;
  int64_t in_numel() const { return shape_numel(in_shape()); }
  int64_t kernel_numel() const { return shape_numel(kernel_shape()); }
  int64_t out_numel() const { return shape_numel(out_shape()); }
};

// Output size of one axis for conv/pool (auto_pad NOTSET/VALID/SAME_UPPER/SAME_LOWER); fills the
// pads for SAME_*. `in` < 0 (unknown) returns -1.
int64_t window_axis_out(AxisWindow& a, const std::string& auto_pad, bool ceil_mode);

// Reads strides/dilations/pads/auto_pad from the node and computes the geometry for the given
// spatial input dims and kernel dims (unknown input dims = -1 give out = -1).
WindowGeom make_window_geom(const AttrReader& attrs, const Shape& in_spatial, const Shape& kernel,
                            bool ceil_mode);

// Spatial dims of an input type (rank must be >= 2 + nsp); -1 where unknown. Empty when rank is unknown.
std::vector<int64_t> spatial_dims(const TypeInfo& t);
std::vector<Dim> dims_from(const std::vector<int64_t>& v);  // -1 -> unknown Dim

// For each (output position, kernel position), in that order: the offset of the input element
// inside one spatial plane, or kInPad (inside the explicit padding) / kBeyondPad (past the padding,
// which only ceil_mode windows reach).
constexpr int64_t kInPad = -1;
constexpr int64_t kBeyondPad = -2;
std::vector<int64_t> window_offsets(const WindowGeom& g);
// The kernel_numel() offsets of output position `o` alone, into `offs`.
void window_offsets_at(const WindowGeom& g, int64_t o, int64_t* offs);

// Kernel shape: the attribute when present, else W's spatial dims.
Shape conv_kernel_shape(const AttrReader& attrs, const Shape& w_shape);

// Generic grouped convolution loop. x_at(n, c, off) returns the input value (off >= 0) and
// w_at(m, cg, kidx) the weight; store(n, m, opos, acc) receives the sum. Padding contributes zero.
template <class Acc, class XAt, class WAt, class Store>
void conv_loop(const WindowGeom& g, int64_t N, int64_t C, int64_t M, int64_t group, XAt x_at, WAt w_at,
               Store store) {
  const auto offs = window_offsets(g);
  const int64_t K = g.kernel_numel(), O = g.out_numel();
  const int64_t cg = C / group, mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t c0 = (m / mg) * cg;
      for (int64_t o = 0; o < O; ++o) {
        Acc acc = 0;
        const int64_t* row = offs.data() + o * K;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t k = 0; k < K; ++k)
            if (row[k] >= 0) acc += x_at(n, c0 + c, row[k]) * w_at(m, c, k);
        store(n, m, o, acc);
      }
    }
}

// Validates Conv-style X/W shapes and group; returns the geometry. Error messages name the node.
WindowGeom conv_geom(const AttrReader& attrs, const Shape& x, const Shape& w, int64_t group);
// Output type of Conv-like ops (N, M, spatial...) with the given dtype.
void infer_conv_like(InferContext& ctx, size_t x_idx, size_t w_idx, DType out_dtype);

// Numpy matmul broadcasting: output shape and, per batch index, the offsets of A and B matrices.
struct MatMulPlan {
  Shape out;
  int64_t M = 0, K = 0, N = 0;
  std::vector<int64_t> a_off, b_off;  // one entry per output batch (element offsets)
};
MatMulPlan plan_matmul(const Shape& a, const Shape& b, const Node& node);
std::vector<Dim> infer_matmul_dims(const std::vector<Dim>& a, const std::vector<Dim>& b, const Node& node);

// Round half to even, then clamp to the range of Q.
template <class Q>
Q saturate_round(double v) {
  double r = std::nearbyint(v);  // default rounding mode: to nearest, ties to even
  r = std::min<double>(std::max<double>(r, std::numeric_limits<Q>::lowest()), std::numeric_limits<Q>::max());
  return static_cast<Q>(r);
}

// Calls f(TypeTag<T>) for int8/uint8 (and int32 where allowed) quantized element types.
template <class F>
decltype(auto) dispatch_quant(DType dt, const std::string& what, F&& f, bool allow_int32 = false) {
  switch (dt) {
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
    case DType::Int16: return f(TypeTag<int16_t>{});
    case DType::UInt16: return f(TypeTag<uint16_t>{});
    case DType::Int32:
      if (allow_int32) return f(TypeTag<int32_t>{});
      [[fallthrough]];
    default: fail_unsupported("{}: quantized dtype {} is not supported", what, dtype_name(dt));
  }
}

// Per-tensor or per-axis quantization parameter: value for the element at `index` of a tensor
// whose `axis` has size `axis_dim` and inner block `inner`.
struct QuantParam {
  std::vector<double> values;  // size 1 (per tensor) or axis_dim
  int64_t axis_dim = 1, inner = 1;
  double at(int64_t index) const {
    return values.size() == 1 ? values[0] : values[(index / inner) % axis_dim];
  }
};
// Reads a scale/zero-point tensor; `axis` normalised against x's rank. Checks the size.
QuantParam quant_param(const Tensor& p, const Shape& x_shape, int64_t axis, const Node& node, const char* what);

}  // namespace ms

namespace ms {

// Pooling geometry: X is (N, C, spatial...), kernel_shape is required; ceil_mode when the node has it.
WindowGeom pool_geom(const AttrReader& attrs, const Shape& x);
// Output 0: X's dtype with pooled spatial dims; output 1 (MaxPool Indices): int64, same shape.
void infer_pool(InferContext& ctx);
// Output shape (N, C, pooled...).
Shape pool_out_shape(const Shape& x, const WindowGeom& g);

}  // namespace ms

namespace ms {

// Integer convolution shared by ConvInteger and QLinearConv: acc[n,m,o] = sum (x - x_zp) * (w - w_zp[m])
// (padding contributes zero). w_zp has 1 or M values. Fills y_shape (N, M, spatial...).
std::vector<int64_t> conv_integer_acc(const AttrReader& attrs, const Tensor& x, const Tensor& w, int64_t x_zp,
                                      const std::vector<int64_t>& w_zp, Shape& y_shape);
// Integer matmul shared by MatMulInteger and QLinearMatMul: acc[.., i, j] = sum_k (a[i,k] - a_zp[i]) * (b[k,j] - b_zp[j]);
// a_zp has 1 or M values, b_zp 1 or N. Fills the plan (output shape, M, N).
std::vector<int64_t> matmul_integer_acc(const Tensor& a, const Tensor& b, const std::vector<int64_t>& a_zp,
                                        const std::vector<int64_t>& b_zp, const Node& node, MatMulPlan& plan);
// A zero point input (absent = 0) as integers; checks it has 1 or `n` values.
std::vector<int64_t> zero_points(const KernelContext& ctx, size_t i, int64_t n, const char* what);

}  // namespace ms
