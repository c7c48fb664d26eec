// GPTQ weight rounding (quant/gptq.h, input_hessian.h, weight_rounding.h): the algorithm against a
// two-column case worked out by hand, against rounding to nearest on correlated inputs (fitted and
// held-out), the Hessians calibration gathers against sums written out here (convolution windows;
// queued, panelled products over two blocks against double sums), and a whole
// WEIGHT_QUANT model against the float one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/input_samples.h"
#include "quant/calibrate.h"
#include "quant/gptq.h"
#include "quant/input_hessian.h"
#include "quant/quantizer.h"
#include "quant/weight_rounding.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

// Vectors x = A z with z standard normal: strongly correlated columns, as a layer's inputs are.
std::vector<float> correlated_vectors(int64_t n, int64_t d, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> z(0, 1);
  std::mt19937 ga(7);  // one mixing matrix for every draw
  std::vector<float> a(size_t(d * d));
  for (auto& v : a) v = z(ga);
  std::vector<float> x(size_t(n * d));
  std::vector<float> zz(static_cast<size_t>(d));
  for (int64_t i = 0; i < n; ++i) {
    for (auto& v : zz) v = z(g);
    for (int64_t r = 0; r < d; ++r) {
      float s = 1.0f;  // a shared mean, as ReLU outputs have
      for (int64_t c = 0; c < d; ++c) s += a[size_t(r * d + c)] * zz[size_t(c)] / float(d);
      x[size_t(i * d + r)] = s;
    }
  }
  return x;
}

std::vector<double> second_moment(const std::vector<float>& x, int64_t n, int64_t d) {
  std::vector<double> h(size_t(d * d), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < d; ++r)
      for (int64_t c = 0; c < d; ++c) h[size_t(r * d + c)] += double(x[size_t(i * d + r)]) * x[size_t(i * d + c)];
  return h;
}

std::vector<int8_t> nearest(const std::vector<float>& w, const std::vector<float>& s, int qmax) {
  std::vector<int8_t> q(w.size());
  for (size_t k = 0; k < w.size(); ++k) q[k] = int8_t(std::clamp(std::nearbyint(w[k] / s[k]), float(-qmax), float(qmax)));
  return q;
}

// Two columns, no damping. Rounding column 0 leaves err0 = w0 - q0 s; the column-1 change that
// best cancels it over inputs with E[x0 x1] = b, E[x1²] = c is err0 * b / c. Here w = (0.3, 0.45),
// s = 1, b / c = 0.5: column 1 becomes 0.6 and rounds to 1, where nearest gives 0.
TEST(Gptq, TwoColumnsMoveTheErrorByTheInputCorrelation) {
  const std::vector<double> h = {4.0, 1.0, 1.0, 2.0};  // b = 1, c = 2
  const auto q = quant::gptq_round({0.3f, 0.45f}, 1, 2, {1.0f, 1.0f}, 127, h, 1.0, 0.0);
  EXPECT_EQ(q, (std::vector<int8_t>{0, 1}));
  // With b = -1 the move changes sign: column 1 becomes -0.45 - 0.15 = -0.6 and rounds to -1.
  const auto qn = quant::gptq_round({0.3f, -0.45f}, 1, 2, {1.0f, 1.0f}, 127, {4.0, -1.0, -1.0, 2.0}, 1.0, 0.0);
  EXPECT_EQ(qn, (std::vector<int8_t>{0, -1}));
}

// Uncorrelated inputs give no reason to move an error: GPTQ is rounding to nearest.
TEST(Gptq, DiagonalHessianIsRoundingToNearest) {
  std::mt19937 g(3);
  std::normal_distribution<float> d(0, 1);
  const int64_t rows = 5, cols = 16;
  std::vector<float> w(size_t(rows * cols)), s(w.size(), 0.02f);
  for (auto& v : w) v = d(g);
  std::vector<double> h(size_t(cols * cols), 0.0);
  for (int64_t i = 0; i < cols; ++i) h[size_t(i * cols + i)] = 1.0 + double(i);
  EXPECT_EQ(quant::gptq_round(w, rows, cols, s, 127, h), nearest(w, s, 127));
}

