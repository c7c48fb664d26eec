#include "quant/quant_params.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace ms::quant {

ActivationParams activation_params(Range r, bool symmetric) {
  const double lo = std::min(0.0, double(r.lo)), hi = std::max(0.0, double(r.hi));
  ActivationParams p;
  if (symmetric) {
    const double a = std::max(-lo, hi);
    p.dtype = DType::Int8;
    p.scale = a > 0 ? float(a / 127.0) : 1.0f;
    p.zero_point = 0;
    return p;
  }
  p.dtype = DType::UInt8;
  if (hi - lo <= 0) return p;  // an all-zero tensor: any scale represents it exactly
  p.scale = float((hi - lo) / 255.0);
  p.zero_point = int32_t(std::clamp(std::lround(-lo / p.scale), 0L, 255L));
  return p;
}

QuantizedWeight quantize_weight(const Tensor& w, int axis, int bits) {
  if (w.dtype() != DType::Float32) fail("weight quantization needs float32 weights, got {}", dtype_name(w.dtype()));
  if (bits != 8) fail_unsupported("{}-bit weights are not supported yet (8 only)", bits);
  if (axis >= w.rank()) fail("weight of shape {} has no axis {}", shape_str(w.shape()), axis);
  const int qmax = (1 << (bits - 1)) - 1;
  // View the weight as [outer, channels, inner] so each channel's elements are easy to visit.
  const int64_t channels = axis < 0 ? 1 : w.dim(axis);
  int64_t outer = 1, inner = 1;
  if (axis < 0) {
    inner = w.numel();
  } else {
    for (int d = 0; d < axis; ++d) outer *= w.dim(d);
    for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  }
  const float* x = w.data<float>();
  std::vector<float> scale(channels, 0.0f);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i)
        scale[c] = std::max(scale[c], std::fabs(x[(o * channels + c) * inner + i]));
  for (float& s : scale) s = s > 0 ? s / qmax : 1.0f;
  QuantizedWeight r;
  r.axis = axis;
  r.q = Tensor(DType::Int8, w.shape());
  int8_t* q = r.q.data<int8_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        // Round half to even as QuantizeLinear does, then clamp to the narrow range.
        const float v = std::nearbyint(x[k] / scale[c]);
        q[k] = int8_t(std::clamp(v, float(-qmax), float(qmax)));
      }
  if (axis < 0) {
    r.scale = Tensor::scalar<float>(scale[0]);
    r.zero_point = Tensor::scalar<int8_t>(0);
  } else {
    r.scale = Tensor::from_vector<float>(scale, {channels});
    r.zero_point = Tensor(DType::Int8, {channels});
  }
  return r;
}

QuantizedWeight quantize_weight_blocked(const Tensor& w, int axis, int64_t block, int bits) {
  if (w.dtype() != DType::Float32) fail("weight quantization needs float32 weights, got {}", dtype_name(w.dtype()));
  if (bits != 4 && bits != 8) fail_unsupported("blocked {}-bit weights are not supported (4 or 8)", bits);
  if (axis < 0 || axis >= w.rank()) fail("weight of shape {} has no axis {}", shape_str(w.shape()), axis);
  if (block <= 0) fail("block size must be positive, got {}", block);
  const int qmax = (1 << (bits - 1)) - 1;
  const int64_t dim = w.dim(axis), blocks = (dim + block - 1) / block;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= w.dim(d);
  for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  Shape sshape = w.shape();
  sshape[axis] = blocks;
  QuantizedWeight r;
  r.axis = axis, r.block_size = block;
  r.scale = Tensor(DType::Float32, sshape);
  r.q = Tensor(bits == 4 ? DType::Int4 : DType::Int8, w.shape());
  const float* x = w.data<float>();
  float* sc = r.scale.data<float>();
  auto* q = static_cast<int8_t*>(r.q.raw());  // int4 values take one byte each too
  // Element (o, a, i) is x[(o * dim + a) * inner + i]; its scale is sc[(o * blocks + a / block) * inner + i].
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < dim; ++a)
      for (int64_t i = 0; i < inner; ++i) {
        float& s = sc[(o * blocks + a / block) * inner + i];
        s = std::max(s, std::fabs(x[(o * dim + a) * inner + i]));
      }
  for (int64_t k = 0; k < r.scale.numel(); ++k) sc[k] = sc[k] > 0 ? sc[k] / qmax : 1.0f;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < dim; ++a)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * dim + a) * inner + i;
        const float v = std::nearbyint(x[k] / sc[(o * blocks + a / block) * inner + i]);
        q[k] = int8_t(std::clamp(v, float(-qmax), float(qmax)));
      }
  return r;
}

std::string weight_content_key(const Tensor& w) {
  const std::string_view bytes(static_cast<const char*>(w.raw()), w.nbytes());
  return fmt::format("{}{}:{:x}", int(w.dtype()), shape_str(w.shape()), std::hash<std::string_view>{}(bytes));
}

size_t stored_bytes(const Tensor& t) {
  if (t.dtype() == DType::Int4 || t.dtype() == DType::UInt4) return size_t(t.numel() + 1) / 2;
  return t.nbytes();
}

int64_t scale_index(const QuantizedWeight& qw, int64_t k) {
  if (qw.axis < 0) return 0;
  const int64_t dim = qw.q.dim(qw.axis);
  int64_t inner = 1;
  for (int d = qw.axis + 1; d < qw.q.rank(); ++d) inner *= qw.q.dim(d);
  const int64_t a = (k / inner) % dim;
  if (qw.block_size <= 0) return a;
  const int64_t blocks = qw.scale.dim(qw.axis), o = k / (inner * dim);
  return (o * blocks + a / qw.block_size) * inner + k % inner;
}

Tensor dequantize_weight(const QuantizedWeight& qw) {
  Tensor w(DType::Float32, qw.q.shape());
  const auto* q = static_cast<const int8_t*>(qw.q.raw());  // int4 values take one byte each too
  const float* s = qw.scale.data<float>();
  float* out = w.data<float>();
  for (int64_t k = 0; k < w.numel(); ++k) out[k] = float(q[k]) * s[scale_index(qw, k)];
  return w;
}

}  // namespace ms::quant
