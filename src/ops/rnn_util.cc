// Shared pieces of the recurrent ops: activations, input unpacking, the time-step driver.
#include "ops/rnn_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ms {

namespace {
std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}
}  // namespace

RnnActivation rnn_activation(const std::string& name, const float* alpha, const float* beta,
                             const std::string& who) {
  const std::string n = lower(name);
  auto a = [&](double def) { return alpha ? double(*alpha) : def; };
  auto b = [&](double def) { return beta ? double(*beta) : def; };
  if (n == "tanh") return [](double x) { return std::tanh(x); };
  if (n == "sigmoid") return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  if (n == "relu") return [](double x) { return x > 0 ? x : 0.0; };
  if (n == "affine") return [al = a(1.0), be = b(0.0)](double x) { return al * x + be; };
  if (n == "leakyrelu") return [al = a(0.01)](double x) { return x >= 0 ? x : al * x; };
  if (n == "thresholdedrelu") return [al = a(1.0)](double x) { return x > al ? x : 0.0; };
  if (n == "scaledtanh") return [al = a(1.0), be = b(1.0)](double x) { return al * std::tanh(be * x); };
  if (n == "hardsigmoid")
    return [al = a(0.2), be = b(0.5)](double x) { return std::max(0.0, std::min(1.0, al * x + be)); };
  if (n == "elu") return [al = a(1.0)](double x) { return x >= 0 ? x : al * (std::exp(x) - 1); };
  if (n == "softsign") return [](double x) { return x / (1 + std::fabs(x)); };
  if (n == "softplus") return [](double x) { return std::log1p(std::exp(x)); };
  fail_unsupported("{}: activation '{}' is not supported", who, name);
}

namespace {
bool uses_alpha(const std::string& n) {
  const std::string l = lower(n);
  return l == "affine" || l == "leakyrelu" || l == "thresholdedrelu" || l == "scaledtanh" || l == "hardsigmoid" ||
         l == "elu";
}
bool uses_beta(const std::string& n) {
  const std::string l = lower(n);
  return l == "affine" || l == "scaledtanh" || l == "hardsigmoid";
}

// Converts a [a, b, rest] tensor laid out as [b, a, rest] (layout 1) into layout 0 order.
std::vector<double> swap01(const std::vector<double>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      std::copy_n(&v[(j * a + i) * rest], rest, &out[(i * b + j) * rest]);
  return out;
}
}  // namespace

