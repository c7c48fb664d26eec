// DepthToSpace: y[n, c, h*b + i, w*b + j] = x[n, (i*b + j)*C' + c, h, w] (DCR) or
// x[n, c*b*b + i*b + j, h, w] (CRD), with b = blocksize and C' = C / b^2.
#include "ops/shape_ops_util.h"

namespace ms {
namespace {
constexpr int64_t kMaxBlock = int64_t{1} << 16;  // keeps b*b*dim products far from overflow
}  // namespace

void register_op_depth_to_space(OpRegistry& r) {
  r.add(OpDef("DepthToSpace").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .attr("blocksize", AttrType::Int, true)
            .attr_string("mode", "DCR")
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
              out[1] = scale(out[1], 1, b * b);
              out[2] = scale(out[2], b, 1);
              out[3] = scale(out[3], b, 1);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const int64_t b = ctx.attr_int("blocksize");
              const std::string& mode = ctx.attr_string("mode");
              if (x.rank() != 4) fail("{}: input must be 4-D, got {}", ctx.node().label(), shape_str(x.shape()));
              if (b <= 0 || b > kMaxBlock || x.dim(1) % (b * b) != 0)
                fail("{}: channels {} are not divisible by blocksize^2 ({})", ctx.node().label(), x.dim(1), b);
              if (mode != "DCR" && mode != "CRD") fail("{}: unknown mode '{}'", ctx.node().label(), mode);
              const int64_t n = x.dim(0), c = x.dim(1) / (b * b), h = x.dim(2), w = x.dim(3);
              Tensor y = mode == "DCR" ? permute_copy(x, {n, b, b, c, h, w}, {0, 3, 4, 1, 5, 2})
                                       : permute_copy(x, {n, c, b, b, h, w}, {0, 1, 4, 2, 5, 3});
              ctx.set_output(0, y.reshaped({n, c, h * b, w * b}));
            }));
}

}  // namespace ms
