// LSTM, GRU (both linear_before_reset variants) and RNN on float32. The input projection X W^T of
// every time step and direction is one oneDNN matmul (W packed once when constant) with the
// foldable biases as its bias; each step then multiplies h_{t-1} by R in panels of hidden-unit
// blocks (rnn_weights.h, rnn_loops.h) and applies the gates to that block at once.
//
// Threads: directions and batch rows are independent, so with enough of them each thread runs
// whole sequences of its own rows. With fewer rows than threads (batch 1) and large enough steps,
// the team advances in lockstep instead, splitting each step's unit blocks, with a barrier per step
// (two for GRU, whose h gate needs all of r . h_{t-1}).
//
// Declines (the reference runs) non-default activations, non-float32 tensors, and anything
// malformed, so that the reference reports it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"
#include "runtime/kernels/rnn_loops.h"
#include "runtime/kernels/rnn_weights.h"

namespace ms::rt {
namespace {

// A lockstep step must give each thread at least this many multiply-adds to repay its barrier.
// Measured on the loaded 2-core VM (ms_bench BM_Lstm, 2 threads): at 0.5M per thread per step
// (LSTM hidden 512) a descheduled partner made each barrier cost milliseconds, 19 -> 364 ms.
constexpr int64_t kLockstepMinMacs = 1 << 20;

struct RnnSpec {
  RnnCellKind kind = RnnCellKind::Lstm;
  int64_t layout = 0;
  int64_t dirs = 1;
  bool reverse_only = false;  // direction "reverse"
  int64_t hidden_attr = -1;   // hidden_size when given
  float clip = std::numeric_limits<float>::infinity();
  bool input_forget = false;
};

bool is_f32(const Tensor& t) { return t.dtype() == DType::Float32; }

// X W^T + bias for all rows of X ([rows, input]) and all directions' gates at once.
class InputProjection {
 public:
  // A constant W is packed with the plan; any other is read in place each run.
  void run(const Tensor& x, int64_t rows, const Tensor& w, const Tensor& bias, bool w_constant, float* out) {
    const int64_t in = x.dim(2), n = w.dim(0) * w.dim(1);
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    if (rows != rows_ || in != in_ || n != n_) {
      x_md_ = dnnl::memory::desc({rows, in}, dt::f32, tag::ab);
      w_md_ = dnnl::memory::desc({in, n}, dt::f32, tag::ba);  // W [n, in] read as its transpose
      b_md_ = dnnl::memory::desc({1, n}, dt::f32, tag::ab);
      y_md_ = dnnl::memory::desc({rows, n}, dt::f32, tag::ab);
      const auto w_req = w_constant ? dnnl::memory::desc({in, n}, dt::f32, tag::any) : w_md_;
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x_md_, w_req, b_md_, y_md_), cpu_engine());
      prim_ = dnnl::matmul(pd);
      packed_ = {};
      if (w_constant) {
        packed_ = pack_weights(w_md_, w.raw(), pd.weights_desc());
      }
      rows_ = rows, in_ = in, n_ = n;
    }
    dnnl::memory y(y_md_, cpu_engine(), out);
    prim_.execute(cpu_stream(), {{DNNL_ARG_SRC, view_memory(x_md_, x)},
                                 {DNNL_ARG_WEIGHTS, packed_ ? packed_.memory : view_memory(w_md_, w)},
                                 {DNNL_ARG_BIAS, view_memory(b_md_, bias)},
                                 {DNNL_ARG_DST, y}});
    cpu_stream().wait();
  }

 private:
  int64_t rows_ = -1, in_ = -1, n_ = -1;
  dnnl::memory::desc x_md_, w_md_, b_md_, y_md_;
  dnnl::matmul prim_;
  PackedWeights packed_;
};

// One direction's rows [b0, b1) of the batch: the unit of work of a thread (or, in lockstep, of
// the whole team).
struct Task {
  int64_t d, b0, b1;
};

class FastRnn : public FastKernel {
 public:
  FastRnn(const KernelBuildInfo& info, RnnSpec spec) : spec_(spec), loops_(rnn_loops()) {
    const int G = rnn_gate_count(spec_.kind);
    if (const Tensor* w = info.constant(1); w && is_f32(*w) && w->rank() == 3) const_w_ = *w;
    const Tensor* r = info.constant(2);
    const Tensor* b = info.has_input(3) ? info.constant(3) : nullptr;
    const Tensor* p = info.has_input(7) && spec_.kind == RnnCellKind::Lstm ? info.constant(7) : nullptr;
    const bool b_ok = !info.has_input(3) || b;
    const bool p_ok = !(info.has_input(7) && spec_.kind == RnnCellKind::Lstm) || p;
    if (r && b_ok && p_ok && weights_fit(*r, b, p, G)) weights_ = pack_rnn_weights(spec_.kind, *r, b, p, loops_.unit);
  }

