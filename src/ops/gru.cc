// GRU: z = f(XWz + HRz + b), r = f(XWr + HRr + b), h~ = g(XWh + (r.H)Rh + b) (or r.(HRh + Rbh) with
// linear_before_reset), H' = (1 - z).h~ + z.H; gates ordered z, r, h in W, R and B.
#include "ops/rnn_util.h"

namespace ms {

void register_op_gru(OpRegistry& r) {
  OpDef def("GRU");
  def.inputs(3, 6).outputs(0, 2).attr_int("linear_before_reset", 0);
  register_rnn_schema(def);
  def.kernel_fn([](KernelContext& ctx) {
    const RnnProblem p = read_rnn_problem(ctx, 3, {"Sigmoid", "Tanh"}, -1);
    const bool lbr = ctx.attr_int("linear_before_reset") != 0;
    const int64_t H = p.hidden, I = p.input;
    std::vector<double> z(H), rg(H), rh(H), hh(H);
    run_rnn(ctx, p, [&](int64_t d, const double* x, std::vector<double>& h, std::vector<double>&) {
      const double* W = &p.W[d * 3 * H * I];
      const double* R = &p.R[d * 3 * H * H];
      const double* Wb = &p.B[d * 6 * H];
      const double* Rb = Wb + 3 * H;
      const auto& f = p.act(d, 0, 2);
      const auto& g = p.act(d, 1, 2);
      for (int64_t j = 0; j < H; ++j) {
        z[j] = f(p.clipped(rnn_dot(x, W + j * I, I) + rnn_dot(h.data(), R + j * H, H) + Wb[j] + Rb[j]));
        rg[j] = f(p.clipped(rnn_dot(x, W + (H + j) * I, I) + rnn_dot(h.data(), R + (H + j) * H, H) + Wb[H + j] +
                            Rb[H + j]));
      }
      for (int64_t k = 0; k < H; ++k) rh[k] = rg[k] * h[k];
      for (int64_t j = 0; j < H; ++j) {
        const double* Rh = R + (2 * H + j) * H;
        const double xw = rnn_dot(x, W + (2 * H + j) * I, I) + Wb[2 * H + j];
        const double rec = lbr ? rg[j] * (rnn_dot(h.data(), Rh, H) + Rb[2 * H + j])
                               : rnn_dot(rh.data(), Rh, H) + Rb[2 * H + j];
        hh[j] = g(p.clipped(xw + rec));
      }
      for (int64_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * hh[j] + z[j] * h[j];
    }, false);
  });
  r.add(std::move(def));
}

}  // namespace ms
