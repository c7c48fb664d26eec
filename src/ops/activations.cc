// Activations, elementwise:
//   Celu y = max(0,x) + min(0, alpha*(exp(x/alpha)-1));  Elu y = x >= 0 ? x : alpha*(exp(x)-1)
//   Selu y = gamma * (x > 0 ? x : alpha*(exp(x)-1));     LeakyRelu y = x >= 0 ? x : alpha*x
//   HardSigmoid y = clamp(alpha*x + beta, 0, 1);          HardSwish y = x * clamp(x/6 + 1/2, 0, 1)
//   ThresholdedRelu y = x > alpha ? x : 0;  Shrink y = x < -lambd ? x+bias : x > lambd ? x-bias : 0
//   Mish y = x * tanh(softplus(x));  Gelu y = x * Phi(x), or with approximate="tanh"
//   0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
#include <algorithm>
#include <cmath>

#include "ops/numpy_util.h"

namespace ms {
namespace {

struct FloatAttr {
  const char* name;
  float def;
};

struct Activation {
  const char* name;
  std::vector<FloatAttr> attrs;             // read in order into p[0], p[1], ...
  double (*fn)(double x, const double* p);
  bool integers;                            // Shrink accepts integer tensors too
};

const Activation kActivations[] = {
    {"Celu", {{"alpha", 1.0f}},
     [](double x, const double* p) { return std::max(0.0, x) + std::min(0.0, p[0] * (std::exp(x / p[0]) - 1)); }, false},
    {"Elu", {{"alpha", 1.0f}}, [](double x, const double* p) { return x >= 0 ? x : p[0] * (std::exp(x) - 1); }, false},
    {"Selu", {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}},
     [](double x, const double* p) { return p[1] * (x > 0 ? x : p[0] * (std::exp(x) - 1)); }, false},
    {"LeakyRelu", {{"alpha", 0.01f}}, [](double x, const double* p) { return x >= 0 ? x : p[0] * x; }, false},
    {"HardSigmoid", {{"alpha", 0.2f}, {"beta", 0.5f}},
     [](double x, const double* p) { return std::clamp(p[0] * x + p[1], 0.0, 1.0); }, false},
    {"HardSwish", {}, [](double x, const double*) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }, false},
    {"ThresholdedRelu", {{"alpha", 1.0f}}, [](double x, const double* p) { return x > p[0] ? x : 0.0; }, false},
    {"Shrink", {{"bias", 0.0f}, {"lambd", 0.5f}},
     [](double x, const double* p) { return x < -p[1] ? x + p[0] : x > p[1] ? x - p[0] : 0.0; }, true},
    {"Mish", {},
     [](double x, const double*) {
       const double softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
       return x * std::tanh(softplus);
     },
     false},
};

template <class Fn>
Tensor apply(const Tensor& x, const Node& node, bool integers, Fn fn) {
  auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_unary<T, T>(x, x.dtype(), [&](T v) { return convert_value<T>(fn(static_cast<double>(widen(v)))); });
  };
  return integers ? dispatch_all_numeric(x.dtype(), node.label(), body) : dispatch_float(x.dtype(), node.label(), body);
}

}  // namespace

void register_op_activations(OpRegistry& r) {
  for (const Activation& a : kActivations) {
    OpDef def(a.name);
    def.inputs(1).outputs(1).trait(kTraitElementwise | kTraitUnary | kTraitHalfCompute).infer_fn(infer_same_as_input0);
    for (const FloatAttr& at : a.attrs) def.attr_float(at.name, at.def);
    const Activation* act = &a;
    def.kernel_fn([act](KernelContext& ctx) {
      double p[4] = {0, 0, 0, 0};
      for (size_t i = 0; i < act->attrs.size(); ++i) p[i] = ctx.attr_float(act->attrs[i].name);
      ctx.set_output(0, apply(ctx.input(0), ctx.node(), act->integers, [&](double x) { return act->fn(x, p); }));
    });
    r.add(std::move(def));
  }

  r.add(OpDef("Gelu").trait(kTraitHalfCompute).inputs(1).outputs(1).attr_string("approximate", "none")
            .trait(kTraitElementwise | kTraitUnary).infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const std::string& mode = ctx.attr_string("approximate");
              if (mode != "none" && mode != "tanh")
                fail("{}: approximate must be \"none\" or \"tanh\", got \"{}\"", ctx.node().label(), mode);
              const bool tanh_form = mode == "tanh";
              const double sqrt2 = std::sqrt(2.0), sqrt2_over_pi = std::sqrt(2.0 / M_PI);
              ctx.set_output(0, apply(ctx.input(0), ctx.node(), false, [&](double x) {
                if (tanh_form) return 0.5 * x * (1 + std::tanh(sqrt2_over_pi * (x + 0.044715 * x * x * x)));
                return 0.5 * x * (1 + std::erf(x / sqrt2));
              }));
            }));
}

}  // namespace ms