// On correlated inputs GPTQ's output error is well below nearest's on the vectors it was fitted to,
// and stays below it on vectors drawn afresh from the same distribution. Clamping holds.
TEST(Gptq, CorrelatedInputsLoseLessThanNearestFittedAndHeldOut) {
  const int64_t rows = 16, cols = 64, n = 2000;
  std::mt19937 g(11);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> w(size_t(rows * cols)), s(w.size());
  for (int64_t r = 0; r < rows; ++r) {
    float m = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, std::fabs(w[size_t(r * cols + c)] = d(g)));
    for (int64_t c = 0; c < cols; ++c) s[size_t(r * cols + c)] = m / 7;  // 4-bit steps make the gap clear
  }
  const auto fit = second_moment(correlated_vectors(n, cols, 1), n, cols);
  const auto held_out = second_moment(correlated_vectors(n, cols, 2), n, cols);
  const auto q = quant::gptq_round(w, rows, cols, s, 7, fit);
  const auto q0 = nearest(w, s, 7);
  for (int8_t v : q) EXPECT_LE(std::abs(int(v)), 7);
  const double fitted = quant::output_error(w, q, s, rows, cols, fit), fitted0 = quant::output_error(w, q0, s, rows, cols, fit);
  const double held = quant::output_error(w, q, s, rows, cols, held_out),
               held0 = quant::output_error(w, q0, s, rows, cols, held_out);
  EXPECT_LT(fitted, 0.5 * fitted0);
  EXPECT_LT(held, 0.6 * held0);
}

// 300 columns (past the size where the factorization and the column updates run in parallel)
// against GPTQ as the paper states it, in double: round column i, spread its error over the later
// columns by row i of H⁻¹ over its diagonal, then remove i from H⁻¹ (H⁻¹ -= H⁻¹[:,i] H⁻¹[i,:] /
// H⁻¹[i,i]); columns taken by decreasing H diagonal, H damped by 1% of its mean diagonal.
TEST(Gptq, ManyColumnsMatchTheTextbookAlgorithm) {
  const int64_t rows = 24, cols = 300, n = 1500;
  std::mt19937 g(12);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> w(size_t(rows * cols)), s(w.size());
  for (size_t k = 0; k < w.size(); ++k) w[k] = d(g), s[k] = 0.25f;
  const auto h = second_moment(correlated_vectors(n, cols, 3), n, cols);
  const auto q = quant::gptq_round(w, rows, cols, s, 7, h, 1.0, 0.01);

  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t i = 0; i < cols; ++i) order[size_t(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return h[size_t(a * cols + a)] > h[size_t(b * cols + b)]; });
  double mean_diag = 0;
  for (int64_t i = 0; i < cols; ++i) mean_diag += h[size_t(i * cols + i)] / double(cols);
  // [H (permuted, damped) | I] -> [I | H⁻¹] by Gauss-Jordan elimination.
  std::vector<double> a(size_t(cols * 2 * cols), 0.0);
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < cols; ++j) a[size_t(i * 2 * cols + j)] = h[size_t(order[size_t(i)] * cols + order[size_t(j)])];
    a[size_t(i * 2 * cols + i)] += 0.01 * mean_diag;
    a[size_t(i * 2 * cols + cols + i)] = 1.0;
  }
  for (int64_t c = 0; c < cols; ++c) {
    const double p = a[size_t(c * 2 * cols + c)];
    for (int64_t j = 0; j < 2 * cols; ++j) a[size_t(c * 2 * cols + j)] /= p;
    for (int64_t r = 0; r < cols; ++r) {
      if (r == c) continue;
      const double f = a[size_t(r * 2 * cols + c)];
      for (int64_t j = 0; j < 2 * cols; ++j) a[size_t(r * 2 * cols + j)] -= f * a[size_t(c * 2 * cols + j)];
    }
  }
  std::vector<double> hinv(size_t(cols * cols));
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < cols; ++j) hinv[size_t(i * cols + j)] = a[size_t(i * 2 * cols + cols + j)];
  std::vector<double> pw(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) pw[size_t(r * cols + c)] = w[size_t(r * cols + order[size_t(c)])];
  std::vector<int8_t> want(w.size());
  for (int64_t i = 0; i < cols; ++i) {
    const double hii = hinv[size_t(i * cols + i)];
    for (int64_t r = 0; r < rows; ++r) {
      const double v = pw[size_t(r * cols + i)];
      const double qi = std::clamp(std::nearbyint(v / 0.25), -7.0, 7.0);
      want[size_t(r * cols + order[size_t(i)])] = int8_t(qi);
      const double err = (v - qi * 0.25) / hii;
      for (int64_t j = i + 1; j < cols; ++j) pw[size_t(r * cols + j)] -= err * hinv[size_t(i * cols + j)];
    }
    for (int64_t j = i + 1; j < cols; ++j)
      for (int64_t k = i + 1; k < cols; ++k)
        hinv[size_t(j * cols + k)] -= hinv[size_t(j * cols + i)] * hinv[size_t(i * cols + k)] / hii;
  }
  // Float updates against double ones: a value within rounding of a grid midpoint may go the
  // other way, and the columns after it follow; nearly all must agree, and the output errors.
  size_t same = 0;
  for (size_t k = 0; k < q.size(); ++k) same += q[k] == want[k];
  EXPECT_GE(double(same), 0.98 * double(q.size()));
  const double e = quant::output_error(w, q, s, rows, cols, h), e_want = quant::output_error(w, want, s, rows, cols, h);
  EXPECT_NEAR(e, e_want, 0.02 * e_want);
}

