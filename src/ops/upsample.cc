// Upsample (deprecated Resize): y[o] = x sampled at o / scale (asymmetric), nearest or N-linear;
// output size floor(in * scale). Scales come from the attribute (opset 7) or input 1 (opset 9).
#include <cmath>

#include "ops/resize_util.h"

namespace ms {
namespace {

std::vector<double> upsample_scales(const AttrReader& a, const Tensor* scales_in, size_t rank) {
  std::vector<double> s;
  if (scales_in) {
    s = scales_in->to_double_vector();
  } else if (a.has_attr("scales")) {
    for (float f : a.attr_floats("scales")) s.push_back(f);
  } else if (a.has_attr("height_scale") && a.has_attr("width_scale") && rank == 4) {  // Upsample-1
    s = {1.0, 1.0, a.attr_float("height_scale"), a.attr_float("width_scale")};
  }
  if (s.size() != rank) fail("{}: {} scales for an input of rank {}", a.node().label(), s.size(), rank);
  for (double v : s)
    if (!(v > 0)) fail("{}: scale {} must be positive", a.node().label(), v);
  return s;
}

}  // namespace

void register_op_upsample(OpRegistry& r) {
  r.add(OpDef("Upsample")
            .inputs(1, 2)
            .outputs(1)
            .attr_string("mode", "nearest")
            .attr("scales", AttrType::Floats, false)
            .attr("height_scale", AttrType::Float, false)
            .attr("width_scale", AttrType::Float, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              const Tensor* sc = ctx.has_input(1) ? ctx.input_constant(1) : nullptr;
              if (!xt.shape || (ctx.has_input(1) && !sc)) {
                ctx.set_output_type(0, xt.shape ? TypeInfo::tensor(xt.dtype, std::vector<Dim>(xt.shape->size()))
                                                 : TypeInfo::tensor_unknown_shape(xt.dtype));
                return;
              }
              auto s = upsample_scales(ctx, sc, xt.shape->size());
              std::vector<Dim> out;
              for (size_t i = 0; i < s.size(); ++i) {
                const Dim& d = (*xt.shape)[i];
                out.push_back(s[i] == 1.0 ? d : d.is_static() ? Dim::fixed(int64_t(std::floor(d.value * s[i]))) : Dim{});
              }
              ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              auto s = upsample_scales(ctx, ctx.has_input(1) ? &ctx.input(1) : nullptr, x.shape().size());
              Shape out;
              for (size_t i = 0; i < s.size(); ++i) out.push_back(int64_t(std::floor(double(x.dim(i)) * s[i])));
              ResizeOptions o;
              o.mode = ctx.attr_string("mode");
              if (o.mode == "bilinear") o.mode = "linear";
              if (o.mode != "nearest" && o.mode != "linear")
                fail_unsupported("{}: mode '{}' is not supported", ctx.node().label(), o.mode);
              o.coord = "asymmetric";
              o.nearest_mode = "simple";
              ctx.set_output(0, resample(x, out, s, {}, o, ctx.node().label()));
            }));
}

}  // namespace ms
