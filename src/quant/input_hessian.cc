#include "quant/input_hessian.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>

#include "ops/conv_pool_util.h"
#include "ops/op.h"

namespace ms::quant {
namespace {

// Vectors taken from one value at most, and per weight between these bounds: H needs many more
// vectors than its size to be worth fitting, while its cost grows with each (a 3x3 convolution over
// 512 channels adds 4.7 MFLOP per vector).
constexpr int64_t kVectorsPerValue = 4096;
constexpr int64_t kVectorsPerColumn = 64;
constexpr int64_t kMinVectorsPerWeight = 2048;
constexpr int64_t kMaxVectorsPerWeight = 32768;
// Blocks this small are summed in place: a oneDNN call costs more than their few products.
constexpr int64_t kSmallBlock = 32;
// Picked vectors wait in a queue per weight and half until about this many bytes are there, then
// one product adds them all: sgemm's inner dimension is the vectors, and oneDNN runs a 512-column
// block near its peak from some hundreds of them (AVX-512 core: about 70 GFLOP/s with 164, 120 with
// 512), while one value of a 4x4 feature map gives 16.
constexpr int64_t kQueueBytes = int64_t(1) << 20;
// All queues together hold at most this much (ResNet-50's 54 weights: 82 MB); past it, every queue
// is added and freed.
constexpr size_t kQueuesHeldBytes = size_t(128) << 20;

// At most `most` picks out of `count`, one in each of `most` equal strides, at a point within it
// that moves with i and with the sample (golden-ratio steps): evenly spread, but not always the
// same column of a feature map whose width divides the stride.
std::vector<int64_t> spread(int64_t count, int64_t most, size_t sample) {
  std::vector<int64_t> r;
  const int64_t n = std::min(count, most);
  r.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    const double u = std::fmod(double(sample * size_t(n) + size_t(i)) * 0.6180339887498949, 1.0);
    r.push_back(std::min(count - 1, int64_t((double(i) + u) * double(count) / double(n))));
  }
  return r;
}

// Column panels of a block's lower triangle: panel i0 takes rows [i0, i0 + kPanel) and the columns
// up to its diagonal, so a 512-column block costs 10/16 of the full product.
constexpr int64_t kPanel = 128;

// The lower triangle (diagonal included) of H's diagonal blocks of slice `slice` in half `half`
// += Pᵀ P, for P [rows, dim] row-major. The upper triangle is left as it is (InputHessian::block
// mirrors the lower one).
void add_products(InputHessian& h, int half, int64_t slice, const float* p, int64_t rows) {
  if (rows == 0) return;
  for (int64_t b = 0; b < h.blocks(); ++b) {
    const int64_t b0 = h.block_begin(b), n = h.block_size(b);
    auto& part = h.halves[size_t(half)].parts[size_t(slice * h.blocks() + b)];
    if (n <= kSmallBlock) {  // a depthwise window: the outer products directly, without a call per group
      for (int64_t r = 0; r < rows; ++r) {
        const float* __restrict v = p + r * h.dim + b0;
        for (int64_t i = 0; i < n; ++i) {
          float* __restrict dst = part.data() + i * n;
          const float a = v[i];
          for (int64_t j = 0; j <= i; ++j) dst[j] += a * v[j];
        }
      }
      continue;
    }
    for (int64_t i0 = 0; i0 < n; i0 += kPanel) {
      const int64_t m = std::min(kPanel, n - i0);
      if (dnnl_sgemm('T', 'N', m, i0 + m, rows, 1.f, p + b0 + i0, h.dim, p + b0, h.dim, 1.f, part.data() + i0 * n, n) !=
          dnnl_success)
        fail("internal: oneDNN sgemm failed for a {}x{}x{} product", m, i0 + m, rows);
    }
  }
}

// The vectors' count and column sums, counted when they are queued (the budget check reads them).
void add_sums(InputHessian& h, int half, int64_t slice, const float* p, int64_t rows) {
  auto& sum = h.halves[size_t(half)].sums[size_t(slice)];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < h.dim; ++c) sum[size_t(c)] += double(p[r * h.dim + c]);
  h.halves[size_t(half)].vectors[size_t(slice)] += double(rows);
}