// ---- Hessians gathered by calibration ------------------------------------------------------------

Model conv_model(int64_t group) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "conv";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 4, 5, 6})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {})};
  Tensor w(DType::Float32, {8, 4 / group, 3, 3});
  std::mt19937 g(5);
  std::normal_distribution<float> d(0, 1);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  m.graph.initializers["W"] = w;
  Node n = test::make_node("Conv", {"x", "W"}, {"y"}, "conv");
  n.attrs["pads"] = Attribute::of_ints({1, 0, 1, 2});
  n.attrs["strides"] = Attribute::of_ints({2, 1});
  n.attrs["group"] = Attribute::of_int(group);
  m.graph.nodes = {n};
  return m;
}

// Smooth fields plus a little noise, [N, C, H, W]: neighbouring taps of a window correlate, as
// they do in images and feature maps.
Tensor input(uint32_t seed, Shape shape) {
  Tensor x(DType::Float32, shape);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  float* p = x.data<float>();
  for (int64_t nc = 0; nc < shape[0] * shape[1]; ++nc) {
    const float a = d(g), b = d(g), fy = 0.5f + 0.3f * d(g), fx = 0.5f + 0.3f * d(g), offset = 0.5f + 0.5f * d(g);
    for (int64_t y = 0; y < shape[2]; ++y)
      for (int64_t xx = 0; xx < shape[3]; ++xx)
        *p++ = offset + a * std::sin(fy * float(y)) + b * std::cos(fx * float(xx)) + 0.1f * d(g);
  }
  return x;
}

analysis::InputSamples samples(size_t n, Shape shape, uint32_t seed = 100) {
  return analysis::InputSamples({{n, [=](size_t i) { return Value(input(seed + uint32_t(i), shape)); },
                                  [](size_t i) { return "sample " + std::to_string(i); }}});
}

const quant::InputHessian& gathered(const Model& m, const quant::QuantOptions& o, const analysis::InputSamples& s,
                                    quant::HessianCollector& c) {
  quant::calibrate_stats(m, {}, {}, s, {}, &c);
  const auto it = c.hessians().find(quant::weight_content_key(m.graph.initializers.at("W")));
  EXPECT_NE(it, c.hessians().end());
  return it->second;
}

