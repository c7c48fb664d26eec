#include "quant/sum_preserving_rounding.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ms::quant {
namespace {

// One group: elements idx of x (float) and q (integers in [-qmax, qmax]) sharing scale s.
void keep_group_sum(const float* x, int8_t* q, const std::vector<int64_t>& idx, float s, int qmax) {
  double exact = 0;
  int64_t rounded = 0;
  for (int64_t k : idx) exact += double(x[k]) / s, rounded += q[k];
  const int64_t target = std::clamp<int64_t>(std::llround(exact), -int64_t(qmax) * int64_t(idx.size()),
                                             int64_t(qmax) * int64_t(idx.size()));
  int64_t missing = target - rounded;
  if (missing == 0) return;
  const int step = missing > 0 ? 1 : -1;
  // The elements whose exact value lies furthest towards `step` from their rounding move first.
  std::vector<std::pair<double, int64_t>> order;
  order.reserve(idx.size());
  for (int64_t k : idx)
    if (std::abs(q[k] + step) <= qmax) order.push_back({step * (double(x[k]) / s - q[k]), k});
  const size_t moves = std::min<size_t>(order.size(), size_t(std::abs(missing)));
  std::partial_sort(order.begin(), order.begin() + moves, order.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < moves; ++i) q[order[i].second] = int8_t(q[order[i].second] + step);
}

}  // namespace

void keep_scale_group_sums(QuantizedWeight& qw, const Tensor& w) {
  const int qmax = qw.q.dtype() == DType::Int4 ? 7 : 127;
  const float* x = w.data<float>();
  auto* q = static_cast<int8_t*>(qw.q.raw());  // int4 values take one byte each too
  const float* sc = qw.scale.data<float>();
  const int axis = qw.axis;
  int64_t outer = 1, dim = 1, inner = 1;
  if (axis < 0) {
    inner = w.numel();
  } else {
    dim = w.dim(axis);
    for (int d = 0; d < axis; ++d) outer *= w.dim(d);
    for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  }
  std::vector<int64_t> idx;
  if (qw.block_size > 0) {  // groups: (o, block, i) along the blocked axis
    const int64_t blocks = qw.scale.dim(axis);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t b = 0; b < blocks; ++b)
        for (int64_t i = 0; i < inner; ++i) {
          idx.clear();
          for (int64_t a = b * qw.block_size; a < std::min(dim, (b + 1) * qw.block_size); ++a)
            idx.push_back((o * dim + a) * inner + i);
          keep_group_sum(x, q, idx, sc[(o * blocks + b) * inner + i], qmax);
        }
    return;
  }
  for (int64_t c = 0; c < dim; ++c) {  // groups: one channel (or the whole tensor) over outer and inner
    idx.clear();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) idx.push_back((o * dim + c) * inner + i);
    keep_group_sum(x, q, idx, sc[c], qmax);
  }
}

}  // namespace ms::quant