RnnProblem read_rnn_problem(const KernelContext& ctx, int gates, const std::vector<std::string>& default_acts,
                            int c_input) {
  const std::string who = ctx.node().label();
  RnnProblem p;
  p.gates = gates;
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor& r = ctx.input(2);
  const int64_t layout = ctx.attr_int("layout");
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    fail("{}: X, W and R must be 3-D, got {}, {}, {}", who, shape_str(x.shape()), shape_str(w.shape()),
         shape_str(r.shape()));
  if (layout != 0 && layout != 1) fail("{}: layout must be 0 or 1, got {}", who, layout);
  p.seq = layout == 0 ? x.dim(0) : x.dim(1);
  p.batch = layout == 0 ? x.dim(1) : x.dim(0);
  p.input = x.dim(2);
  const std::string direction = ctx.attr_string("direction");
  if (direction == "forward" || direction == "reverse")
    p.dirs = {direction};
  else if (direction == "bidirectional")
    p.dirs = {"forward", "reverse"};
  else
    fail("{}: direction must be forward, reverse or bidirectional, got '{}'", who, direction);
  p.num_dir = static_cast<int64_t>(p.dirs.size());
  p.hidden = ctx.has_attr("hidden_size") ? ctx.attr_int("hidden_size") : r.dim(2);
  const int64_t gh = gates * p.hidden;
  if (w.shape() != Shape{p.num_dir, gh, p.input})
    fail("{}: W has shape {}, expected [{},{},{}]", who, shape_str(w.shape()), p.num_dir, gh, p.input);
  if (r.shape() != Shape{p.num_dir, gh, p.hidden})
    fail("{}: R has shape {}, expected [{},{},{}]", who, shape_str(r.shape()), p.num_dir, gh, p.hidden);
  p.X = x.to_double_vector();
  if (layout == 1) p.X = swap01(p.X, p.seq, p.batch, p.input);
  p.W = w.to_double_vector();
  p.R = r.to_double_vector();
  p.B.assign(p.num_dir * 2 * gh, 0.0);
  if (ctx.has_input(3)) {
    const Tensor& b = ctx.input(3);
    if (b.shape() != Shape{p.num_dir, 2 * gh})
      fail("{}: B has shape {}, expected [{},{}]", who, shape_str(b.shape()), p.num_dir, 2 * gh);
    p.B = b.to_double_vector();
  }
  p.seq_lens.assign(p.batch, p.seq);
  if (ctx.has_input(4)) {
    const Tensor& sl = ctx.input(4);
    if (sl.numel() != p.batch) fail("{}: sequence_lens has {} values, batch is {}", who, sl.numel(), p.batch);
    p.seq_lens = sl.to_int64_vector();
    for (int64_t v : p.seq_lens)
      if (v < 0 || v > p.seq) fail("{}: sequence length {} is outside [0, {}]", who, v, p.seq);
  }
  auto read_state = [&](int idx, std::vector<double>& dst) {
    dst.assign(p.num_dir * p.batch * p.hidden, 0.0);
    if (!ctx.has_input(idx)) return;
    const Tensor& t = ctx.input(idx);
    Shape want = layout == 0 ? Shape{p.num_dir, p.batch, p.hidden} : Shape{p.batch, p.num_dir, p.hidden};
    if (t.shape() != want)
      fail("{}: initial state (input {}) has shape {}, expected {}", who, idx, shape_str(t.shape()), shape_str(want));
    dst = t.to_double_vector();
    if (layout == 1) dst = swap01(dst, p.num_dir, p.batch, p.hidden);
  };
  read_state(5, p.H0);
  if (c_input >= 0) read_state(c_input, p.C0);

  std::vector<std::string> names = ctx.attr_strings("activations");
  const size_t per_dir = default_acts.size();
  if (names.empty())
    for (int64_t d = 0; d < p.num_dir; ++d) names.insert(names.end(), default_acts.begin(), default_acts.end());
  // A single direction's list given for a bidirectional node applies to both.
  if (names.size() == per_dir && p.num_dir == 2) names.insert(names.end(), names.begin(), names.end());
  if (names.size() != per_dir * p.num_dir)
    fail("{}: {} activations given, expected {}", who, names.size(), per_dir * p.num_dir);
  const auto& alphas = ctx.attr_floats("activation_alpha");
  const auto& betas = ctx.attr_floats("activation_beta");
  size_t ai = 0, bi = 0;
  for (const auto& n : names) {
    const float* a = uses_alpha(n) && ai < alphas.size() ? &alphas[ai++] : nullptr;
    const float* b = uses_beta(n) && bi < betas.size() ? &betas[bi++] : nullptr;
    p.acts.push_back(rnn_activation(n, a, b, who));
  }
  if (ctx.has_attr("clip")) {
    p.has_clip = true;
    p.clip = ctx.attr_float("clip");
  }
  return p;
}