// Conv windows with padding and strides, per group: H[g][(c,k),(c',k')] summed over every window,
// written out from the window's definition (out = (in + pads - kernel) / stride + 1).
TEST(InputHessian, ConvWindowsPerGroupMatchTheirDefinition) {
  for (int64_t group : {1, 2, 4}) {
    const Model m = conv_model(group);
    quant::QuantOptions o;
    o.type = quant::QuantType::Weight;
    quant::HessianCollector c(m, o);
    const auto& h = gathered(m, o, samples(2, {2, 4, 5, 6}), c);
    const int64_t cg = 4 / group, dim = cg * 9;
    ASSERT_EQ(h.dim, dim);
    ASSERT_EQ(h.slices, group);
    for (int64_t gi = 0; gi < group; ++gi) {
      std::vector<double> want(size_t(dim * dim), 0.0);
      double vectors = 0;
      for (uint32_t s = 0; s < 2; ++s) {
        const Tensor x = input(100 + s, {2, 4, 5, 6});
        auto at = [&](int64_t n, int64_t ch, int64_t y, int64_t xx) {
          return y < 0 || y >= 5 || xx < 0 || xx >= 6 ? 0.0 : double(x.data<float>()[((n * 4 + ch) * 5 + y) * 6 + xx]);
        };
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t oy = 0; oy < (5 + 2 - 3) / 2 + 1; ++oy)
            for (int64_t ox = 0; ox < (6 + 2 - 3) / 1 + 1; ++ox) {
              std::vector<double> v;
              for (int64_t ch = 0; ch < cg; ++ch)
                for (int64_t ky = 0; ky < 3; ++ky)
                  for (int64_t kx = 0; kx < 3; ++kx) v.push_back(at(n, gi * cg + ch, oy * 2 - 1 + ky, ox - 0 + kx));
              for (int64_t i = 0; i < dim; ++i)
                for (int64_t j = 0; j < dim; ++j) want[size_t(i * dim + j)] += v[size_t(i)] * v[size_t(j)];
              vectors += 1;
            }
      }
      EXPECT_EQ(h.vectors(-1, gi), vectors);
      EXPECT_EQ(h.vectors(0, gi), vectors / 2);  // one sample a half
      const auto got = h.block(-1, gi, 0, false);
      for (int64_t i = 0; i < dim * dim; ++i) EXPECT_NEAR(got[size_t(i)], want[size_t(i)], 1e-3 * (1 + std::fabs(want[size_t(i)])));
    }
  }
}

// x [rows, dim] @ W [dim, 8]: H gathers x's rows.
Model matmul_model(int64_t rows, int64_t dim) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "matmul";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {rows, dim})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {})};
  Tensor w(DType::Float32, {dim, 8});
  std::mt19937 g(5);
  std::normal_distribution<float> d(0, 1);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  m.graph.initializers["W"] = w;
  m.graph.nodes = {test::make_node("MatMul", {"x", "W"}, {"y"}, "matmul")};
  return m;
}

