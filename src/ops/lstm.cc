// LSTM: i = f(XWi + HRi + Pi.C + b), f = f(XWf + HRf + Pf.C + b), c~ = g(XWc + HRc + b),
// C' = f.C + i.c~, o = f(XWo + HRo + Po.C' + b), H' = o.h(C'); gates ordered i, o, f, c; P is i, o, f.
#include "ops/rnn_util.h"

namespace ms {

void register_op_lstm(OpRegistry& r) {
  OpDef def("LSTM");
  def.inputs(3, 8).outputs(0, 3).attr_int("input_forget", 0);
  register_rnn_schema(def);
  def.kernel_fn([](KernelContext& ctx) {
    const RnnProblem p = read_rnn_problem(ctx, 4, {"Sigmoid", "Tanh", "Tanh"}, 6);
    const bool input_forget = ctx.attr_int("input_forget") != 0;
    const int64_t H = p.hidden, I = p.input;
    std::vector<double> P(p.num_dir * 3 * H, 0.0);
    if (ctx.has_input(7)) {
      const Tensor& pt = ctx.input(7);
      if (pt.shape() != Shape{p.num_dir, 3 * H})
        fail("{}: P has shape {}, expected [{},{}]", ctx.node().label(), shape_str(pt.shape()), p.num_dir, 3 * H);
      P = pt.to_double_vector();
    }
    std::vector<double> pre(4 * H);
    run_rnn(ctx, p, [&](int64_t d, const double* x, std::vector<double>& h, std::vector<double>& c) {
      const double* W = &p.W[d * 4 * H * I];
      const double* R = &p.R[d * 4 * H * H];
      const double* Wb = &p.B[d * 8 * H];
      const double* Rb = Wb + 4 * H;
      const double* Pi = &P[d * 3 * H];
      const double* Po = Pi + H;
      const double* Pf = Po + H;
      const auto& f = p.act(d, 0, 3);
      const auto& g = p.act(d, 1, 3);
      const auto& hf = p.act(d, 2, 3);
      for (int64_t k = 0; k < 4 * H; ++k)
        pre[k] = rnn_dot(x, W + k * I, I) + rnn_dot(h.data(), R + k * H, H) + Wb[k] + Rb[k];
      for (int64_t j = 0; j < H; ++j) {
        const double it = f(p.clipped(pre[j] + Pi[j] * c[j]));
        const double ft = input_forget ? 1 - it : f(p.clipped(pre[2 * H + j] + Pf[j] * c[j]));
        const double ct = g(p.clipped(pre[3 * H + j]));
        c[j] = ft * c[j] + it * ct;
        const double ot = f(p.clipped(pre[H + j] + Po[j] * c[j]));
        h[j] = ot * hf(c[j]);
      }
    }, true);
  });
  r.add(std::move(def));
}

}  // namespace ms
