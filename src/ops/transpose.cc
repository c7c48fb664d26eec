// Transpose: y[i_perm[0], ..., i_perm[r-1]] = x[i_0, ..., i_{r-1}], i.e. y dim d = x dim perm[d].
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

std::vector<int64_t> transpose_perm(const AttrReader& a, int64_t rank) {
  std::vector<int64_t> perm;
  if (!a.has_attr("perm")) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    return perm;
  }
  perm = a.attr_ints("perm");
  if (static_cast<int64_t>(perm.size()) != rank)
    fail("{}: perm has {} entries for rank {}", a.node().label(), perm.size(), rank);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& p : perm) {
    p = axis_index(p, rank, a.node());
    if (seen[p]) fail("{}: perm repeats axis {}", a.node().label(), p);
    seen[p] = true;
  }
  return perm;
}

}  // namespace

void register_op_transpose(OpRegistry& r) {
  r.add(OpDef("Transpose").trait(kTraitHalfCompute)
            .inputs(1)
            .outputs(1)
            .attr("perm", AttrType::Ints, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              std::vector<Dim> out;
              for (int64_t p : transpose_perm(ctx, static_cast<int64_t>(x.shape->size()))) out.push_back((*x.shape)[p]);
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              ctx.set_output(0, permute_copy(x, x.shape(), transpose_perm(ctx, x.rank())));
            }));
}

}  // namespace ms