// 600 columns: four 128-column blocks and an 88-column one. 8 samples of
// 200 rows, all taken (within the budget), alternate halves: each half queues 800 vectors, added
// part-way (436 fill a 1 MB queue: after 600) and at the end (200). Each entry against its sum in double over the
// vectors themselves, within float accumulation's error (1e-4 of the sum of |x_i x_j|); entries at
// the blocks' edges and spread over both triangles.
TEST(InputHessian, QueuedPanelProductsMatchDoubleSums) {
  const int64_t rows = 200, dim = 600;
  const Model m = matmul_model(rows, dim);
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  quant::HessianCollector c(m, o);
  auto sample = [&](size_t i) {
    Tensor x(DType::Float32, {rows, dim});
    std::mt19937 g(300 + uint32_t(i));
    std::uniform_real_distribution<float> d(-1, 1);
    for (int64_t k = 0; k < x.numel(); ++k) x.data<float>()[k] = 0.5f + d(g);  // a shared mean, as after ReLU
    return x;
  };
  const analysis::InputSamples s({{8, [&](size_t i) { return Value(sample(i)); }, [](size_t i) { return std::to_string(i); }}});
  const auto& h = gathered(m, o, s, c);
  ASSERT_EQ(h.dim, dim);
  const int64_t B = quant::kHessianBlock;
  ASSERT_EQ(h.blocks(), (dim + B - 1) / B);
  ASSERT_NE(dim % B, 0);  // a short last block
  std::vector<Tensor> xs;
  for (size_t k = 0; k < 8; ++k) xs.push_back(sample(k));
  std::vector<int64_t> at;
  for (int64_t i = 0; i < dim; i += 23) at.push_back(i);
  for (int64_t i : {127, 128, 255, 256, 383, 384, 511, 512, 513, 599}) at.push_back(i);
  for (int half = 0; half < 2; ++half) {
    EXPECT_EQ(h.vectors(half, 0), 4 * rows);
    std::vector<std::vector<double>> blocks;
    for (int64_t b = 0; b < h.blocks(); ++b) blocks.push_back(h.block(half, 0, b, false));
    for (int64_t i : at)
      for (int64_t j : at) {
        if (i / B != j / B) continue;  // only diagonal blocks are kept
        double want = 0, bound = 0;
        for (size_t k = size_t(half); k < 8; k += 2) {
          const Tensor& x = xs[k];
          for (int64_t r = 0; r < rows; ++r) {
            const double a = x.data<float>()[r * dim + i], b = x.data<float>()[r * dim + j];
            want += a * b, bound += std::fabs(a * b);
          }
        }
        const int64_t b = i / B, len = h.block_size(b);
        const double got = blocks[size_t(b)][size_t((i - b * B) * len + (j - b * B))];
        EXPECT_NEAR(got, want, 1e-4 * bound) << "half " << half << " H[" << i << "][" << j << "]";
      }
  }
}

// Each weight's H takes a budget of vectors (64 a column, within [2048, 32768]) spread evenly over
// the samples, whose halves get equal shares: 128 samples of 36 windows of 36 columns give 18
// windows each, 2304 in all.
TEST(InputHessian, VectorBudgetIsSpreadOverTheSamples) {
  EXPECT_EQ(quant::hessian_vector_budget(20), 2048);
  EXPECT_EQ(quant::hessian_vector_budget(100), 6400);
  EXPECT_EQ(quant::hessian_vector_budget(1000), 32768);
  EXPECT_EQ(quant::hessian_vectors_per_value(20, 200), 11);
  EXPECT_EQ(quant::hessian_vectors_per_value(20, 1), 2048);
  EXPECT_EQ(quant::hessian_vectors_per_value(1000, 1), 4096);
  const Model m = conv_model(1);
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  quant::HessianCollector c(m, o);
  const auto& h = gathered(m, o, samples(128, {2, 4, 5, 6}), c);
  ASSERT_EQ(h.dim, 36);
  EXPECT_EQ(h.vectors(-1, 0), 2304);
  EXPECT_EQ(h.vectors(0, 0), 1152);
  EXPECT_EQ(h.vectors(1, 0), 1152);
}

// x [N, C, H, W] in the channel-blocked layout (channels in blocks of `block`, the last padded with
// `pad`, which nothing may read), viewed with its logical shape.
Tensor blocked_copy(const Tensor& x, int64_t block, std::vector<float>& buffer, float pad = 1e30f) {
  const int64_t n = x.dim(0), c = x.dim(1), plane = x.dim(2) * x.dim(3), blocks = (c + block - 1) / block;
  buffer.assign(size_t(n * blocks * block * plane), pad);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < plane; ++p)
        buffer[size_t(((i * blocks + ch / block) * plane + p) * block + ch % block)] = x.data<float>()[(i * c + ch) * plane + p];
  return Tensor::view(DType::Float32, x.shape(), buffer.data(), nullptr);
}