// Sizes H for `dim` columns and `slices` slices on first use; false when an earlier value of
// another size came first (a repeated name in a sibling body).
bool shape_hessian(InputHessian& h, int64_t dim, int64_t slices) {
  if (h.dim == 0) {
    h.dim = dim, h.slices = slices;
    for (auto& half : h.halves) {
      half.parts.resize(size_t(slices * h.blocks()));
      for (int64_t s = 0; s < slices; ++s)
        for (int64_t b = 0; b < h.blocks(); ++b)
          half.parts[size_t(s * h.blocks() + b)].assign(size_t(h.block_size(b) * h.block_size(b)), 0.0f);
      half.vectors.assign(size_t(slices), 0.0);
      half.sums.assign(size_t(slices), std::vector<double>(size_t(dim), 0.0));
    }
  }
  return h.dim == dim && h.slices == slices;
}

}  // namespace

int64_t hessian_vector_budget(int64_t dim) {
  return std::clamp(kVectorsPerColumn * dim, kMinVectorsPerWeight, kMaxVectorsPerWeight);
}

int64_t hessian_vectors_per_value(int64_t dim, size_t samples) {
  const int64_t n = int64_t(std::max<size_t>(1, samples));
  return std::min(kVectorsPerValue, (hessian_vector_budget(dim) + n - 1) / n);
}

double InputHessian::vectors(int half, int64_t s) const {
  if (half < 0) return vectors(0, s) + vectors(1, s);
  const auto& v = halves[size_t(half)].vectors;
  return size_t(s) < v.size() ? v[size_t(s)] : 0.0;
}

std::vector<double> InputHessian::block(int half, int64_t s, int64_t b, bool centered) const {
  const int64_t b0 = block_begin(b), len = block_size(b);
  std::vector<double> part(size_t(len * len), 0.0), sum(size_t(len), 0.0);
  for (int k = 0; k < 2; ++k) {
    if (half >= 0 && half != k) continue;
    const Half& h = halves[size_t(k)];
    const auto& p = h.parts[size_t(s * blocks() + b)];
    for (int64_t i = 0; i < len; ++i)  // the lower triangle is the one summed
      for (int64_t j = 0; j <= i; ++j) part[size_t(i * len + j)] += double(p[size_t(i * len + j)]);
    for (int64_t i = 0; i < len; ++i) sum[size_t(i)] += h.sums[size_t(s)][size_t(b0 + i)];
  }
  for (int64_t i = 0; i < len; ++i)
    for (int64_t j = 0; j < i; ++j) part[size_t(j * len + i)] = part[size_t(i * len + j)];
  const double n = vectors(half, s);
  if (centered && n > 0)
    for (int64_t i = 0; i < len; ++i)
      for (int64_t j = 0; j < len; ++j) part[size_t(i * len + j)] -= sum[size_t(i)] * sum[size_t(j)] / n;
  return part;
}

HessianCollector::HessianCollector(const Model& m, const QuantOptions& opts) {
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& site : weight_sites(g, opts)) {
      const Node& n = g.nodes[site.node];
      for (const auto& how : site.spec.reduced_vectors) {
        if (how.weight >= int(n.inputs.size())) continue;
        const std::string& value = how.input >= 0 ? (how.input < int(n.inputs.size()) ? n.inputs[how.input] : "")
                                                  : (how.output < int(n.outputs.size()) ? n.outputs[how.output] : "");
        auto w = g.initializers.find(n.inputs[how.weight]);
        if (value.empty() || w == g.initializers.end() || w->second.dtype() != DType::Float32) continue;
        sources_.emplace(value, Source{weight_content_key(w->second), &n, how, w->second.shape()});
        names_.insert(value);
      }
    }
  });
}

void HessianCollector::see(const std::string& name, const Tensor& value) {
  if (value.dtype() != DType::Float32) return;
  auto [first, last] = sources_.equal_range(name);
  for (auto it = first; it != last; ++it) {
    const Source& s = it->second;
    InputHessian& h = hessians_[s.weight];
    if (h.dim > 0 && h.vectors(-1, 0) >= double(hessian_vector_budget(h.dim))) continue;
    if (s.how.conv_windows) add_windows(s, value, h);
    else add_rows(s, value, h);
  }
}

void HessianCollector::queue(const WeightKey& key, InputHessian& h, int64_t slice, const float* p, int64_t rows) {
  if (rows == 0) return;
  add_sums(h, half_, slice, p, rows);
  const int64_t limit = std::clamp(kQueueBytes / int64_t(sizeof(float) * size_t(h.dim * h.slices)), int64_t(32), int64_t(1024));
  auto& queues = queued_[key][size_t(half_)];
  if (queues.empty()) queues.resize(size_t(h.slices));
  auto& q = queues[size_t(slice)];
  if (q.empty() && rows >= limit) {  // enough already: no copy
    add_products(h, half_, slice, p, rows);
    return;
  }
  const size_t before = q.capacity();
  if (q.empty()) q.reserve(size_t(limit * h.dim));
  q.insert(q.end(), p, p + rows * h.dim);
  held_bytes_ += (q.capacity() - before) * sizeof(float);
  const int64_t queued = int64_t(q.size()) / h.dim;
  if (queued >= limit) {
    add_products(h, half_, slice, q.data(), queued);
    q.clear();
  }
  if (held_bytes_ > kQueuesHeldBytes) finish();
}

