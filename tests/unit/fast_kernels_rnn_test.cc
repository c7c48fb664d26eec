// LSTM, GRU and RNN fast kernels against the reference kernels (double precision, std::exp/tanh):
// odd hidden sizes (tails of the unit blocks), batch and sequence sizes, both directions, layout 1,
// per-row sequence lengths, initial states, peepholes, clip, input_forget, both GRU variants,
// weights as initializers (packed once) and as graph inputs (packed per run), one and two threads
// (two threads and batch 1 with a large hidden size = the lockstep path). Then the vectorized
// pieces of each instruction set on their own: the panel product and the sigmoid/tanh of the cells.
#include <cmath>
#include <limits>

#include "fast_kernels_util.h"
#include "runtime/kernels/rnn_loops.h"

namespace ms::test {
namespace {

struct RnnCase {
  std::string op = "LSTM";
  int64_t hidden = 7, batch = 1, seq = 1, input = 5;
  std::string direction = "forward";
  int64_t layout = 0;
  bool bias = true, initial = false, peepholes = false, seq_lens = false;
  bool constant_weights = true;
  float clip = 0;  // 0 = no clip attribute
  bool input_forget = false, linear_before_reset = false;
  bool want_y = true;
  int threads = 2;
  std::vector<std::string> activations;
};

std::string describe(const RnnCase& c) {
  return c.op + " H=" + std::to_string(c.hidden) + " B=" + std::to_string(c.batch) + " S=" + std::to_string(c.seq) +
         " " + c.direction + " layout=" + std::to_string(c.layout) + (c.initial ? " initial" : "") +
         (c.peepholes ? " P" : "") + (c.seq_lens ? " lens" : "") + (c.constant_weights ? "" : " W-input") +
         (c.clip > 0 ? " clip" : "") + (c.input_forget ? " input_forget" : "") + (c.linear_before_reset ? " lbr" : "") +
         " threads=" + std::to_string(c.threads);
}

ModelSpec rnn_model(const RnnCase& c) {
  const int64_t G = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, H = c.hidden, B = c.batch, S = c.seq;
  ModelSpec s;
  Node n = make_node(c.op, {"x", "w", "r"}, {c.want_y ? "y" : "", "y_h"});
  if (c.op == "LSTM") n.outputs.push_back("y_c");
  n.attrs["hidden_size"] = Attribute::of_int(H);
  n.attrs["direction"] = Attribute::of_string(c.direction);
  n.attrs["layout"] = Attribute::of_int(c.layout);
  if (c.clip > 0) n.attrs["clip"] = Attribute::of_float(c.clip);
  if (c.input_forget) n.attrs["input_forget"] = Attribute::of_int(1);
  if (c.linear_before_reset) n.attrs["linear_before_reset"] = Attribute::of_int(1);
  if (!c.activations.empty()) n.attrs["activations"] = Attribute::of_strings(c.activations);
  s.inputs = {{"x", random_tensor(c.layout == 0 ? Shape{S, B, c.input} : Shape{B, S, c.input}, 11)}};
  // Weights scaled like a trained cell's (|w| ~ 1/sqrt(fan-in)) so that the gates stay in range.
  const float ws = 1.5f / std::sqrt(static_cast<float>(c.input + H));
  auto weight = [&](const std::string& name, const Shape& shape, uint32_t seed, float scale) {
    Tensor t = random_tensor(shape, seed, -scale, scale);
    if (c.constant_weights) s.weights[name] = t;
    else s.inputs.push_back({name, t});
  };
  weight("w", {D, G * H, c.input}, 12, ws);
  weight("r", {D, G * H, H}, 13, ws);
  auto optional_input = [&](size_t index, const std::string& name) {
    n.inputs.resize(index + 1);
    n.inputs[index] = name;
  };
  if (c.bias) {
    optional_input(3, "b");
    weight("b", {D, 2 * G * H}, 14, 0.5f);
  }
  if (c.seq_lens) {
    optional_input(4, "lens");
    std::vector<int32_t> lens;
    for (int64_t b = 0; b < B; ++b) lens.push_back(static_cast<int32_t>(b % 3 == 0 ? S : b % 3 == 1 ? S / 2 : 0));
    s.inputs.push_back({"lens", Tensor::from_vector<int32_t>(lens, {B})});
  }
  const Shape state = c.layout == 0 ? Shape{D, B, H} : Shape{B, D, H};
  if (c.initial) {
    optional_input(5, "h0");
    s.inputs.push_back({"h0", random_tensor(state, 15)});
    if (c.op == "LSTM") {
      optional_input(6, "c0");
      s.inputs.push_back({"c0", random_tensor(state, 16, -2.f, 2.f)});
    }
  }
  if (c.peepholes) {
    optional_input(7, "p");
    weight("p", {D, 3 * H}, 17, 0.5f);
  }
  s.nodes = {n};
  for (const auto& o : n.outputs)
    if (!o.empty()) s.outputs.push_back(o);
  return s;
}

void check(const RnnCase& c) {
  SCOPED_TRACE(describe(c));
  check_against_reference(rnn_model(c), {c.op}, 1e-4, 1e-5, c.threads);
}

TEST(FastRnn, LstmShapes) {
  for (int64_t h : {1, 7, 33, 65})
    for (int64_t b : {1, 3})
      for (int64_t s : {1, 17}) {
        RnnCase c;
        c.hidden = h, c.batch = b, c.seq = s;
        check(c);
      }
}

TEST(FastRnn, LstmAttributes) {
  RnnCase c;
  c.hidden = 33, c.batch = 3, c.seq = 17, c.input = 9;
  for (int layout : {0, 1})
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      c.layout = layout, c.direction = dir;
      c.initial = c.peepholes = c.seq_lens = true;
      check(c);
    }
  c = RnnCase{};
  c.hidden = 65, c.batch = 3, c.seq = 17, c.direction = "bidirectional", c.clip = 0.5f, c.peepholes = true;
  check(c);
  c.clip = 0, c.input_forget = true;
  check(c);
  c.input_forget = false, c.bias = false, c.want_y = false;
  check(c);
}

TEST(FastRnn, LstmWeightsAsInputsAndThreads) {
  RnnCase c;
  c.hidden = 33, c.batch = 3, c.seq = 17, c.direction = "bidirectional", c.layout = 1;
  c.initial = c.peepholes = c.seq_lens = true, c.constant_weights = false;
  check(c);
  for (int threads : {1, 3}) {
    c.threads = threads;
    check(c);
  }
  // Batch 1, two threads, a large hidden size: the team splits each step's unit blocks.
  c = RnnCase{};
  c.hidden = 725, c.seq = 3, c.input = 3, c.initial = c.seq_lens = true;
  check(c);
  c.direction = "reverse", c.seq_lens = false;
  check(c);
}

TEST(FastRnn, GruShapesAndVariants) {
  for (bool lbr : {false, true}) {
    for (int64_t h : {1, 7, 33, 65})
      for (int64_t b : {1, 3}) {
        RnnCase c;
        c.op = "GRU", c.linear_before_reset = lbr, c.hidden = h, c.batch = b, c.seq = 17;
        check(c);
      }
    RnnCase c;
    c.op = "GRU", c.linear_before_reset = lbr, c.hidden = 33, c.batch = 3, c.seq = 17, c.input = 9;
    c.direction = "bidirectional", c.layout = 1, c.initial = c.seq_lens = true;
    check(c);
    c.direction = "reverse", c.layout = 0, c.clip = 0.4f, c.constant_weights = false;
    check(c);
    c.threads = 1, c.bias = false, c.want_y = false;
    check(c);
    c = RnnCase{};
    c.op = "GRU", c.linear_before_reset = lbr, c.hidden = 837, c.seq = 2, c.input = 3, c.initial = true;  // lockstep
    check(c);
  }
}

TEST(FastRnn, RnnCells) {
  for (int64_t h : {1, 7, 33, 65}) {
    RnnCase c;
    c.op = "RNN", c.hidden = h, c.batch = 3, c.seq = 17;
    check(c);
  }
  RnnCase c;
  c.op = "RNN", c.hidden = 33, c.batch = 3, c.seq = 17, c.direction = "bidirectional", c.layout = 1;
  c.initial = c.seq_lens = true, c.clip = 0.3f;
  check(c);
  c = RnnCase{};
  c.op = "RNN", c.hidden = 1449, c.seq = 2, c.input = 3;  // lockstep
  check(c);
}

// Non-default activations have no vectorized cell: the node must run on the reference, and right.
TEST(FastRnn, OtherActivationsStayOnReference) {
  RnnCase c;
  c.op = "GRU", c.hidden = 7, c.batch = 2, c.seq = 3, c.activations = {"HardSigmoid", "Tanh"};
  ModelSpec s = rnn_model(c);
  SessionOptions o;
  o.num_threads = 1;
  Session session(build_model(s), o);
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  RunProfile prof;
  session.run(feeds, &prof);
  ASSERT_EQ(prof.nodes.size(), 1u);
  EXPECT_EQ(prof.nodes[0].kernel, "reference");
  check_against_reference(s, {}, 1e-4, 1e-5);
}

std::vector<const rt::RnnLoops*> all_isas() {
  std::vector<const rt::RnnLoops*> v = {&rt::rnn_loops_generic()};
  if (auto* l = rt::rnn_loops_avx2()) v.push_back(l);
  if (auto* l = rt::rnn_loops_avx512()) v.push_back(l);
  return v;
}

// acc[r][g*unit + u] against a double-precision sum over a panel laid out as rnn_loops.h says.
TEST(RnnLoops, PanelProductEveryIsa) {
  for (const rt::RnnLoops* l : all_isas())
    for (int gates = 1; gates <= 4; ++gates)
      for (int rows : {1, 2, 3, 4, 5, 9})
        for (int64_t k : {1, 7, 64}) {
          SCOPED_TRACE(std::string(l->isa) + " gates=" + std::to_string(gates) + " rows=" + std::to_string(rows) +
                       " k=" + std::to_string(k));
          const int64_t width = gates * l->unit, ldh = k + 3;
          const Tensor h = random_tensor({rows, ldh}, 21), panel = random_tensor({k, width}, 22);
          std::vector<float> acc(rows * width, std::nanf(""));
          l->panel_product(h.data<float>(), ldh, rows, panel.data<float>(), k, gates, acc.data());
          for (int r = 0; r < rows; ++r)
            for (int64_t j = 0; j < width; ++j) {
              double want = 0;
              for (int64_t i = 0; i < k; ++i) want += double(h.data<float>()[r * ldh + i]) * panel.data<float>()[i * width + j];
              ASSERT_NEAR(acc[r * width + j], want, 1e-5 * (1 + std::abs(want))) << "row " << r << " col " << j;
            }
        }
}

// The cells' sigmoid and tanh within 1e-5 relative of std::exp / std::tanh, across the range where
// the result is a normal float, including the small-|x| branch of tanh.
TEST(RnnLoops, SigmoidAndTanhAccuracyEveryIsa) {
  std::vector<float> xs;
  for (float v = -20.f; v <= 20.f; v += 0.013f) xs.push_back(v);
  for (float v : {0.f, 1e-7f, -1e-7f, 0.1249f, 0.1251f, -0.125f, 1e-3f}) xs.push_back(v);
  const int64_t n = static_cast<int64_t>(xs.size());
  for (const rt::RnnLoops* l : all_isas()) {
    SCOPED_TRACE(l->isa);
    const int U = l->unit;
    for (int64_t j0 = 0; j0 < n; j0 += U) {
      const int64_t m = std::min<int64_t>(U, n - j0);
      // RNN cell with a zero recurrent part: h = tanh(x). GRU's first half: z = sigmoid(x).
      std::vector<float> rec(2 * U, 0.f), x(2 * m), h(m), z(m), rh(m), hp(m, 1.f);
      for (int64_t u = 0; u < m; ++u) x[u] = x[m + u] = xs[j0 + u];
      rt::RnnCellArgs a;
      a.rec = rec.data(), a.x = x.data(), a.hidden = m, a.n = m, a.h = h.data(), a.h_prev = hp.data();
      a.z = z.data(), a.rh = rh.data(), a.clip = std::numeric_limits<float>::infinity();
      l->rnn_cell(a);
      l->gru_zr(a);
      for (int64_t u = 0; u < m; ++u) {
        const double v = xs[j0 + u], t = std::tanh(v), s = 1 / (1 + std::exp(-v));
        EXPECT_NEAR(h[u], t, 1e-5 * std::abs(t) + 1e-30) << "tanh(" << v << ")";
        EXPECT_NEAR(z[u], s, 1e-5 * s) << "sigmoid(" << v << ")";
        EXPECT_NEAR(rh[u], s, 1e-5 * s) << "sigmoid(" << v << ") (r . h_prev)";
      }
    }
  }
}

}  // namespace
}  // namespace ms::test
