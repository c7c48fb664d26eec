// Half-precision lowering (passes/lower_half_precision.cc): the lowered graph computes in float32
// on the fast kernels, keeps the model's interface types, and agrees with the half-precision
// original as the reference kernels compute it (in float16) to float16 precision.
#include <gtest/gtest.h>

#include "passes/basic_passes.h"
#include "passes_test_util.h"
#include "runtime/session.h"

#include <random>

namespace ms::test {
namespace {

Tensor to_half(const Tensor& t, DType half) {
  Tensor h(half, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = t.data<float>()[i];
    if (half == DType::Float16) h.data<float16_t>()[i] = float16_t(v);
    else h.data<bfloat16_t>()[i] = bfloat16_t(v);
  }
  return h;
}

// x (half) -> Conv(half weights) -> Relu -> [yh: half output] -> Cast(float32) -> y32;
// plus a half Constant added in, and a Cast(to = half) of a float32 input in the middle.
Model half_model(DType half) {
  TestGraph g;
  g.input("x", {1, 3, 8, 8}, half).input("s", {1}, DType::Float32);
  g.weight("w", {4, 3, 3, 3}).weight("b", {4});
  g.m.graph.initializers["w"] = to_half(g.m.graph.initializers["w"], half);
  g.m.graph.initializers["b"] = to_half(g.m.graph.initializers["b"], half);
  Tensor c = to_half(Tensor::from_vector<float>({0.25f}, {1}), half);
  g.node("Constant", {}, {"c"}, {{"value", Attribute::of_tensor(c)}});
  g.node("Conv", {"x", "w", "b"}, {"t"}, {{"pads", ints_attr({1, 1, 1, 1})}});
  g.node("Cast", {"s"}, {"sh"}, {{"to", Attribute::of_int(static_cast<int64_t>(half))}});
  g.node("Mul", {"t", "sh"}, {"ts"});
  g.node("Add", {"ts", "c"}, {"tc"});
  g.node("Relu", {"tc"}, {"yh"});
  g.node("Cast", {"yh"}, {"y32"}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Float32))}});
  g.output("yh").output("y32");
  g.m.graph.outputs[0].type = TypeInfo::tensor_unknown_shape(half);
  g.m.graph.outputs[1].type = TypeInfo::tensor_unknown_shape(DType::Float32);
  return g.m;
}

bool holds_half(const Model& m) {
  auto half = [](DType t) { return t == DType::Float16 || t == DType::BFloat16; };
  for (const auto& [k, t] : m.graph.initializers)
    if (half(t.dtype())) return true;
  for (const auto& n : m.graph.nodes) {
    const bool boundary = n.name.find("_to_float16") != std::string::npos || n.name.find("_to_bfloat16") != std::string::npos;
    for (const auto& [k, a] : n.attrs)
      if ((a.type == AttrType::Tensor && half(a.t.dtype())) || (!boundary && k == "to" && half(static_cast<DType>(a.i))))
        return true;
  }
  return false;
}

TEST(LowerHalfPrecision, ComputesInFloat32AndKeepsTheInterface) {
  for (DType half : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(dtype_name(half));
    const Model original = half_model(half);
    Model lowered = original;
    EXPECT_GT(passes::lower_half_precision(lowered), 0u);
    EXPECT_FALSE(holds_half(lowered));
    ASSERT_EQ(lowered.graph.inputs.size(), 2u);
    EXPECT_EQ(lowered.graph.inputs[0].type.dtype, half);
    EXPECT_EQ(lowered.graph.outputs[0].type.dtype, half);
    EXPECT_EQ(lowered.graph.outputs[1].type.dtype, DType::Float32);

    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Tensor xf(DType::Float32, {1, 3, 8, 8});
    for (int64_t k = 0; k < xf.numel(); ++k) xf.data<float>()[k] = u(rng);
    const std::vector<Value> feeds{Value(to_half(xf, half)), Value(Tensor::from_vector<float>({1.5f}, {1}))};
    SessionOptions reference;
    reference.reference_kernels = true;
    const auto want = Session(std::make_shared<const Model>(original), reference).run(feeds);
    Session fast(std::make_shared<const Model>(lowered));
    RunProfile prof;
    const auto got = fast.run(feeds, &prof);
    for (const auto& r : prof.nodes)
      if (fast.model().graph.nodes[r.node_index].op_type == "Conv") EXPECT_NE(r.kernel, kReferenceKernel);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].tensor.dtype(), half);
    EXPECT_EQ(got[1].tensor.dtype(), DType::Float32);
    // The half-precision original rounds after every op; the lowered graph once, at the output.
    const double tol = half == DType::Float16 ? 2e-2 : 1e-1;
    for (size_t o = 0; o < 2; ++o) {
      const auto g = got[o].tensor.to_double_vector(), w = want[o].tensor.to_double_vector();
      ASSERT_EQ(g.size(), w.size());
      for (size_t k = 0; k < g.size(); ++k) ASSERT_NEAR(g[k], w[k], tol * (1 + std::abs(w[k]))) << "output " << o << " at " << k;
    }
  }
}

}  // namespace
}  // namespace ms::test
