// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, per axis, or (opset 21) per block
// of `block_size` consecutive elements along `axis`.
#include "ops/conv_pool_util.h"

namespace ms {
namespace {

// A scale or zero point and which of its entries element i of x reads: one per tensor, one per
// index along `axis`, or (blocked) x's shape except along `axis`, which holds
// ceil(x_dim / block_size) entries, the last block possibly short.
struct Param {
  std::vector<double> values;
  bool blocked = false;
  int64_t axis_dim = 1, blocks = 1, block = 1, inner = 1;
  double at(int64_t i) const {
    if (values.size() == 1 && !blocked) return values[0];
    const int64_t a = (i / inner) % axis_dim;
    if (!blocked) return values[a];
    return values[((i / (inner * axis_dim)) * blocks + a / block) * inner + i % inner];
  }
};

Param read_param(const Tensor& p, const Shape& x_shape, int64_t axis, int64_t block, const Node& node, const char* what) {
  Param q;
  if (block == 0) {
    QuantParam u = quant_param(p, x_shape, axis, node, what);
    q.values = std::move(u.values), q.axis_dim = u.axis_dim, q.inner = u.inner;
    return q;
  }
  if (block < 0) fail("{}: block_size must be >= 0, got {}", node.label(), block);
  const int64_t ax = normalize_axis(axis, static_cast<int64_t>(x_shape.size()), node);
  q.blocked = true;
  q.axis_dim = x_shape[ax], q.block = block, q.blocks = (x_shape[ax] + block - 1) / block;
  Shape want = x_shape;
  want[ax] = q.blocks;
  if (p.shape() != want)
    fail("{}: blocked {} must have shape {} (input {} in blocks of {} along axis {}), got {}", node.label(), what,
         shape_str(want), shape_str(x_shape), block, ax, shape_str(p.shape()));
  for (size_t d = ax + 1; d < x_shape.size(); ++d) q.inner *= x_shape[d];
  q.values = p.to_double_vector();
  return q;
}

}  // namespace

void register_op_dequantize_linear(OpRegistry& r) {
  r.add(OpDef("DequantizeLinear")
            .inputs(2, 3)
            .outputs(1)
            .trait(kTraitQuantized)
            .attr_int("axis", 1)
            .attr_int("block_size", 0)
            .infer_fn([](InferContext& ctx) {
              TypeInfo t = ctx.input_type(0);
              t.dtype = ctx.input_type(1).dtype;
              ctx.set_output_type(0, t);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& sc = ctx.input(1);
              const std::string label = ctx.node().label();
              if (!dtype_is_integer(x.dtype())) fail_unsupported("{}: x of dtype {} is not supported", label, dtype_name(x.dtype()));
              const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
              if (zp && zp->dtype() != x.dtype())
                fail("{}: x_zero_point is {} but x is {}", label, dtype_name(zp->dtype()), dtype_name(x.dtype()));
              const int64_t axis = ctx.attr_int("axis"), block = ctx.attr_int("block_size");
              const Param s = read_param(sc, x.shape(), axis, block, ctx.node(), "x_scale");
              const Param z = zp ? read_param(*zp, x.shape(), axis, block, ctx.node(), "x_zero_point") : Param{{0.0}};
              Tensor y(sc.dtype(), x.shape());
              const auto xv = x.to_int64_vector();
              dispatch_float(sc.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* yp = y.data<T>();
                for (int64_t i = 0; i < x.numel(); ++i) {
                  const double d = double(xv[i] - int64_t(z.at(i)));
                  // float32 arithmetic for float outputs, as the reference computes it
                  if constexpr (std::is_same_v<T, double>) yp[i] = d * s.at(i);
                  else yp[i] = T(float(d) * float(s.at(i)));
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
