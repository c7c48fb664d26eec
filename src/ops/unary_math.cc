// Unary math functions y = f(x) elementwise: trigonometric/hyperbolic, exp/log, rounding, Abs,
// Neg, Sign, Reciprocal, Sqrt, Sigmoid, Softplus, Softsign, Not, IsNaN, IsInf.
#include <cmath>

#include "ops/numpy_util.h"

namespace ms {
namespace {

using MathFn = double (*)(double);

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
// log(1 + e^x) without overflow for large x.
double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

struct FloatFn {
  const char* name;
  MathFn fn;
};

const FloatFn kFloatFns[] = {
    {"Acos", [](double x) { return std::acos(x); }},
    {"Acosh", [](double x) { return std::acosh(x); }},
    {"Asin", [](double x) { return std::asin(x); }},
    {"Asinh", [](double x) { return std::asinh(x); }},
    {"Atan", [](double x) { return std::atan(x); }},
    {"Atanh", [](double x) { return std::atanh(x); }},
    {"Ceil", [](double x) { return std::ceil(x); }},
    {"Cos", [](double x) { return std::cos(x); }},
    {"Cosh", [](double x) { return std::cosh(x); }},
    {"Erf", [](double x) { return std::erf(x); }},
    {"Exp", [](double x) { return std::exp(x); }},
    {"Floor", [](double x) { return std::floor(x); }},
    {"Log", [](double x) { return std::log(x); }},
    {"Reciprocal", [](double x) { return 1.0 / x; }},
    // nearbyint in the default rounding mode rounds halves to even, as ONNX requires.
    {"Round", [](double x) { return std::nearbyint(x); }},
    {"Sin", [](double x) { return std::sin(x); }},
    {"Sinh", [](double x) { return std::sinh(x); }},
    {"Sqrt", [](double x) { return std::sqrt(x); }},
    {"Tan", [](double x) { return std::tan(x); }},
    {"Tanh", [](double x) { return std::tanh(x); }},
    {"Sigmoid", sigmoid},
    {"Softplus", softplus},
    {"Softsign", [](double x) { return x / (1 + std::fabs(x)); }},
};

Tensor apply_float(const Tensor& x, const Node& node, MathFn fn) {
  return dispatch_float(x.dtype(), node.label(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_unary<T, T>(x, x.dtype(), [&](T v) { return T(fn(static_cast<double>(widen(v)))); });
  });
}

// Abs, Neg and Sign also take integers and must stay exact for them.
template <class Op>
void register_numeric(OpRegistry& r, const char* name, Op op) {
  r.add(OpDef(name).inputs(1).outputs(1).trait(kTraitElementwise | kTraitUnary | kTraitHalfCompute)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([op](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              ctx.set_output(0, dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                return map_unary<T, T>(x, x.dtype(), [&](T v) { return T(op(widen(v))); });
              }));
            }));
}

void infer_bool_same_shape(InferContext& ctx) {
  TypeInfo t = ctx.input_type(0);
  t.dtype = DType::Bool;
  ctx.set_output_type(0, t);
}

// Float predicate ops (IsNaN, IsInf) producing bool.
template <class Pred>
Tensor float_predicate(const Tensor& x, const Node& node, Pred pred) {
  return dispatch_float(x.dtype(), node.label(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_unary<T, bool>(x, DType::Bool, [&](T v) { return pred(static_cast<double>(widen(v))); });
  });
}

}  // namespace

void register_op_unary_math(OpRegistry& r) {
  for (const FloatFn& f : kFloatFns) {
    MathFn fn = f.fn;
    r.add(OpDef(f.name).inputs(1).outputs(1).trait(kTraitElementwise | kTraitUnary | kTraitHalfCompute)
              .infer_fn(infer_same_as_input0)
              .kernel_fn([fn](KernelContext& ctx) { ctx.set_output(0, apply_float(ctx.input(0), ctx.node(), fn)); }));
  }

  register_numeric(r, "Abs", [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_unsigned_v<C>) return v;
    else if constexpr (std::is_integral_v<C>) return v < 0 ? C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(v)) : v;
    else return std::fabs(v);
  });
  register_numeric(r, "Neg", [](auto v) {
    using C = decltype(v);
    // Unsigned arithmetic makes -INT_MIN wrap instead of being undefined.
    if constexpr (std::is_integral_v<C>) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(v));
    else return -v;
  });
  register_numeric(r, "Sign", [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_unsigned_v<C>) return C(v > 0 ? 1 : 0);
    else if constexpr (std::is_integral_v<C>) return C(v > 0 ? 1 : v < 0 ? -1 : 0);
    else return std::isnan(v) ? v : C(v > 0 ? 1 : v < 0 ? -1 : 0);
  });

  r.add(OpDef("Not").inputs(1).outputs(1).trait(kTraitElementwise | kTraitUnary).infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.dtype() != DType::Bool)
                fail_unsupported("{}: dtype {} is not supported (bool only)", ctx.node().label(), dtype_name(x.dtype()));
              ctx.set_output(0, map_unary<bool, bool>(x, DType::Bool, [](bool v) { return !v; }));
            }));

  r.add(OpDef("IsNaN").inputs(1).outputs(1).trait(kTraitElementwise | kTraitUnary).infer_fn(infer_bool_same_shape)
            .kernel_fn([](KernelContext& ctx) {
              ctx.set_output(0, float_predicate(ctx.input(0), ctx.node(), [](double v) { return std::isnan(v); }));
            }));

  r.add(OpDef("IsInf").inputs(1).outputs(1).attr_int("detect_negative", 1).attr_int("detect_positive", 1)
            .trait(kTraitElementwise | kTraitUnary).infer_fn(infer_bool_same_shape)
            .kernel_fn([](KernelContext& ctx) {
              const bool neg = ctx.attr_int("detect_negative") != 0, pos = ctx.attr_int("detect_positive") != 0;
              ctx.set_output(0, float_predicate(ctx.input(0), ctx.node(), [&](double v) {
                return std::isinf(v) && (v > 0 ? pos : neg);
              }));
            }));
}

}  // namespace ms
