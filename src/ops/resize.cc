// Resize: y[o] = interpolation (nearest / N-linear / cubic) of x at the input coordinate that
// coordinate_transformation_mode maps output index o to; output size from scales or sizes.
#include <cmath>

#include "ops/resize_util.h"

namespace ms {
namespace {

struct ResizeInputs {
  int roi = -1, scales = -1, sizes = -1;  // input positions for the model's opset
};
ResizeInputs resize_inputs(int opset, size_t n_inputs) {
  if (opset < 11 && n_inputs <= 2) return {-1, 1, -1};
  return {1, 2, 3};
}

struct ResizePlan {
  Shape out;
  std::vector<double> scales;  // per axis
  std::vector<double> roi;     // empty or 2*rank
};

// The output shape and per-axis scales from the scales/sizes/roi inputs (any may be null).
ResizePlan plan_resize(const AttrReader& a, const Shape& in, const Tensor* roi, const Tensor* scales,
                       const Tensor* sizes) {
  const std::string label = a.node().label();
  const int64_t r = int64_t(in.size());
  std::vector<int64_t> axes;
  if (a.has_attr("axes") && !a.attr_ints("axes").empty()) {
    for (int64_t ax : a.attr_ints("axes")) axes.push_back(normalize_axis(ax, r, a.node()));
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const size_t na = axes.size();
  ResizePlan p{in, std::vector<double>(r, 1.0), {}};
  if (sizes) {
    auto sz = sizes->to_int64_vector();
    if (sz.size() != na) fail("{}: sizes has {} values for {} axes", label, sz.size(), na);
    const std::string policy = a.has_attr("keep_aspect_ratio_policy") ? a.attr_string("keep_aspect_ratio_policy") : "stretch";
    if (policy == "stretch") {
      for (size_t i = 0; i < na; ++i) {
        p.out[axes[i]] = sz[i];
        p.scales[axes[i]] = in[axes[i]] ? double(sz[i]) / double(in[axes[i]]) : 1.0;
      }
    } else if (policy == "not_larger" || policy == "not_smaller") {
      double s = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t i = 0; i < na; ++i) {
        const double si = double(sz[i]) / double(in[axes[i]]);
        s = policy == "not_larger" ? std::min(s, si) : std::max(s, si);
      }
      for (size_t i = 0; i < na; ++i) {
        p.out[axes[i]] = int64_t(std::round(s * double(in[axes[i]])));
        p.scales[axes[i]] = s;
      }
    } else {
      fail("{}: unknown keep_aspect_ratio_policy '{}'", label, policy);
    }
  } else if (scales) {
    auto sc = scales->to_double_vector();
    if (sc.size() != na) fail("{}: scales has {} values for {} axes", label, sc.size(), na);
    for (size_t i = 0; i < na; ++i) {
      if (!(sc[i] > 0)) fail("{}: scale {} on axis {} must be positive", label, sc[i], axes[i]);
      p.scales[axes[i]] = sc[i];
      p.out[axes[i]] = int64_t(std::floor(double(in[axes[i]]) * sc[i]));
    }
  } else {
    fail("{}: one of 'scales' or 'sizes' must be given", label);
  }
  for (int64_t d : p.out)
    if (d < 0) fail("{}: negative output size in {}", label, shape_str(p.out));
  if (roi) {
    auto rv = roi->to_double_vector();
    if (rv.size() == 2 * size_t(r)) {
      p.roi = rv;
    } else if (rv.size() == 2 * na) {
      p.roi.assign(2 * r, 0.0);
      for (int64_t i = 0; i < r; ++i) p.roi[r + i] = 1.0;
      for (size_t i = 0; i < na; ++i) {
        p.roi[axes[i]] = rv[i];
        p.roi[r + axes[i]] = rv[na + i];
      }
    } else {
      fail("{}: roi has {} values, expected {}", label, rv.size(), 2 * na);
    }
  }
  return p;
}

}  // namespace

void register_op_resize(OpRegistry& r) {
  r.add(OpDef("Resize")
            .inputs(1, 4)
            .outputs(1)
            .attr_int("antialias", 0)
            .attr_ints("axes")
            .attr_string("coordinate_transformation_mode", "half_pixel")
            .attr_float("cubic_coeff_a", -0.75f)
            .attr_int("exclude_outside", 0)
            .attr_float("extrapolation_value", 0.0f)
            .attr_string("keep_aspect_ratio_policy", "stretch")
            .attr_string("mode", "nearest")
            .attr_string("nearest_mode", "round_prefer_floor")
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& xt = ctx.input_type(0);
              const auto io = resize_inputs(ctx.opset(), ctx.num_inputs());
              auto constant = [&](int i) { return i >= 0 && ctx.has_input(i) ? ctx.input_constant(i) : nullptr; };
              auto pending = [&](int i) { return i >= 0 && ctx.has_input(i) && !ctx.input_constant(i); };
              // An empty scales/sizes tensor means "absent".
              auto present = [&](int i) { const Tensor* t = constant(i); return t && t->numel() > 0 ? t : nullptr; };
              const Tensor* scales = present(io.scales);
              const Tensor* sizes = present(io.sizes);
              if (!xt.shape || pending(io.scales) || pending(io.sizes) || (!scales && !sizes)) {
                TypeInfo t = TypeInfo::tensor_unknown_shape(xt.dtype);
                if (xt.shape) t = TypeInfo::tensor(xt.dtype, std::vector<Dim>(xt.shape->size()));
                ctx.set_output_type(0, t);
                return;
              }
              Shape in;
              for (const Dim& d : *xt.shape) in.push_back(d.is_static() ? d.value : -1);
              // Unknown input dims: plan with 1 and then forget the resized result for those axes.
              Shape in1 = in;
              for (auto& d : in1) d = d < 0 ? 1 : d;
              auto p = plan_resize(ctx, in1, nullptr, scales, sizes);
              std::vector<Dim> out;
              for (size_t i = 0; i < in.size(); ++i) {
                if (in[i] >= 0) out.push_back(Dim::fixed(p.out[i]));
                else out.push_back(!sizes && p.scales[i] == 1.0 ? (*xt.shape)[i] : Dim{});
              }
              ctx.set_output_type(0, TypeInfo::tensor(xt.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const std::string label = ctx.node().label();
              const auto io = resize_inputs(ctx.opset(), ctx.num_inputs());
              auto opt_in = [&](int i) { return i >= 0 && ctx.has_input(i) && ctx.input(i).numel() > 0 ? &ctx.input(i) : nullptr; };
              ResizePlan p = plan_resize(ctx, x.shape(), opt_in(io.roi), opt_in(io.scales), opt_in(io.sizes));
              ResizeOptions o;
              o.mode = ctx.attr_string("mode");
              o.coord = ctx.attr_string("coordinate_transformation_mode");
              o.nearest_mode = ctx.attr_string("nearest_mode");
              if (ctx.opset() < 11) {
                // Resize-10 had no such attributes: asymmetric coordinates, Upsample's nearest rule.
                o.coord = "asymmetric";
                o.nearest_mode = "simple";
              }
              o.cubic_a = ctx.attr_float("cubic_coeff_a");
              o.exclude_outside = ctx.attr_int("exclude_outside") != 0;
              o.extrapolation = ctx.attr_float("extrapolation_value");
              o.antialias = ctx.attr_int("antialias") != 0;
              ctx.set_output(0, resample(x, p.out, p.scales, p.roi, o, label));
            }));
}

}  // namespace ms
