#include "quant/input_hessian.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

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
// Window offsets a convolution's table holds at most (8 bytes each); past it, only the picked
// windows' offsets are computed, for each value.
constexpr int64_t kMaxWindowOffsets = int64_t(1) << 22;
// Blocks this small are summed in place: a oneDNN call costs more than their few products.
constexpr int64_t kSmallBlock = 32;
// Picked vectors wait in a queue per weight and half until about this many bytes are there, then
// one product adds them all: sgemm's inner dimension is the vectors, and oneDNN runs a block near
// its peak from some hundreds of them (AVX-512 core, 512-column block: about 70 GFLOP/s with 164,
// 120 with 512), while one value of a 4x4 feature map gives 16.
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
// up to its diagonal, so a 512-column block would cost 10/16 of the full product (a 128-column one
// is one panel).
constexpr int64_t kPanel = 128;

// The lower triangle (diagonal included) of H's diagonal blocks of slice `slice` in half `half`
// += Pᵀ P, for P [rows, dim] row-major. The upper triangle is left as it is (InputHessian::block
// mirrors the lower one).
// The lower triangle of dst [n, n] += Pᵀ P for the n columns at p of `rows` rows `ld` apart.
__attribute__((target_clones("avx512f", "avx2", "default"))) void small_products(const float* p, int64_t rows, int64_t ld,
                                                                                 int64_t n, float* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict v = p + r * ld;
    for (int64_t i = 0; i < n; ++i) {
      float* __restrict d = dst + i * n;
      const float a = v[i];
      for (int64_t j = 0; j <= i; ++j) d[j] += a * v[j];
    }
  }
}

