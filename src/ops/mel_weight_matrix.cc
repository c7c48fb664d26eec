// MelWeightMatrix: [dft_length/2+1, num_mel_bins] triangular filters, evenly spaced on the mel scale
// (mel = 2595 log10(1 + hz/700)) between lower_edge_hertz and upper_edge_hertz.
#include <cmath>

#include "ops/signal_util.h"

namespace ms {

void register_op_mel_weight_matrix(OpRegistry& r) {
  r.add(OpDef("MelWeightMatrix")
            .inputs(5)
            .outputs(1)
            .attr_int("output_datatype", 1)
            .infer_fn([](InferContext& ctx) {
              const Tensor* bins = ctx.input_constant(0);
              const Tensor* len = ctx.input_constant(1);
              ctx.set_output_type(0, TypeInfo::tensor(DType(ctx.attr_int("output_datatype")),
                                                      std::vector<Dim>{len ? Dim::fixed(len->as_int64(0) / 2 + 1) : Dim{},
                                                                       bins ? Dim::fixed(bins->as_int64(0)) : Dim{}}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const int64_t mel_bins = scalar_int_input(ctx, 0);
              const int64_t dft_length = scalar_int_input(ctx, 1);
              const int64_t sample_rate = scalar_int_input(ctx, 2);
              const double lo = ctx.input(3).as_double(0), hi = ctx.input(4).as_double(0);
              if (mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0)
                fail("{}: num_mel_bins {}, dft_length {}, sample_rate {} must be positive", who, mel_bins, dft_length,
                     sample_rate);
              const int64_t spec_bins = dft_length / 2 + 1;
              auto to_mel = [](double hz) { return 2595.0 * std::log10(1 + hz / 700.0); };
              const double lo_mel = to_mel(lo), step = (to_mel(hi) - lo_mel) / double(mel_bins + 2);
              std::vector<int64_t> bins(mel_bins + 2);
              for (int64_t i = 0; i < mel_bins + 2; ++i) {
                const double hz = 700.0 * (std::pow(10.0, (double(i) * step + lo_mel) / 2595.0) - 1);
                bins[i] = static_cast<int64_t>(std::floor(double(dft_length + 1) * hz / double(sample_rate)));
              }
              std::vector<double> out(spec_bins * mel_bins, 0.0);
              auto at = [&](int64_t j, int64_t i) -> double& {
                if (j < 0 || j >= spec_bins) fail("{}: filter edge {} outside the {} spectrogram bins", who, j, spec_bins);
                return out[j * mel_bins + i];
              };
              for (int64_t i = 0; i < mel_bins; ++i) {
                const int64_t left = bins[i], center = bins[i + 1], right = bins[i + 2];
                if (center == left) {
                  at(center, i) = 1;
                } else {
                  for (int64_t j = left; j <= center; ++j) at(j, i) = double(j - left) / double(center - left);
                }
                for (int64_t j = center; j < right; ++j) at(j, i) = double(right - j) / double(right - center);
              }
              const int64_t dt = ctx.attr_int("output_datatype");
              if (!dtype_is_valid(static_cast<int32_t>(dt))) fail("{}: invalid output_datatype {}", who, dt);
              ctx.set_output(0, tensor_from_doubles(DType(dt), {spec_bins, mel_bins}, out, who));
            }));
}

}  // namespace ms
