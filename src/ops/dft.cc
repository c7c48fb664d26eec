// DFT: X[k] = sum_n x[n] e^{-2 pi i kn/N} along `axis` (inverse: e^{+...}/N); the last dim holds
// 1 (real) or 2 (real, imaginary) components; onesided keeps bins 0..N/2.
#include "ops/signal_util.h"

namespace ms {

void register_op_dft(OpRegistry& r) {
  r.add(OpDef("DFT")
            .inputs(1, 3)
            .outputs(1)
            .attr_int("axis", 1)
            .attr_int("inverse", 0)
            .attr_int("onesided", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (!t.shape || ctx.has_input(2)) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.dtype));
                return;
              }
              std::vector<Dim> dims = *t.shape;
              const int64_t rank = static_cast<int64_t>(dims.size());
              int64_t axis = ctx.attr_int("axis");
              if (axis < 0) axis += rank;
              if (rank < 2 || axis < 0 || axis >= rank - 1) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.dtype));
                return;
              }
              Dim n = dims[axis];
              if (ctx.has_input(1)) {
                const Tensor* c = ctx.input_constant(1);
                n = c ? Dim::fixed(c->as_int64(0)) : Dim{};
              }
              if (ctx.attr_int("onesided") && n.is_static()) n = Dim::fixed(n.value / 2 + 1);
              else if (ctx.attr_int("onesided")) n = Dim{};
              dims[axis] = n;
              dims.back() = Dim::fixed(2);
              ctx.set_output_type(0, TypeInfo::tensor(t.dtype, dims));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              const int64_t rank = x.rank();
              if (rank < 2 || (x.dim(-1) != 1 && x.dim(-1) != 2))
                fail("{}: input must be [..., 1] or [..., 2], got {}", who, shape_str(x.shape()));
              // Opset 20 moved axis to input 2 (default -2 there); older forms use the attribute.
              int64_t axis = ctx.has_input(2) ? scalar_int_input(ctx, 2) : ctx.attr_int("axis");
              if (axis < 0) axis += rank;
              if (axis < 0 || axis >= rank - 1)
                fail("{}: axis {} is out of range for input {}", who, axis, shape_str(x.shape()));
              const bool inverse = ctx.attr_int("inverse") != 0;
              const bool onesided = ctx.attr_int("onesided") != 0;
              const int64_t len = x.dim(static_cast<int>(axis));
              const int64_t n = ctx.has_input(1) ? scalar_int_input(ctx, 1) : len;
              if (n <= 0) fail("{}: dft_length must be positive, got {}", who, n);
              const int64_t n_out = onesided ? n / 2 + 1 : n;
              const int64_t comps = x.dim(-1);
              Shape os = x.shape();
              os[axis] = n_out;
              os.back() = 2;
              int64_t outer = 1, inner = 1;
              for (int64_t d = 0; d < axis; ++d) outer *= x.dim(static_cast<int>(d));
              for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(static_cast<int>(d));
              const std::vector<double> in = x.to_double_vector();
              std::vector<double> out(shape_numel(os));
              std::vector<std::complex<double>> sig(len);
              for (int64_t o = 0; o < outer; ++o)
                for (int64_t i = 0; i < inner; ++i) {
                  for (int64_t j = 0; j < len; ++j) {
                    const int64_t base = ((o * len + j) * inner + i) * comps;
                    sig[j] = {in[base], comps == 2 ? in[base + 1] : 0.0};
                  }
                  const auto spec = naive_dft(sig, n, n_out, inverse);
                  for (int64_t k = 0; k < n_out; ++k) {
                    const int64_t base = ((o * n_out + k) * inner + i) * 2;
                    out[base] = spec[k].real();
                    out[base + 1] = spec[k].imag();
                  }
                }
              dispatch_float(x.dtype(), who, [](auto) {});
              ctx.set_output(0, tensor_from_doubles(x.dtype(), os, out, who));
            }));
}

}  // namespace ms
