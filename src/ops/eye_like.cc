// EyeLike: y[i, j] = 1 if j == i + k else 0, with the shape of the 2-D input (dtype attr or x's).
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

DType eye_dtype(const AttrReader& a, DType in) {
  if (!a.has_attr("dtype")) return in;
  int64_t code = a.attr_int("dtype");
  if (!dtype_is_valid(static_cast<int32_t>(code)) || code == static_cast<int64_t>(DType::String))
    fail("{}: invalid dtype {}", a.node().label(), code);
  return static_cast<DType>(code);
}

}  // namespace

void register_op_eye_like(OpRegistry& r) {
  r.add(OpDef("EyeLike")
            .inputs(1)
            .outputs(1)
            .attr("dtype", AttrType::Int, false)
            .attr_int("k", 0)
            .trait(kTraitShapeOnly)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              DType dt = eye_dtype(ctx, x.dtype);
              ctx.set_output_type(0, x.shape ? TypeInfo::tensor(dt, *x.shape) : TypeInfo::tensor_unknown_shape(dt));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() != 2) fail("{}: input must be 2-D, got {}", ctx.node().label(), shape_str(x.shape()));
              const DType dt = eye_dtype(ctx, x.dtype());
              Tensor y(dt, x.shape());
              const Tensor one = scalar_of_dtype(dt, 1.0);
              const int64_t rows = x.dim(0), cols = x.dim(1), k = ctx.attr_int("k");
              if (k >= cols || k <= -rows) {
                ctx.set_output(0, std::move(y));
                return;
              }
              for (int64_t i = 0; i < rows; ++i)
                if (i + k >= 0 && i + k < cols) copy_elements(one, 0, y, i * cols + i + k, 1);
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
