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

// 600 columns: a 512-column block (four lower-triangle panels) and an 88-column one. 8 samples of
// 200 rows, all taken (within the budget), alternate halves: each half queues 800 vectors, added
// part-way (436 fill a 1 MB queue: after 600) and at the end (200). Each entry against its sum in double over the
// vectors themselves, within float accumulation's error (1e-4 of the sum of |x_i x_j|); entries at
// the panels' edges and spread over both triangles.
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
  ASSERT_EQ(h.blocks(), 2);
  std::vector<Tensor> xs;
  for (size_t k = 0; k < 8; ++k) xs.push_back(sample(k));
  std::vector<int64_t> at;
  for (int64_t i = 0; i < dim; i += 23) at.push_back(i);
  for (int64_t i : {127, 128, 255, 256, 383, 384, 511, 512, 513, 599}) at.push_back(i);
  for (int half = 0; half < 2; ++half) {
    EXPECT_EQ(h.vectors(half, 0), 4 * rows);
    const std::vector<double> b0 = h.block(half, 0, 0, false), b1 = h.block(half, 0, 1, false);
    for (int64_t i : at)
      for (int64_t j : at) {
        if ((i < 512) != (j < 512)) continue;  // only diagonal blocks are kept
        double want = 0, bound = 0;
        for (size_t k = size_t(half); k < 8; k += 2) {
          const Tensor& x = xs[k];
          for (int64_t r = 0; r < rows; ++r) {
            const double a = x.data<float>()[r * dim + i], b = x.data<float>()[r * dim + j];
            want += a * b, bound += std::fabs(a * b);
          }
        }
        const double got = i < 512 ? b0[size_t(i * 512 + j)] : b1[size_t((i - 512) * 88 + (j - 512))];
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
