// SpaceToDepth: y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j], b = blocksize.
#include "ops/shape_ops_util.h"

namespace ms {
namespace {
constexpr int64_t kMaxBlock = int64_t{1} << 16;  // keeps b*b*dim products far from overflow
}  // namespace

void register_op_space_to_depth(OpRegistry& r) {
  r.add(OpDef("SpaceToDepth").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .attr("blocksize", AttrType::Int, true)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              const int64_t b = ctx.attr_int("blocksize");
              if (!x.shape || x.shape->size() != 4 || b <= 0 || b > kMaxBlock) {
                ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(4)));
                return;
              }
              std::vector<Dim> out = *x.shape;
              auto scale = [](const Dim& d, int64_t num, int64_t den) {
                return d.is_static() ? Dim::fixed(d.value * num / den) : Dim{};
              };
              out[1] = scale(out[1], b * b, 1);
              out[2] = scale(out[2], 1, b);
              out[3] = scale(out[3], 1, b);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const int64_t b = ctx.attr_int("blocksize");
              if (x.rank() != 4) fail("{}: input must be 4-D, got {}", ctx.node().label(), shape_str(x.shape()));
              if (b <= 0 || b > kMaxBlock || x.dim(2) % b != 0 || x.dim(3) % b != 0)
                fail("{}: spatial dims {}x{} are not divisible by blocksize {}", ctx.node().label(), x.dim(2), x.dim(3), b);
              const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2) / b, w = x.dim(3) / b;
              Tensor y = permute_copy(x, {n, c, h, b, w, b}, {0, 3, 5, 1, 2, 4});
              ctx.set_output(0, y.reshaped({n, c * b * b, h, w}));
            }));
}

}  // namespace ms