void add_products(InputHessian& h, int half, int64_t slice, const float* p, int64_t rows) {
  if (rows == 0) return;
  for (int64_t b = 0; b < h.blocks(); ++b) {
    const int64_t b0 = h.block_begin(b), n = h.block_size(b);
    auto& part = h.halves[size_t(half)].parts[size_t(slice * h.blocks() + b)];
    if (n <= kSmallBlock) {  // a depthwise window: the outer products directly, without a call per group
      small_products(p + b0, rows, h.dim, n, part.data());
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
__attribute__((target_clones("avx512f", "avx2", "default"))) void column_sums(const float* __restrict p, int64_t rows, int64_t dim,
                                                                              double* __restrict sum) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict v = p + r * dim;
#pragma omp simd
    for (int64_t c = 0; c < dim; ++c) sum[c] += double(v[c]);
  }
}

void add_sums(InputHessian& h, int half, int64_t slice, const float* p, int64_t rows) {
  column_sums(p, rows, h.dim, h.halves[size_t(half)].sums[size_t(slice)].data());
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

// What makes a source's vectors, as a string: the value read and how vectors are cut from it (rows
// and the slice axis; or a convolution's windows: its attributes and the weight's shape past the
// output channels). Two weights whose sources give the same strings see the same vectors.
std::string vector_recipe(const std::string& value, const Node& n, const ReducedVectors& how, const Shape& w) {
  std::string r = fmt::format("{}\n{} {} {}", value, how.conv_windows ? 1 : 0, how.slice_axis, how.input >= 0 ? "in" : "out");
  if (!how.conv_windows) return r;
  r += fmt::format("\n{}::{}", n.domain, n.op_type);
  for (size_t d = 1; d < w.size(); ++d) r += fmt::format(" {}", w[d]);
  for (const auto& [name, a] : n.attrs)
    r += fmt::format("\n{} {} {} {} [{}] [{}]", name, int(a.type), a.i, a.s, fmt::join(a.ints, ","), fmt::join(a.floats, ","));
  return r;
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
  // Each weight's sources with what makes their vectors: the value, and how vectors are cut from it.
  struct Candidate {
    std::string value;
    Source source;
  };
  std::map<WeightKey, std::vector<Candidate>> by_weight;
  std::map<WeightKey, std::multiset<std::string>> recipes;  // weight -> its sources' vector recipes
  std::vector<WeightKey> order;  // first-seen order: the first weight of a recipe set gathers
  for_each_graph(m.graph, [&](const Graph& g) {
    for (const auto& site : weight_sites(g, opts)) {
      const Node& n = g.nodes[site.node];
      for (const auto& how : site.spec.reduced_vectors) {
        if (how.weight >= int(n.inputs.size())) continue;
        const std::string& value = how.input >= 0 ? (how.input < int(n.inputs.size()) ? n.inputs[how.input] : "")
                                                  : (how.output < int(n.outputs.size()) ? n.outputs[how.output] : "");
        auto w = g.initializers.find(n.inputs[how.weight]);
        if (value.empty() || w == g.initializers.end() || w->second.dtype() != DType::Float32) continue;
        const WeightKey key = weight_content_key(w->second);
        if (!by_weight.count(key)) order.push_back(key);
        by_weight[key].push_back({value, Source{key, &n, how, w->second.shape()}});
        recipes[key].insert(vector_recipe(value, n, how, w->second.shape()));
        names_.insert(value);
        if (!how.conv_windows) row_names_.insert(value);
      }
    }
  });
  std::map<std::multiset<std::string>, WeightKey> gatherer;
  for (const auto& key : order) {
    auto [it, first] = gatherer.emplace(recipes[key], key);
    if (!first) {
      copies_[key] = it->second;
      continue;
    }
    for (auto& c : by_weight[key]) sources_.emplace(c.value, std::move(c.source));
  }
}

const std::map<WeightKey, InputHessian>& HessianCollector::hessians() {
  finish();
  for (const auto& [copy, from] : copies_)
    if (auto it = hessians_.find(from); it != hessians_.end()) hessians_[copy] = it->second;
  return hessians_;
}

void HessianCollector::see(const std::string& name, const Tensor& value) { see_value(name, value, 0); }

void HessianCollector::see_blocked(const std::string& name, const Tensor& value, int block) {
  if (block <= 0 || value.rank() != 4) fail("internal: a blocked value '{}' of rank {} in blocks of {}", name, value.rank(), block);
  see_value(name, value, block);
}

void HessianCollector::see_value(const std::string& name, const Tensor& value, int block) {
  if (value.dtype() != DType::Float32) return;
  auto [first, last] = sources_.equal_range(name);
  for (auto it = first; it != last; ++it) {
    Source& s = it->second;
    InputHessian& h = hessians_[s.weight];
    if (h.dim > 0 && h.vectors(-1, 0) >= double(hessian_vector_budget(h.dim))) continue;
    if (s.how.conv_windows) add_windows(s, value, block, h);
    else if (block == 0) add_rows(s, value, h);
    else fail("internal: '{}' is read as rows, not from the blocked layout", name);
  }
}

int64_t HessianCollector::queue_limit(const InputHessian& h) {
  return std::clamp(kQueueBytes / int64_t(sizeof(float) * size_t(h.dim * h.slices)), int64_t(32), int64_t(1024));
}

float* HessianCollector::room(const WeightKey& key, InputHessian& h, int64_t slice, int64_t rows) {
  auto& queues = queued_[key][size_t(half_)];
  if (queues.empty()) queues.resize(size_t(h.slices));
  Queue& q = queues[size_t(slice)];
  if (q.rows + rows > q.capacity) {
    const int64_t capacity = std::max(queue_limit(h), q.rows + rows);
    std::unique_ptr<float[]> bigger(new float[size_t(capacity * h.dim)]);  // uninitialized: the gather writes it
    if (q.rows > 0) std::copy(q.data.get(), q.data.get() + q.rows * h.dim, bigger.get());
    held_bytes_ += size_t((capacity - q.capacity) * h.dim) * sizeof(float);
    q.data = std::move(bigger), q.capacity = capacity;
  }
  return q.data.get() + q.rows * h.dim;
}

void HessianCollector::commit(const WeightKey& key, InputHessian& h, int64_t slice, int64_t rows) {
  if (rows == 0) return;
  Queue& q = queued_[key][size_t(half_)][size_t(slice)];
  add_sums(h, half_, slice, q.data.get() + q.rows * h.dim, rows);
  q.rows += rows;
  if (q.rows >= queue_limit(h)) {
    add_products(h, half_, slice, q.data.get(), q.rows);
    q.rows = 0;
  }
  if (held_bytes_ > kQueuesHeldBytes) finish();
}

void HessianCollector::finish() {
  for (auto& [key, halves] : queued_) {
    InputHessian& h = hessians_.at(key);
    for (int half = 0; half < 2; ++half)
      for (size_t slice = 0; slice < halves[size_t(half)].size(); ++slice) {
        const Queue& q = halves[size_t(half)][slice];
        add_products(h, half, int64_t(slice), q.data.get(), q.rows);
      }
  }
  queued_.clear();
  held_bytes_ = 0;
}

void HessianCollector::add_windows(Source& s, const Tensor& x, int block, InputHessian& h) {
  const Node& n = *s.node;
  if (x.rank() < 3) return;
  const Attribute* g = n.attr("group");
  const int64_t group = g ? g->i : 1;
  const int64_t N = x.dim(0), C = x.dim(1), cg = C / group;
  if (!s.windows || s.windows->input != x.shape()) {
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    if (!def) return;
    auto w = std::make_shared<Windows>();
    const WindowGeom geom = conv_geom(AttrReader(n, *def), x.shape(), s.weight_shape, group);
    w->input = x.shape();
    w->K = geom.kernel_numel(), w->O = geom.out_numel(), w->plane = geom.in_numel();
    // Every window's offsets, once per shape (a value is seen once a sample); an input too large
    // for that table computes the picked windows' offsets each time.
    if (w->O * w->K <= kMaxWindowOffsets) w->offsets = window_offsets(geom);
    else w->geom = geom;
    s.windows = std::move(w);
  }
  const Windows& win = *s.windows;
  const int64_t K = win.K, O = win.O, plane = win.plane, dim = cg * K;
  if (!shape_hessian(h, dim, group)) return;
  const std::vector<int64_t> picks = spread(N * O, hessian_vectors_per_value(dim, samples_), sample_);
  std::vector<int64_t> own;
  if (win.offsets.empty()) {
    own.resize(picks.size() * size_t(K));
    for (size_t r = 0; r < picks.size(); ++r) window_offsets_at(win.geom, picks[r] % O, own.data() + r * size_t(K));
  }
  auto window_of = [&](size_t r) {
    return win.offsets.empty() ? own.data() + r * size_t(K) : win.offsets.data() + (picks[r] % O) * K;
  };
  const float* xd = x.data<float>();
  for (int64_t gi = 0; gi < group; ++gi) {
    float* p = room(s.weight, h, gi, int64_t(picks.size()));  // gathered straight into the queue
    for (size_t r = 0; r < picks.size(); ++r) {
      const int64_t batch = picks[r] / O;
      const int64_t* window = window_of(r);
      float* row = p + r * size_t(dim);
      if (block == 0) {  // plain: channel ch's plane at (batch * C + ch) * plane
        for (int64_t c = 0; c < cg; ++c) {
          const float* src = xd + (batch * C + gi * cg + c) * plane;
          for (int64_t k = 0; k < K; ++k) row[c * K + k] = window[k] >= 0 ? src[window[k]] : 0.0f;
        }
        continue;
      }
      // Blocked: channel ch is lane ch % block of channel block ch / block, its positions `block`
      // floats apart; each tap reads the lanes of a block side by side.
      const float* image = xd + batch * ((C + block - 1) / block) * plane * block;
      for (int64_t c0 = gi * cg, end = (gi + 1) * cg; c0 < end;) {
        const int64_t lane0 = c0 % block, lanes = std::min<int64_t>(block - lane0, end - c0);
        const float* base = image + (c0 / block) * plane * block + lane0;
        float* dst = row + (c0 - gi * cg) * K;
        if (K == 1) {
          if (window[0] >= 0) std::copy(base + window[0] * block, base + window[0] * block + lanes, dst);
          else std::fill(dst, dst + lanes, 0.0f);
        } else {
          for (int64_t k = 0; k < K; ++k) {
            if (window[k] < 0) {
              for (int64_t j = 0; j < lanes; ++j) dst[j * K + k] = 0.0f;
              continue;
            }
            const float* src = base + window[k] * block;
            for (int64_t j = 0; j < lanes; ++j) dst[j * K + k] = src[j];
          }
        }
        c0 += lanes;
      }
    }
    commit(s.weight, h, gi, int64_t(picks.size()));
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
    float* p = room(s.weight, h, slice, int64_t(picks.size()));
    for (size_t r = 0; r < picks.size(); ++r)
      std::copy(xd + mine[size_t(picks[r])] * dim, xd + (mine[size_t(picks[r])] + 1) * dim, p + r * size_t(dim));
    commit(s.weight, h, slice, int64_t(picks.size()));
  }
}

}  // namespace ms::quant