void expect_same_hessian(const quant::InputHessian& a, const quant::InputHessian& b) {
  ASSERT_EQ(a.dim, b.dim);
  ASSERT_EQ(a.slices, b.slices);
  for (int half = 0; half < 2; ++half)
    for (int64_t s = 0; s < a.slices; ++s) {
      EXPECT_EQ(a.vectors(half, s), b.vectors(half, s));
      EXPECT_EQ(a.halves[size_t(half)].sums[size_t(s)], b.halves[size_t(half)].sums[size_t(s)]);
      for (int64_t blk = 0; blk < a.blocks(); ++blk) EXPECT_EQ(a.block(half, s, blk, false), b.block(half, s, blk, false));
    }
}

// Conv over 20 channels (padded, strided, grouped so that groups straddle channel blocks): the
// vectors read from the blocked layout, in blocks of 16 or 8, are the plain ones, bit for bit, and
// the padding lanes are never read.
TEST(InputHessian, BlockedLayoutGivesThePlainHessian) {
  for (int64_t group : {1, 2, 5})
    for (int block : {16, 8}) {
      Model m = conv_model(1);
      m.graph.inputs = {test::tensor_info("x", DType::Float32, {2, 20, 7, 6})};
      Tensor w(DType::Float32, {10, 20 / group, 3, 3});
      for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float(i % 7) - 3.f;
      m.graph.initializers["W"] = w;
      m.graph.nodes[0].attrs["group"] = Attribute::of_int(group);
      quant::QuantOptions o;
      o.type = quant::QuantType::Weight;
      quant::HessianCollector plain(m, o), blocked(m, o);
      EXPECT_TRUE(blocked.reads_blocked("x"));
      plain.expect_samples(3), blocked.expect_samples(3);
      std::vector<float> buffer;
      for (uint32_t k = 0; k < 3; ++k) {
        const Tensor x = input(40 + k, {2, 20, 7, 6});
        plain.see("x", x);
        blocked.see_blocked("x", blocked_copy(x, block, buffer), block);
        plain.end_sample(), blocked.end_sample();
      }
      const auto key = quant::weight_content_key(w);
      ASSERT_TRUE(plain.hessians().count(key));
      EXPECT_GT(plain.hessians().at(key).vectors(-1, 0), 0);
      expect_same_hessian(plain.hessians().at(key), blocked.hessians().at(key));
    }
}

