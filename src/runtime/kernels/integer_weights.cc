#include "runtime/kernels/integer_weights.h"

#include <algorithm>

namespace ms::rt {

bool to_s8_weights(const Tensor& w, const Tensor* zp, bool channel_axis_first, S8Weights& out) {
  const bool u8 = w.dtype() == DType::UInt8;
  if ((!u8 && w.dtype() != DType::Int8) || w.rank() < 1) return false;
  if (zp && zp->dtype() != w.dtype()) return false;
  const int64_t channels = channel_axis_first ? w.dim(0) : w.dim(-1);
  if (zp && zp->numel() != 1 && (zp->rank() != 1 || zp->numel() != channels)) return false;
  const int64_t n = w.numel();
  const int64_t inner = channel_axis_first ? (channels ? n / channels : 0) : 1;
  auto channel_of = [&](int64_t i) { return channel_axis_first ? i / inner : i % channels; };
  std::vector<int32_t> wz(channels, 0);
  if (zp)
    for (int64_t m = 0; m < channels; ++m) wz[m] = int32_t(zp->as_double(zp->numel() == 1 ? 0 : m));
  std::vector<int32_t> v(n);
  if (u8) {
    const uint8_t* p = w.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) v[i] = p[i];
  } else {
    const int8_t* p = w.data<int8_t>();
    for (int64_t i = 0; i < n; ++i) v[i] = p[i];
  }
  // W − wz itself when it fits int8 everywhere: no correction term at run time.
  bool fits = true;
  for (int64_t i = 0; i < n && fits; ++i) {
    const int32_t d = v[i] - wz[channel_of(i)];
    fits = d >= -128 && d <= 127;
  }
  const int32_t shift = u8 ? 128 : 0;
  out.values = Tensor(DType::Int8, w.shape());
  int8_t* o = out.values.data<int8_t>();
  for (int64_t i = 0; i < n; ++i) o[i] = int8_t(fits ? v[i] - wz[channel_of(i)] : v[i] - shift);
  out.zp.clear();
  if (!fits) {
    for (int32_t& z : wz) z -= shift;
    if (std::any_of(wz.begin(), wz.end(), [](int32_t z) { return z != 0; })) out.zp = std::move(wz);
  }
  return true;
}

}  // namespace ms::rt
