// Size: y = number of elements of x, as an int64 scalar.
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_size(OpRegistry& r) {
  r.add(OpDef("Size")
            .inputs(1)
            .outputs(1)
            .trait(kTraitShapeOnly)
            .infer_fn([](InferContext& ctx) { ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, Shape{})); })
            .kernel_fn([](KernelContext& ctx) { ctx.set_output(0, Tensor::scalar<int64_t>(ctx.input(0).numel())); }));
}

}  // namespace ms