void run_rnn(KernelContext& ctx, const RnnProblem& p, const RnnCell& cell, bool with_c) {
  const int64_t H = p.hidden, Bn = p.batch, D = p.num_dir, S = p.seq;
  std::vector<double> Y(S * D * Bn * H, 0.0), Yh(D * Bn * H, 0.0), Yc(D * Bn * H, 0.0);
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = p.dirs[d] == "reverse";
    for (int64_t b = 0; b < Bn; ++b) {
      const int64_t off = (d * Bn + b) * H;
      std::vector<double> h(p.H0.begin() + off, p.H0.begin() + off + H);
      std::vector<double> c(p.C0.empty() ? std::vector<double>(H, 0.0)
                                         : std::vector<double>(p.C0.begin() + off, p.C0.begin() + off + H));
      const int64_t len = p.seq_lens[b];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        cell(d, &p.X[(t * Bn + b) * p.input], h, c);
        std::copy(h.begin(), h.end(), &Y[((t * D + d) * Bn + b) * H]);
      }
      std::copy(h.begin(), h.end(), &Yh[off]);
      std::copy(c.begin(), c.end(), &Yc[off]);
    }
  }
  const int64_t layout = ctx.attr_int("layout");
  const DType dt = ctx.input(0).dtype();
  auto emit = [&](size_t idx, const std::vector<double>& v, Shape shape) {
    Tensor t(dt, shape);
    dispatch_float(dt, ctx.node().label(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = t.data<T>();
      for (size_t i = 0; i < v.size(); ++i) o[i] = T(v[i]);
    });
    ctx.set_output(idx, std::move(t));
  };
  if (layout == 0) {
    emit(0, Y, {S, D, Bn, H});
    emit(1, Yh, {D, Bn, H});
    if (with_c) emit(2, Yc, {D, Bn, H});
  } else {
    // Y [S, D, B, H] -> [B, S, D, H]; states [D, B, H] -> [B, D, H]
    std::vector<double> y1(Y.size());
    for (int64_t t = 0; t < S; ++t)
      for (int64_t d = 0; d < D; ++d)
        for (int64_t b = 0; b < Bn; ++b)
          std::copy_n(&Y[((t * D + d) * Bn + b) * H], H, &y1[((b * S + t) * D + d) * H]);
    emit(0, y1, {Bn, S, D, H});
    emit(1, swap01(Yh, Bn, D, H), {Bn, D, H});
    if (with_c) emit(2, swap01(Yc, Bn, D, H), {Bn, D, H});
  }
}

void infer_rnn(InferContext& ctx) {
  const TypeInfo& xt = ctx.input_type(0);
  const int64_t layout = ctx.attr_int("layout");
  const std::string direction = ctx.attr_string("direction");
  const Dim D = Dim::fixed(direction == "bidirectional" ? 2 : 1);
  Dim S, Bn, H;
  if (xt.shape && xt.shape->size() == 3) {
    S = (*xt.shape)[layout == 0 ? 0 : 1];
    Bn = (*xt.shape)[layout == 0 ? 1 : 0];
  }
  if (ctx.has_attr("hidden_size")) {
    H = Dim::fixed(ctx.attr_int("hidden_size"));
  } else if (ctx.has_input(2)) {
    const TypeInfo& rt = ctx.input_type(2);
    if (rt.shape && rt.shape->size() == 3) H = (*rt.shape)[2];
  }
  const DType dt = xt.dtype;
  if (layout == 0) {
    ctx.set_output_type(0, TypeInfo::tensor(dt, std::vector<Dim>{S, D, Bn, H}));
    for (size_t i = 1; i < 3; ++i) ctx.set_output_type(i, TypeInfo::tensor(dt, std::vector<Dim>{D, Bn, H}));
  } else {
    ctx.set_output_type(0, TypeInfo::tensor(dt, std::vector<Dim>{Bn, S, D, H}));
    for (size_t i = 1; i < 3; ++i) ctx.set_output_type(i, TypeInfo::tensor(dt, std::vector<Dim>{Bn, D, H}));
  }
}

void register_rnn_schema(OpDef& def) {
  def.attr_floats("activation_alpha")
      .attr_floats("activation_beta")
      .attr_strings("activations")
      .attr("clip", AttrType::Float, false)
      .attr_string("direction", "forward")
      .attr("hidden_size", AttrType::Int, false)
      .attr_int("layout", 0)
      .infer_fn(infer_rnn);
}

}  // namespace ms
