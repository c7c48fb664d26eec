// Reshape: y = x with a new shape; 0 copies the input dim (unless allowzero), -1 is inferred.
#include "ops/shape_ops_util.h"

namespace ms {

Shape reshape_target(const Shape& in, const std::vector<int64_t>& spec, bool allowzero, const Node& node) {
  Shape out(spec.size());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) fail("{}: shape entry {} is 0 but the input {} has no dim {}", node.label(), i, shape_str(in), i);
      d = in[i];
    } else if (d == -1) {
      if (infer_at >= 0) fail("{}: shape {} has more than one -1", node.label(), shape_str(spec));
      infer_at = static_cast<int>(i);
      continue;
    } else if (d < 0) {
      fail("{}: invalid shape entry {} in {}", node.label(), d, shape_str(spec));
    }
    out[i] = d;
    if (__builtin_mul_overflow(known, d, &known)) fail("{}: shape {} overflows", node.label(), shape_str(spec));
  }
  int64_t n = shape_numel(in);
  if (infer_at >= 0) {
    if (known == 0 || n % known != 0)
      fail("{}: cannot infer the -1 of shape {} for input {}", node.label(), shape_str(spec), shape_str(in));
    out[infer_at] = n / known;
  } else if (known != n) {
    fail("{}: cannot reshape input {} to {}", node.label(), shape_str(in), shape_str(spec));
  }
  return out;
}

namespace {

void infer_reshape(InferContext& ctx) {
  const TypeInfo& x = ctx.input_type(0);
  auto spec = const_ints(ctx, 1);
  if (!spec) {
    const TypeInfo& s = ctx.input_type(1);
    if (s.shape && s.shape->size() == 1 && (*s.shape)[0].is_static())
      ctx.set_output_type(0, TypeInfo::tensor(x.dtype, std::vector<Dim>(static_cast<size_t>((*s.shape)[0].value))));
    else
      ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
    return;
  }
  bool allowzero = ctx.attr_int("allowzero") != 0;
  if (auto in = known_shape(x)) {
    ctx.set_output_type(0, TypeInfo::tensor(x.dtype, reshape_target(*in, *spec, allowzero, ctx.node())));
    return;
  }
  std::vector<Dim> out;
  for (size_t i = 0; i < spec->size(); ++i) {
    int64_t d = (*spec)[i];
    if (d == 0 && !allowzero && x.shape && i < x.shape->size())
      out.push_back((*x.shape)[i]);
    else if (d >= 0 && !(d == 0 && !allowzero))
      out.push_back(Dim::fixed(d));
    else
      out.push_back(Dim{});
  }
  ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
}

}  // namespace

void register_op_reshape(OpRegistry& r) {
  r.add(OpDef("Reshape").trait(kTraitHalfCompute)
            .inputs(2)
            .outputs(1)
            .attr_int("allowzero", 0)
            .infer_fn(infer_reshape)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              Shape out = reshape_target(x.shape(), ctx.input(1).to_int64_vector(), ctx.attr_int("allowzero") != 0,
                                         ctx.node());
              ctx.set_output(0, x.reshaped(out));
            }));
}

}  // namespace ms
