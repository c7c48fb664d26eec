// Helpers of the signal ops.
#include "ops/signal_util.h"

#include <cmath>
#include <numbers>

namespace ms {

std::vector<std::complex<double>> naive_dft(const std::vector<std::complex<double>>& x, int64_t n, int64_t n_out,
                                            bool inverse) {
  std::vector<std::complex<double>> tw(n);
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t i = 0; i < n; ++i) tw[i] = std::polar(1.0, sign * 2 * std::numbers::pi * double(i) / double(n));
  const int64_t m = std::min<int64_t>(n, static_cast<int64_t>(x.size()));
  std::vector<std::complex<double>> out(n_out);
  for (int64_t k = 0; k < n_out; ++k) {
    std::complex<double> s = 0;
    // (j * k) mod n keeps the twiddle index exact for long signals.
    for (int64_t j = 0; j < m; ++j) s += x[j] * tw[(j * k) % n];
    out[k] = inverse ? s / double(n) : s;
  }
  return out;
}

int64_t scalar_int_input(const KernelContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  if (t.numel() != 1 || !dtype_is_integer(t.dtype()))
    fail("{}: input {} must be an integer scalar, got {} {}", ctx.node().label(), i, dtype_name(t.dtype()),
         shape_str(t.shape()));
  return t.as_int64(0);
}

Tensor tensor_from_doubles(DType dt, Shape shape, const std::vector<double>& v, const std::string& who) {
  Tensor t(dt, std::move(shape));
  dispatch_all_numeric(dt, who, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
  });
  return t;
}

}  // namespace ms