  const char* name() const override {
    switch (spec_.kind) {
      case RnnCellKind::Lstm: return "vec_lstm";
      case RnnCellKind::Rnn: return "vec_rnn";
      default: return "vec_gru";
    }
  }
  size_t scratch_bytes() const override { return scratch_bytes_; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    std::lock_guard<std::mutex> lock(mu_);
    const int G = rnn_gate_count(spec_.kind);
    const bool lstm = spec_.kind == RnnCellKind::Lstm;
    const Tensor& x = ctx.input(0);
    const Tensor& w = const_w_.defined() ? const_w_ : ctx.input(1);
    const Tensor& r = ctx.input(2);
    const Tensor* b = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* p = lstm && ctx.has_input(7) ? &ctx.input(7) : nullptr;
    if (!is_f32(x) || !is_f32(w) || x.rank() != 3 || w.rank() != 3 || !weights_fit(r, b, p, G)) return false;
    const int64_t S = spec_.layout == 0 ? x.dim(0) : x.dim(1), B = spec_.layout == 0 ? x.dim(1) : x.dim(0);
    const int64_t I = x.dim(2), D = spec_.dirs, H = r.dim(2), GH = G * H;
    if (w.shape() != Shape{D, GH, I} || S == 0 || B == 0 || I == 0 || H == 0) return false;

    std::vector<int64_t> lens(B, S);
    if (ctx.has_input(4)) {
      const Tensor& sl = ctx.input(4);
      if (sl.numel() != B || (sl.dtype() != DType::Int32 && sl.dtype() != DType::Int64)) return false;
      lens = sl.to_int64_vector();
      for (int64_t v : lens)
        if (v < 0 || v > S) return false;
    }
    const Shape state_shape = spec_.layout == 0 ? Shape{D, B, H} : Shape{B, D, H};
    const Tensor* h0 = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    const Tensor* c0 = lstm && ctx.has_input(6) ? &ctx.input(6) : nullptr;
    for (const Tensor* s : {h0, c0})
      if (s && (!is_f32(*s) || s->shape() != state_shape)) return false;

    RnnWeights run_weights;
    if (weights_.panels.empty()) run_weights = pack_rnn_weights(spec_.kind, r, b, p, loops_.unit);
    const RnnWeights& wts = weights_.panels.empty() ? run_weights : weights_;

    // Temporaries: the input projection, h double-buffered (step s reads one, writes the other),
    // the cell state, GRU's z and r . h.
    const int64_t rows = S * B, state = D * B * H;
    const size_t floats = static_cast<size_t>(rows * D * GH + 5 * state);
    scratch_bytes_ = floats * sizeof(float);
    Tensor own;
    auto* xp = static_cast<float*>(memory.scratch(scratch_bytes_));
    if (!xp) xp = (own = uninit_tensor(DType::Float32, {static_cast<int64_t>(floats)})).data<float>();
    float* hbuf[2] = {xp + rows * D * GH, xp + rows * D * GH + state};
    float* c = hbuf[1] + state;
    float* z = c + state;
    float* rh = z + state;
    projection_.run(x, rows, w, wts.bias, const_w_.defined(), xp);

    // States are kept as [D, B, H] whatever the layout.
    auto state_at = [&](int64_t d, int64_t bi) {
      return spec_.layout == 0 ? (d * B + bi) * H : (bi * D + d) * H;
    };
    auto load_state = [&](const Tensor* src, float* dst) {
      if (!src) return void(std::memset(dst, 0, state * sizeof(float)));
      for (int64_t d = 0; d < D; ++d)
        for (int64_t bi = 0; bi < B; ++bi) std::copy_n(src->data<float>() + state_at(d, bi), H, dst + (d * B + bi) * H);
    };
    load_state(h0, hbuf[0]);
    load_state(c0, c);
    // Rows past their length keep entering the panel products: give them defined values.
    std::memset(hbuf[1], 0, state * sizeof(float));
    std::memset(rh, 0, state * sizeof(float));

    const bool want_y = ctx.num_outputs() > 0 && !ctx.node().outputs[0].empty();
    Tensor y;
    if (want_y) {
      y = output_tensor(memory, 0, DType::Float32, spec_.layout == 0 ? Shape{S, D, B, H} : Shape{B, S, D, H});
      if (*std::min_element(lens.begin(), lens.end()) < S) std::memset(y.raw(), 0, y.nbytes());
    }
    float* yp = want_y ? y.data<float>() : nullptr;
    const int64_t layout = spec_.layout;
    auto x_row = [&](int64_t t, int64_t bi) { return layout == 0 ? t * B + bi : bi * S + t; };
    auto y_at = [&](int64_t t, int64_t d, int64_t bi) {
      return layout == 0 ? ((t * D + d) * B + bi) * H : ((bi * S + t) * D + d) * H;
    };

    const size_t phases = wts.phases.size();
    const int unit = loops_.unit;
    const float* peep = lstm ? wts.peep.data<float>() : nullptr;
    const float* rbh = spec_.kind == RnnCellKind::GruLinearBeforeReset ? wts.rbh.data<float>() : nullptr;
    using Cell = void (*)(const RnnCellArgs&);
    Cell cells[2] = {};
    switch (spec_.kind) {
      case RnnCellKind::Lstm: cells[0] = loops_.lstm_cell; break;
      case RnnCellKind::Gru: cells[0] = loops_.gru_zr, cells[1] = loops_.gru_h; break;
      case RnnCellKind::GruLinearBeforeReset: cells[0] = loops_.gru_lbr_cell; break;
      case RnnCellKind::Rnn: cells[0] = loops_.rnn_cell; break;
    }

    // Phase `ph` of step s for the task's rows and unit blocks [blk0, blk1).
    auto step = [&](const Task& tk, int64_t s, size_t ph, int64_t blk0, int64_t blk1, float* acc) {
      const int64_t d = tk.d, nrows = tk.b1 - tk.b0, base = (d * B + tk.b0) * H;
      const bool reverse = spec_.reverse_only || d == 1;
      const float* h_prev = hbuf[s & 1] + base;
      float* h_next = hbuf[(s + 1) & 1] + base;
      const bool gru_h_gate = spec_.kind == RnnCellKind::Gru && ph == 1;
      const float* lhs = gru_h_gate ? rh + base : h_prev;
      const int64_t width = wts.panel_width(ph);
      const int gates = static_cast<int>(wts.phases[ph].size());
      const bool last = ph + 1 == phases;
      for (int64_t blk = blk0; blk < blk1; ++blk) {
        const int64_t j0 = blk * unit;
        loops_.panel_product(lhs, H, static_cast<int>(nrows), wts.panel(d, ph) + blk * H * width, H, gates, acc);
        for (int64_t i = 0; i < nrows; ++i) {
          const int64_t bi = tk.b0 + i;
          if (s >= lens[bi]) continue;
          const int64_t t = reverse ? lens[bi] - 1 - s : s;
          const int64_t at = i * H + j0;
          RnnCellArgs a;
          a.rec = acc + i * width;
          a.x = xp + x_row(t, bi) * D * GH + d * GH + j0;
          a.hidden = H;
          a.n = std::min<int64_t>(unit, H - j0);
          a.h_prev = h_prev + at;
          a.h = h_next + at;
          a.c = c + base + at;
          a.peep = peep ? peep + d * 3 * H + j0 : nullptr;
          a.input_forget = spec_.input_forget;
          a.z = z + base + at;
          a.rh = rh + base + at;
          a.rbh = rbh ? rbh + d * H + j0 : nullptr;
          a.clip = spec_.clip;
          cells[ph](a);
          if (last && yp) std::copy_n(a.h, a.n, yp + y_at(t, d, bi) + j0);
        }
      }
    };

    const int threads = max_threads();
    const int64_t max_len = *std::max_element(lens.begin(), lens.end());
    const size_t acc_floats = static_cast<size_t>(B * 4 * unit);
    const bool lockstep = threads > 1 && D * B < threads && wts.blocks > 1 &&
                          G * H * H * B / std::min<int64_t>(threads, wts.blocks) >= kLockstepMinMacs;
    std::vector<Task> tasks;
    const int64_t chunks = lockstep || threads == 1 ? 1 : std::min<int64_t>(B, (threads + D - 1) / D);
    for (int64_t d = 0; d < D; ++d)
      for (int64_t k = 0; k < chunks; ++k) tasks.push_back({d, B * k / chunks, B * (k + 1) / chunks});

    if (!lockstep) {
      parallel_team(static_cast<int>(std::min<int64_t>(threads, tasks.size())), [&](int th, int nth) {
        std::vector<float> acc(acc_floats);
        for (size_t k = th; k < tasks.size(); k += nth) {
          const Task& tk = tasks[k];
          const int64_t steps = *std::max_element(lens.begin() + tk.b0, lens.begin() + tk.b1);
          for (int64_t s = 0; s < steps; ++s)
            for (size_t ph = 0; ph < phases; ++ph) step(tk, s, ph, 0, wts.blocks, acc.data());
        }
      });
    } else {
      parallel_team(threads, [&](int th, int nth) {
        std::vector<float> acc(acc_floats);
        const int64_t items = static_cast<int64_t>(tasks.size()) * wts.blocks;
        const int64_t i0 = items * th / nth, i1 = items * (th + 1) / nth;
        for (int64_t s = 0; s < max_len; ++s)
          for (size_t ph = 0; ph < phases; ++ph) {
            for (size_t k = 0; k < tasks.size(); ++k) {
              const int64_t first = static_cast<int64_t>(k) * wts.blocks;
              const int64_t lo = std::max(i0, first), hi = std::min(i1, first + wts.blocks);
              if (lo < hi) step(tasks[k], s, ph, lo - first, hi - first, acc.data());
            }
            team_barrier();
          }
      });
    }

    if (want_y) ctx.set_output(0, std::move(y));
    for (size_t o = 1; o < (lstm ? 3u : 2u); ++o) {
      if (o >= ctx.num_outputs() || ctx.node().outputs[o].empty()) continue;
      Tensor out = output_tensor(memory, o, DType::Float32, state_shape);
      for (int64_t d = 0; d < D; ++d)
        for (int64_t bi = 0; bi < B; ++bi) {
          const float* src = (o == 1 ? hbuf[lens[bi] & 1] : c) + (d * B + bi) * H;
          std::copy_n(src, H, out.data<float>() + state_at(d, bi));
        }
      ctx.set_output(o, std::move(out));
    }
    return true;
  }

