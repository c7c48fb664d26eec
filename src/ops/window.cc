// Window functions over n = 0..size-1 with N = size (periodic) or size-1 (symmetric):
// Hann 0.5 - 0.5 cos(2 pi n/N); Hamming 25/46 - 21/46 cos(2 pi n/N);
// Blackman 0.42 - 0.5 cos(2 pi n/N) + 0.08 cos(4 pi n/N).
#include <cmath>
#include <numbers>

#include "ops/signal_util.h"

namespace ms {

namespace {
void add_window(OpRegistry& r, const char* name, double (*f)(double)) {
  r.add(OpDef(name)
            .inputs(1)
            .outputs(1)
            .attr_int("output_datatype", 1)
            .attr_int("periodic", 1)
            .infer_fn([](InferContext& ctx) {
              const DType dt = DType(ctx.attr_int("output_datatype"));
              const Tensor* c = ctx.input_constant(0);
              ctx.set_output_type(0, TypeInfo::tensor(dt, std::vector<Dim>{c ? Dim::fixed(c->as_int64(0)) : Dim{}}));
            })
            .kernel_fn([f](KernelContext& ctx) {
              const int64_t size = scalar_int_input(ctx, 0);
              if (size < 0) fail("{}: window size must be >= 0, got {}", ctx.node().label(), size);
              const int64_t dt = ctx.attr_int("output_datatype");
              if (!dtype_is_valid(static_cast<int32_t>(dt))) fail("{}: invalid output_datatype {}", ctx.node().label(), dt);
              const double N = ctx.attr_int("periodic") ? double(size) : double(size - 1);
              std::vector<double> v(size);
              for (int64_t n = 0; n < size; ++n) v[n] = N > 0 ? f(2 * std::numbers::pi * double(n) / N) : 1.0;
              ctx.set_output(0, tensor_from_doubles(DType(dt), {size}, v, ctx.node().label()));
            }));
}
}  // namespace

void register_op_hann_window(OpRegistry& r) {
  add_window(r, "HannWindow", [](double t) { return 0.5 - 0.5 * std::cos(t); });
}
void register_op_hamming_window(OpRegistry& r) {
  add_window(r, "HammingWindow", [](double t) { return 25.0 / 46.0 - 21.0 / 46.0 * std::cos(t); });
}
void register_op_blackman_window(OpRegistry& r) {
  add_window(r, "BlackmanWindow", [](double t) { return 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t); });
}

}  // namespace ms
