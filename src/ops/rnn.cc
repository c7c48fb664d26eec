// RNN: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb), per direction, f defaults to Tanh.
#include "ops/rnn_util.h"

namespace ms {

void register_op_rnn(OpRegistry& r) {
  OpDef def("RNN");
  def.inputs(3, 6).outputs(0, 2);
  register_rnn_schema(def);
  def.kernel_fn([](KernelContext& ctx) {
    const RnnProblem p = read_rnn_problem(ctx, 1, {"Tanh"}, -1);
    const int64_t H = p.hidden, I = p.input;
    std::vector<double> pre(H);
    run_rnn(ctx, p, [&](int64_t d, const double* x, std::vector<double>& h, std::vector<double>&) {
      const double* W = &p.W[d * H * I];
      const double* R = &p.R[d * H * H];
      const double* B = &p.B[d * 2 * H];
      for (int64_t j = 0; j < H; ++j)
        pre[j] = p.clipped(rnn_dot(x, W + j * I, I) + rnn_dot(h.data(), R + j * H, H) + B[j] + B[H + j]);
      for (int64_t j = 0; j < H; ++j) h[j] = p.act(d, 0, 1)(pre[j]);
    }, false);
  });
  r.add(std::move(def));
}

}  // namespace ms