void HessianCollector::finish() {
  for (auto& [key, halves] : queued_) {
    InputHessian& h = hessians_.at(key);
    for (int half = 0; half < 2; ++half)
      for (size_t slice = 0; slice < halves[size_t(half)].size(); ++slice) {
        const auto& q = halves[size_t(half)][slice];
        add_products(h, half, int64_t(slice), q.data(), int64_t(q.size()) / h.dim);
      }
  }
  queued_.clear();
  held_bytes_ = 0;
}

void HessianCollector::add_windows(const Source& s, const Tensor& x, InputHessian& h) {
  const Node& n = *s.node;
  const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
  if (!def || x.rank() < 3) return;
  const Attribute* g = n.attr("group");
  const int64_t group = g ? g->i : 1;
  const WindowGeom geom = conv_geom(AttrReader(n, *def), x.shape(), s.weight_shape, group);
  const int64_t K = geom.kernel_numel(), O = geom.out_numel(), plane = geom.in_numel();
  const int64_t N = x.dim(0), C = x.dim(1), cg = C / group, dim = cg * K;
  if (!shape_hessian(h, dim, group)) return;
  const std::vector<int64_t> picks = spread(N * O, hessian_vectors_per_value(dim, samples_), sample_);
  // Only the picked windows' offsets: a budget spread over many samples picks few of each.
  std::vector<int64_t> offs(picks.size() * size_t(K));
  for (size_t r = 0; r < picks.size(); ++r) window_offsets_at(geom, picks[r] % O, offs.data() + r * size_t(K));
  const float* xd = x.data<float>();
  std::vector<float>& p = scratch_;  // reused: a fresh one a value costs its page faults
  p.resize(picks.size() * size_t(dim));
  for (int64_t gi = 0; gi < group; ++gi) {
    for (size_t r = 0; r < picks.size(); ++r) {
      const int64_t batch = picks[r] / O;
      const int64_t* window = offs.data() + r * size_t(K);
      float* row = p.data() + r * size_t(dim);
      for (int64_t c = 0; c < cg; ++c) {
        const float* src = xd + (batch * C + gi * cg + c) * plane;
        for (int64_t k = 0; k < K; ++k) row[c * K + k] = window[k] >= 0 ? src[window[k]] : 0.0f;
      }
    }
    queue(s.weight, h, gi, p.data(), int64_t(picks.size()));
  }
}

void HessianCollector::add_rows(const Source& s, const Tensor& x, InputHessian& h) {
  if (x.rank() < 1) return;
  const int64_t dim = x.dim(x.rank() - 1);
  const int64_t slices = s.how.slice_axis >= 0 && s.how.slice_axis < x.rank() - 1 ? x.dim(s.how.slice_axis) : 1;
  if (dim == 0 || !shape_hessian(h, dim, slices)) return;
  // Vector v lies in slice (v / after) % slices, `after` counting the vectors per step of the slice axis.
  int64_t after = 1;
  if (s.how.slice_axis >= 0)
    for (int d = s.how.slice_axis + 1; d < x.rank() - 1; ++d) after *= x.dim(d);
  const int64_t count = x.numel() / dim;
  const float* xd = x.data<float>();
  for (int64_t slice = 0; slice < slices; ++slice) {
    std::vector<int64_t> mine;
    for (int64_t v = 0; v < count; ++v)
      if ((v / after) % slices == slice) mine.push_back(v);
    const std::vector<int64_t> picks = spread(int64_t(mine.size()), hessian_vectors_per_value(dim, samples_), sample_);
    std::vector<float>& p = scratch_;
    p.resize(picks.size() * size_t(dim));
    for (size_t r = 0; r < picks.size(); ++r)
      std::copy(xd + mine[size_t(picks[r])] * dim, xd + (mine[size_t(picks[r])] + 1) * dim, p.begin() + r * size_t(dim));
    queue(s.weight, h, slice, p.data(), int64_t(picks.size()));
  }
}

}  // namespace ms::quant