// Conv -> Relu -> Conv: calibration fuses the Relu into the first Conv (unless a watched value would
// go), so that the second Conv's input travels blocked between the fast kernels, and reads it as it
// lies (no reorder): the same H as from its plain copy, the same channel means.
TEST(InputHessian, CalibrationReadsBlockedValuesAsThePlainOnes) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "two_convs";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, 12, 12})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {})};
  std::mt19937 g(9);
  std::normal_distribution<float> d(0, 0.3f);
  auto weight = [&](Shape s) {
    Tensor w(DType::Float32, s);
    for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
    return w;
  };
  m.graph.initializers["W1"] = weight({24, 3, 3, 3});
  m.graph.initializers["B1"] = weight({24});
  m.graph.initializers["W2"] = weight({8, 24, 3, 3});
  m.graph.initializers["B2"] = weight({8});
  Node c1 = test::make_node("Conv", {"x", "W1", "B1"}, {"h0"}, "conv1");
  c1.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  Node c2 = test::make_node("Conv", {"h", "W2", "B2"}, {"y"}, "conv2");
  c2.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  m.graph.nodes = {c1, test::make_node("Relu", {"h0"}, {"h"}, "relu"), c2};
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  const auto s = samples(4, {1, 3, 12, 12});

  // Calibration as ms quant runs it: H of W2 and the mean of h, h read blocked when it travels so.
  quant::HessianCollector calibrated(m, o);
  const quant::CalibStats stats = quant::calibrate_stats(m, {}, {{"h", 1}}, s, {}, &calibrated);
  // The same model as calibration runs it (Relu fused into the first Conv: nothing between the two
  // convolutions keeps h plain), every value handed over plain.
  const auto fused = quant::fused_for_calibration(m, {"x", "h"});
  EXPECT_EQ(fused->graph.nodes.size(), 2u);
  EXPECT_EQ(quant::fused_for_calibration(m, {"x", "h0"})->graph.nodes.size(), 3u);  // h0 would be fused away
  quant::HessianCollector plain(m, o);
  plain.expect_samples(s.count());
  Session session(fused);
  ValueWatch watch;
  watch.names = plain.names();
  std::vector<double> mean(24, 0.0);
  double per_channel = 0;
  size_t blocked_seen = 0;
  watch.see = [&](const std::string& name, const Tensor& t) {
    plain.see(name, t);
    if (name != "h") return;
    for (int64_t ch = 0; ch < 24; ++ch)
      for (int64_t p = 0; p < 144; ++p) mean[size_t(ch)] += t.data<float>()[ch * 144 + p];
    per_channel += 144;
  };
  for (size_t k = 0; k < s.count(); ++k) {
    session.run(s.sample(k), nullptr, &watch);
    plain.end_sample();
  }
  // Whether h travels blocked at all (it does where oneDNN's convolutions pick the blocked layout).
  ValueWatch probe;
  probe.names = probe.blocked_names = {"h"};
  probe.see = [](const std::string&, const Tensor&) {};
  probe.see_blocked = [&](const std::string&, const Tensor&, int) { ++blocked_seen; };
  session.run(s.sample(0), nullptr, &probe);
  if (blocked_seen == 0) GTEST_SKIP() << "h travels in the plain layout on this CPU";

  for (const char* w : {"W1", "W2"}) {
    const auto key = quant::weight_content_key(m.graph.initializers.at(w));
    expect_same_hessian(calibrated.hessians().at(key), plain.hessians().at(key));
  }
  ASSERT_TRUE(stats.channel_means.count("h"));
  for (int64_t ch = 0; ch < 24; ++ch)
    EXPECT_NEAR(stats.channel_means.at("h")[size_t(ch)], mean[size_t(ch)] / per_channel, 1e-9 * (1 + std::fabs(mean[size_t(ch)] / per_channel)));
}

