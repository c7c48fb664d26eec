// STFT: out[b, f, k] = sum_n signal[b, f*step + n] w[n] e^{-2 pi i kn/L} for each frame f of length
// L (frame_length, else the window's length); onesided keeps bins 0..L/2.
#include "ops/signal_util.h"

namespace ms {

void register_op_stft(OpRegistry& r) {
  r.add(OpDef("STFT")
            .inputs(2, 4)
            .outputs(1)
            .attr_int("onesided", 1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              Dim B, frames, bins;
              int64_t frame_len = -1;
              if (const Tensor* c = ctx.has_input(3) ? ctx.input_constant(3) : nullptr) frame_len = c->as_int64(0);
              else if (ctx.has_input(2) && ctx.input_type(2).has_static_shape()) {
                const Shape ws = ctx.input_type(2).static_shape();
                if (ws.size() == 1) frame_len = ws[0];
              }
              if (x.shape && x.shape->size() == 3) {
                B = (*x.shape)[0];
                const Tensor* step = ctx.input_constant(1);
                const Dim& L = (*x.shape)[1];
                if (step && frame_len > 0 && L.is_static() && step->as_int64(0) > 0 && L.value >= frame_len)
                  frames = Dim::fixed((L.value - frame_len) / step->as_int64(0) + 1);
              }
              if (frame_len > 0) bins = Dim::fixed(ctx.attr_int("onesided") ? frame_len / 2 + 1 : frame_len);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>{B, frames, bins, Dim::fixed(2)}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              if (x.rank() != 3 || (x.dim(2) != 1 && x.dim(2) != 2))
                fail("{}: signal must be [batch, length, 1|2], got {}", who, shape_str(x.shape()));
              const int64_t step = scalar_int_input(ctx, 1);
              std::vector<double> window;
              if (ctx.has_input(2)) window = ctx.input(2).to_double_vector();
              int64_t frame_len = ctx.has_input(3) ? scalar_int_input(ctx, 3) : static_cast<int64_t>(window.size());
              if (!ctx.has_input(2) && !ctx.has_input(3)) fail("{}: needs a window or a frame_length", who);
              if (window.empty()) window.assign(frame_len, 1.0);
              if (static_cast<int64_t>(window.size()) != frame_len)
                fail("{}: window has {} values, frame_length is {}", who, window.size(), frame_len);
              const int64_t B = x.dim(0), L = x.dim(1), comps = x.dim(2);
              if (step <= 0 || frame_len <= 0 || frame_len > L)
                fail("{}: frame_step {} / frame_length {} invalid for a signal of {}", who, step, frame_len, L);
              const int64_t frames = (L - frame_len) / step + 1;
              const int64_t bins = ctx.attr_int("onesided") ? frame_len / 2 + 1 : frame_len;
              const std::vector<double> in = x.to_double_vector();
              std::vector<double> out(B * frames * bins * 2);
              std::vector<std::complex<double>> sig(frame_len);
              for (int64_t b = 0; b < B; ++b)
                for (int64_t f = 0; f < frames; ++f) {
                  for (int64_t j = 0; j < frame_len; ++j) {
                    const int64_t base = (b * L + f * step + j) * comps;
                    sig[j] = std::complex<double>(in[base], comps == 2 ? in[base + 1] : 0.0) * window[j];
                  }
                  const auto spec = naive_dft(sig, frame_len, bins, false);
                  for (int64_t k = 0; k < bins; ++k) {
                    out[((b * frames + f) * bins + k) * 2] = spec[k].real();
                    out[((b * frames + f) * bins + k) * 2 + 1] = spec[k].imag();
                  }
                }
              dispatch_float(x.dtype(), who, [](auto) {});
              ctx.set_output(0, tensor_from_doubles(x.dtype(), {B, frames, bins, 2}, out, who));
            }));
}

}  // namespace ms
