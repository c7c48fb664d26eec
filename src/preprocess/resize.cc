#include "preprocess/resize.h"

#include <algorithm>
#include <cmath>

namespace ms::preprocess {
namespace {

// For one output coordinate: the two source indices it blends and the weight of the second.
struct Tap {
  int64_t i0 = 0, i1 = 0;
  float w1 = 0;
};

// OpenCV computes the scale as 1 / (dst / src) and the position in float; both are kept so that
// results match it to the last bit where the arithmetic allows.
std::vector<Tap> linear_taps(int64_t src, int64_t dst) {
  const double scale = 1.0 / (double(dst) / double(src));
  std::vector<Tap> taps(static_cast<size_t>(dst));
  for (int64_t d = 0; d < dst; ++d) {
    float f = float((double(d) + 0.5) * scale - 0.5);
    int64_t s = int64_t(std::floor(f));
    f -= float(s);
    if (s < 0) f = 0, s = 0;
    if (s >= src - 1) f = 0, s = src - 1;
    taps[size_t(d)] = {s, std::min(s + 1, src - 1), f};
  }
  return taps;
}

std::vector<int64_t> nearest_index(int64_t src, int64_t dst) {
  const double scale = 1.0 / (double(dst) / double(src));
  std::vector<int64_t> idx(static_cast<size_t>(dst));
  for (int64_t d = 0; d < dst; ++d) idx[size_t(d)] = std::min(int64_t(std::floor(double(d) * scale)), src - 1);
  return idx;
}

Image resize_linear(const Image& src, HeightWidth to) {
  const auto xs = linear_taps(src.width, to.width), ys = linear_taps(src.height, to.height);
  const int64_t c = src.channels;
  // Horizontal pass into rows of the output width, then a vertical blend of two such rows.
  auto horizontal = [&](int64_t y, std::vector<float>& row) {
    for (int64_t x = 0; x < to.width; ++x) {
      const Tap& t = xs[size_t(x)];
      for (int64_t k = 0; k < c; ++k) row[size_t(x * c + k)] = src.at(y, t.i0, k) * (1 - t.w1) + src.at(y, t.i1, k) * t.w1;
    }
  };
  Image out(to.height, to.width, c);
  std::vector<float> r0(static_cast<size_t>(to.width * c)), r1(r0.size());
  for (int64_t y = 0; y < to.height; ++y) {
    const Tap& t = ys[size_t(y)];
    horizontal(t.i0, r0);
    horizontal(t.i1, r1);
    float* o = &out.pixels[size_t(y * to.width * c)];
    for (size_t i = 0; i < r0.size(); ++i) o[i] = r0[i] * (1 - t.w1) + r1[i] * t.w1;
  }
  return out;
}

Image resize_nearest(const Image& src, HeightWidth to) {
  const auto xs = nearest_index(src.width, to.width), ys = nearest_index(src.height, to.height);
  Image out(to.height, to.width, src.channels);
  for (int64_t y = 0; y < to.height; ++y)
    for (int64_t x = 0; x < to.width; ++x)
      for (int64_t k = 0; k < src.channels; ++k) out.at(y, x, k) = src.at(ys[size_t(y)], xs[size_t(x)], k);
  return out;
}

}  // namespace

Image resize(const Image& src, HeightWidth to, ResizeMethod method) {
  if (src.height == to.height && src.width == to.width) return src;
  return method == ResizeMethod::Nearest ? resize_nearest(src, to) : resize_linear(src, to);
}

}  // namespace ms::preprocess
