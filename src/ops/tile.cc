// Tile: y[i] = x[i mod x.shape] with y.shape = x.shape * repeats.
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_tile(OpRegistry& r) {
  r.add(OpDef("Tile").trait(kTraitHalfCompute)
            .inputs(2)
            .outputs(1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              auto reps = const_ints(ctx, 1);
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              std::vector<Dim> out = *x.shape;
              if (reps && reps->size() != out.size())
                fail("{}: {} repeats for rank {}", ctx.node().label(), reps->size(), out.size());
              for (size_t d = 0; d < out.size(); ++d) {
                int64_t v = 0;
                bool ok = reps && out[d].is_static() && (*reps)[d] >= 0 &&
                          !__builtin_mul_overflow(out[d].value, (*reps)[d], &v);
                out[d] = ok ? Dim::fixed(v) : Dim{};
              }
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto reps = ctx.input(1).to_int64_vector();
              if (static_cast<int64_t>(reps.size()) != x.rank())
                fail("{}: {} repeats for input {}", ctx.node().label(), reps.size(), shape_str(x.shape()));
              Shape out = x.shape();
              for (int d = 0; d < x.rank(); ++d) {
                if (reps[d] < 0 || (reps[d] > 0 && out[d] > (int64_t{1} << 40) / reps[d]))
                  fail("{}: invalid repeat {} for a dim of {}", ctx.node().label(), reps[d], out[d]);
                out[d] *= reps[d];
              }
              check_output_shape(out, ctx.node());
              const auto st = strides_of(x.shape());
              std::vector<std::vector<int64_t>> maps(x.rank());
              for (int d = 0; d < x.rank(); ++d) {
                const int64_t n = x.shape()[d];
                for (int64_t o = 0; o < n * reps[d]; ++o) maps[d].push_back((o % n) * st[d]);
              }
              ctx.set_output(0, gather_by_axis_offsets(x, maps));
            }));
}

}  // namespace ms
