// Where: output = condition ? X : Y elementwise, with three-way numpy broadcasting.
#include "ops/numpy_util.h"

namespace ms {
namespace {

void infer_where(InferContext& ctx) {
  std::vector<std::vector<Dim>> shapes;
  const DType dt = ctx.input_type(1).dtype;
  for (size_t i = 0; i < 3; ++i) {
    const TypeInfo& t = ctx.input_type(i);
    if (!t.shape) return ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
    shapes.push_back(*t.shape);
  }
  ctx.set_output_type(0, TypeInfo::tensor(dt, broadcast_dims(shapes, ctx.node())));
}

}  // namespace

void register_op_where(OpRegistry& r) {
  r.add(OpDef("Where").trait(kTraitHalfCompute).inputs(3).outputs(1).trait(kTraitElementwise | kTraitBroadcast).infer_fn(infer_where)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& c = ctx.input(0);
              const Tensor& x = ctx.input(1);
              const Tensor& y = ctx.input(2);
              const Node& node = ctx.node();
              if (c.dtype() != DType::Bool) fail("{}: condition must be bool, got {}", node.label(), dtype_name(c.dtype()));
              if (x.dtype() != y.dtype())
                fail("{}: X and Y dtypes differ ({} and {})", node.label(), dtype_name(x.dtype()), dtype_name(y.dtype()));
              Shape shape = broadcast_shapes({c.shape(), x.shape(), y.shape()}, node);
              Tensor out(x.dtype(), shape);
              auto oc = broadcast_offsets(c.shape(), shape);
              auto ox = broadcast_offsets(x.shape(), shape);
              auto oy = broadcast_offsets(y.shape(), shape);
              const bool* pc = c.data<bool>();
              dispatch_by_size(x.dtype(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* px = raw_as<T>(x);
                const T* py = raw_as<T>(y);
                T* po = raw_as<T>(out);
                for (int64_t i = 0; i < out.numel(); ++i) po[i] = pc[oc[i]] ? px[ox[i]] : py[oy[i]];
              });
              ctx.set_output(0, std::move(out));
            }));
}

}  // namespace ms