 private:
  // R [D, G*H, H], B [D, 2*G*H] and P [D, 3*H] as the node's spec requires, all float32.
  bool weights_fit(const Tensor& r, const Tensor* b, const Tensor* p, int G) const {
    if (!is_f32(r) || r.rank() != 3 || r.dim(0) != spec_.dirs || r.dim(1) != G * r.dim(2)) return false;
    const int64_t H = r.dim(2);
    if (spec_.hidden_attr >= 0 && spec_.hidden_attr != H) return false;
    if (b && (!is_f32(*b) || b->shape() != Shape{spec_.dirs, 2 * G * H})) return false;
    if (p && (!is_f32(*p) || p->shape() != Shape{spec_.dirs, 3 * H})) return false;
    return true;
  }

  RnnSpec spec_;
  const RnnLoops& loops_;
  Tensor const_w_;
  RnnWeights weights_;  // packed at compile time when R, B and P are constant
  InputProjection projection_;
  size_t scratch_bytes_ = 0;
  std::mutex mu_;
};

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::unique_ptr<FastKernel> make_rnn(const KernelBuildInfo& info, RnnCellKind kind,
                                     const std::vector<std::string>& default_acts) {
  for (size_t i : {0, 1, 2, 3, 5, 6, 7})
    if (info.has_input(i) && !info.maybe_f32(i)) return nullptr;
  AttrReader a = info.attrs();
  RnnSpec spec;
  const std::string& direction = a.attr_string("direction");
  if (direction == "bidirectional")
    spec.dirs = 2;
  else if (direction == "reverse")
    spec.reverse_only = true;
  else if (direction != "forward")
    return nullptr;
  spec.layout = a.attr_int("layout");
  if (spec.layout != 0 && spec.layout != 1) return nullptr;
  // Only the default activations (sigmoid and tanh) have vectorized cells.
  const auto& acts = a.attr_strings("activations");
  if (!acts.empty()) {
    if (acts.size() != default_acts.size() && acts.size() != default_acts.size() * spec.dirs) return nullptr;
    for (size_t i = 0; i < acts.size(); ++i)
      if (lower(acts[i]) != default_acts[i % default_acts.size()]) return nullptr;
  }
  if (a.has_attr("hidden_size")) spec.hidden_attr = a.attr_int("hidden_size");
  if (a.has_attr("clip")) spec.clip = a.attr_float("clip");
  if (kind == RnnCellKind::Lstm) spec.input_forget = a.attr_int("input_forget") != 0;
  if (kind == RnnCellKind::Gru && a.attr_int("linear_before_reset") != 0) kind = RnnCellKind::GruLinearBeforeReset;
  spec.kind = kind;
  return std::make_unique<FastRnn>(info, spec);
}

}  // namespace

void register_rnn_kernels(FastKernelRegistry& r) {
  r.add("", "LSTM", [](const KernelBuildInfo& i) { return make_rnn(i, RnnCellKind::Lstm, {"sigmoid", "tanh", "tanh"}); });
  r.add("", "GRU", [](const KernelBuildInfo& i) { return make_rnn(i, RnnCellKind::Gru, {"sigmoid", "tanh"}); });
  r.add("", "RNN", [](const KernelBuildInfo& i) { return make_rnn(i, RnnCellKind::Rnn, {"tanh"}); });
}

}  // namespace ms::rt
