// ArgMax / ArgMin: y = index of the largest / smallest element of x along `axis` (first
// occurrence, or last with select_last_index), as int64.
#include "ops/reduce_util.h"

namespace ms {
namespace {

void infer_arg(InferContext& ctx) {
  const TypeInfo& t = ctx.input_type(0);
  if (!t.shape) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(DType::Int64));
    return;
  }
  auto dims = *t.shape;
  int64_t axis = normalize_axis(ctx.attr_int("axis"), static_cast<int64_t>(dims.size()), ctx.node());
  if (ctx.attr_int("keepdims")) dims[axis] = Dim::fixed(1);
  else dims.erase(dims.begin() + axis);
  ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, dims));
}

KernelFn arg_kernel(bool is_max) {
  return [is_max](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) fail("{}: input must have rank >= 1", ctx.node().label());
    const int64_t axis = normalize_axis(ctx.attr_int("axis"), x.rank(), ctx.node());
    const bool last = ctx.attr_int("select_last_index") != 0;
    const int64_t outer = dims_product(x.shape(), 0, axis), n = x.dim(axis),
                  inner = dims_product(x.shape(), axis + 1, x.rank());
    if (n == 0) fail("{}: cannot take arg over an empty axis", ctx.node().label());
    Shape out_shape = x.shape();
    if (ctx.attr_int("keepdims")) out_shape[axis] = 1;
    else out_shape.erase(out_shape.begin() + axis);
    Tensor y(DType::Int64, out_shape);
    int64_t* out = y.data<int64_t>();
    dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = acc_t<T>;
      const T* in = x.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const T* p = in + o * n * inner + i;
          int64_t best = 0;
          A bv = to_acc<A>(p[0]);
          for (int64_t k = 1; k < n; ++k) {
            A v = to_acc<A>(p[k * inner]);
            bool better = is_max ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
            if (better) {
              best = k;
              bv = v;
            }
          }
          out[o * inner + i] = best;
        }
    });
    ctx.set_output(0, std::move(y));
  };
}

void add_arg(OpRegistry& r, const char* name, bool is_max) {
  r.add(OpDef(name)
            .inputs(1)
            .outputs(1)
            .attr_int("axis", 0)
            .attr_int("keepdims", 1)
            .attr_int("select_last_index", 0)
            .infer_fn(infer_arg)
            .kernel_fn(arg_kernel(is_max)));
}

}  // namespace

void register_op_arg_max_min(OpRegistry& r) {
  add_arg(r, "ArgMax", true);
  add_arg(r, "ArgMin", false);
}

}  // namespace ms