// Two convolutions with the same windows over one input (different output channels) share one H,
// which is the one each would gather alone, and round as they would alone; a third one with other
// strides keeps its own.
TEST(InputHessian, WeightsReadingTheSameVectorsShareOneHessian) {
  Model m = conv_model(1);
  std::mt19937 g(21);
  std::normal_distribution<float> d(0, 1);
  auto weight = [&](Shape s) {
    Tensor w(DType::Float32, s);
    for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
    return w;
  };
  m.graph.initializers["W2"] = weight({5, 4, 3, 3});
  m.graph.initializers["W3"] = weight({6, 4, 3, 3});
  Node twin = m.graph.nodes[0];
  twin.inputs = {"x", "W2"}, twin.outputs = {"y2"}, twin.name = "twin";
  Node other = m.graph.nodes[0];
  other.inputs = {"x", "W3"}, other.outputs = {"y3"}, other.name = "other";
  other.attrs["strides"] = Attribute::of_ints({1, 1});
  m.graph.nodes.push_back(twin);
  m.graph.nodes.push_back(other);
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  o.bit_num = 4;
  const auto key = [&](const Model& model, const char* w) { return quant::weight_content_key(model.graph.initializers.at(w)); };
  quant::HessianCollector shared(m, o);
  EXPECT_EQ(shared.shared().size(), 1u);
  ASSERT_TRUE(shared.shared().count(key(m, "W2")));
  EXPECT_EQ(shared.shared().at(key(m, "W2")), key(m, "W"));
  quant::calibrate_stats(m, {}, {}, samples(6, {2, 4, 5, 6}), {}, &shared);
  const auto& hs = shared.hessians();

  // Each weight alone, in a model of its own node.
  for (const char* w : {"W", "W2", "W3"}) {
    Model alone = m;
    alone.graph.nodes = {m.graph.nodes[w == std::string("W") ? 0 : w == std::string("W2") ? 1 : 2]};
    alone.graph.nodes[0].outputs = {"y"};
    for (const char* other_w : {"W", "W2", "W3"})
      if (std::string(other_w) != w) alone.graph.initializers.erase(other_w);
    quant::HessianCollector c(alone, o);
    EXPECT_TRUE(c.shared().empty());
    quant::calibrate_stats(alone, {}, {}, samples(6, {2, 4, 5, 6}), {}, &c);
    ASSERT_TRUE(c.hessians().count(key(alone, w)));
    expect_same_hessian(hs.at(key(m, w)), c.hessians().at(key(alone, w)));
    const auto r_shared = quant::round_weights_to_inputs(m, o, hs, {});
    const auto r_alone = quant::round_weights_to_inputs(alone, o, c.hessians(), {});
    const Tensor &a = r_shared.weights->at(key(m, w)).q, &b = r_alone.weights->at(key(alone, w)).q;
    ASSERT_EQ(a.nbytes(), b.nbytes());
    const auto* pa = static_cast<const uint8_t*>(a.raw());
    const auto* pb = static_cast<const uint8_t*>(b.raw());
    EXPECT_EQ(std::vector<uint8_t>(pa, pa + a.nbytes()), std::vector<uint8_t>(pb, pb + b.nbytes())) << w;
  }
  EXPECT_NE(hs.at(key(m, "W")).vectors(-1, 0), hs.at(key(m, "W3")).vectors(-1, 0));  // other windows
}

// A whole model, WEIGHT_QUANT at 4 bits: with GPTQ the output error on fresh inputs is below
// rounding to nearest's, and the quantized file holds the same scales.
TEST(WeightRounding, ConvModelLosesLessThanNearestOnFreshInputs) {
  const Model fp = conv_model(1);
  quant::QuantOptions o;
  o.type = quant::QuantType::Weight;
  o.bit_num = 4;
  quant::HessianCollector c(fp, o);
  quant::calibrate_stats(fp, {}, {}, samples(16, {2, 4, 5, 6}), {}, &c);
  const quant::RoundedWeights r = quant::round_weights_to_inputs(fp, o, c.hessians(), {});
  ASSERT_EQ(r.weights->size(), 1u);
  EXPECT_LT(r.error_rounded, r.error_nearest);
  Model near = fp, gptq = fp;
  quant::quantize_model(near, o, {});
  quant::QuantOptions og = o;
  og.rounded = r.weights;
  quant::quantize_model(gptq, og, {});
  const Tensor& s0 = near.graph.initializers.at("W_scale");
  const Tensor& s1 = gptq.graph.initializers.at("W_scale");
  ASSERT_EQ(s0.shape(), s1.shape());
  for (int64_t k = 0; k < s0.numel(); ++k) EXPECT_EQ(s0.data<float>()[k], s1.data<float>()[k]);
  auto error = [&](const Model& q) {
    double e = 0;
    Session sf(std::make_shared<const Model>(fp)), sq(std::make_shared<const Model>(q));
    for (uint32_t i = 0; i < 8; ++i) {
      const Tensor x = input(900 + i, {2, 4, 5, 6});
      const Tensor a = sf.run(std::vector<Value>{x})[0].tensor, b = sq.run(std::vector<Value>{x})[0].tensor;
      for (int64_t k = 0; k < a.numel(); ++k) e += std::pow(double(a.data<float>()[k]) - b.data<float>()[k], 2);
    }
    return e;
  };
  EXPECT_LT(error(gptq), 0.8 * error(near));
}

}  // namespace
}  // namespace ms
