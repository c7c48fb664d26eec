// Fast elementwise, activation, softmax and layer-norm kernels against the reference kernels.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

void check_binary(const std::string& op, const Shape& a, const Shape& b, bool b_constant = false) {
  ModelSpec s;
  s.nodes = {make_node(op, {"a", "b"}, {"y"})};
  s.inputs = {{"a", random_tensor(a, 1)}};
  // Divisors away from zero so the relative comparison means something.
  Tensor bt = op == "Div" ? random_tensor(b, 2, 0.5f, 2.f) : random_tensor(b, 2);
  if (b_constant) s.weights["b"] = bt;
  else s.inputs.push_back({"b", bt});
  s.outputs = {"y"};
  SCOPED_TRACE(op + " " + shape_str(a) + " " + shape_str(b));
  check_against_reference(s, {op}, 1e-6, 1e-7);
}

TEST(FastBinary, SameShapesAndOddSizes) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    check_binary(op, {7}, {7});
    check_binary(op, {2, 3, 17, 19}, {2, 3, 17, 19});
    check_binary(op, {1, 100003}, {1, 100003});  // large enough to be split between threads
  }
}

TEST(FastBinary, Broadcasting) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    check_binary(op, {1, 24, 13, 11}, {1, 24, 1, 1}, true);  // per-channel
    check_binary(op, {1, 24, 1, 1}, {1, 24, 13, 11});        // per-channel on the left
    check_binary(op, {3, 128, 33}, {33});                     // row bias
    check_binary(op, {5, 4, 3}, {});                          // scalar
    check_binary(op, {}, {5, 4, 3});
    check_binary(op, {4, 1, 6}, {1, 5, 1});                   // both sides broadcast
    check_binary(op, {2, 1, 7, 1, 5}, {3, 7, 4, 5});
    check_binary(op, {64, 1}, {1, 70000});
  }
}

void check_unary(const std::string& op, std::map<std::string, Attribute> attrs = {}, float lo = -6, float hi = 6,
                 std::vector<Tensor> extra = {}) {
  ModelSpec s;
  Node n = make_node(op, {"x"}, {"y"});
  n.attrs = std::move(attrs);
  for (size_t i = 0; i < extra.size(); ++i) {
    const std::string name = "c" + std::to_string(i);
    n.inputs.push_back(name);
    s.weights[name] = extra[i];
  }
  s.nodes = {n};
  s.inputs = {{"x", random_tensor({3, 5, 4099}, 3, lo, hi)}};
  s.outputs = {"y"};
  SCOPED_TRACE(op);
  check_against_reference(s, {op}, 1e-5, 1e-6);
}

TEST(FastUnary, Activations) {
  check_unary("Relu");
  check_unary("LeakyRelu", {{"alpha", Attribute::of_float(0.2f)}});
  check_unary("Sigmoid", {}, -30, 30);
  check_unary("Tanh", {}, -10, 10);
  check_unary("Tanh", {}, -0.2f, 0.2f);  // near zero, where the series takes over
  check_unary("HardSigmoid", {{"alpha", Attribute::of_float(0.3f)}, {"beta", Attribute::of_float(0.4f)}});
  check_unary("HardSwish");
  check_unary("Exp", {}, -80, 80);
  check_unary("Neg");
  check_unary("Sqrt", {}, 0, 100);
  check_unary("Log", {}, 1e-6f, 1000);
  check_unary("Clip", {}, -10, 10, {Tensor::scalar<float>(0.f), Tensor::scalar<float>(6.f)});
  check_unary("Clip", {}, -10, 10, {Tensor::scalar<float>(-1.5f)});
}

TEST(FastSoftmax, LastAxisAndLegacyCoercion) {
  for (int opset : {11, 17}) {
    for (int64_t axis : {-1, 1}) {
      if (opset >= 13 && axis == 1) continue;  // an inner axis: stays on the reference
      ModelSpec s;
      Node n = make_node("Softmax", {"x"}, {"y"});
      n.attrs["axis"] = Attribute::of_int(axis);
      s.nodes = {n};
      s.opset = opset;
      s.inputs = {{"x", random_tensor({4, 3, 37}, 4, -20, 20)}};
      s.outputs = {"y"};
      SCOPED_TRACE("opset " + std::to_string(opset) + " axis " + std::to_string(axis));
      check_against_reference(s, {"Softmax"}, 1e-5, 1e-7);
    }
  }
}

TEST(FastLayerNorm, TrailingAxes) {
  for (int64_t axis : {-1, -2}) {
    for (bool with_bias : {true, false}) {
      ModelSpec s;
      Node n = make_node("LayerNormalization", {"x", "g"}, {"y"});
      if (with_bias) n.inputs.push_back("b");
      n.attrs["axis"] = Attribute::of_int(axis);
      n.attrs["epsilon"] = Attribute::of_float(1e-3f);
      s.nodes = {n};
      const Shape norm = axis == -1 ? Shape{257} : Shape{5, 257};
      s.weights["g"] = random_tensor(norm, 5);
      if (with_bias) s.weights["b"] = random_tensor(norm, 6);
      s.inputs = {{"x", random_tensor({2, 5, 257}, 7, -3, 5)}};
      s.outputs = {"y"};
      SCOPED_TRACE("axis " + std::to_string(axis));
      check_against_reference(s, {"LayerNormalization"}, 1e-4, 1e-5);
    }
  }
}

TEST(FastBatchNorm, Inference) {
  ModelSpec s;
  Node n = make_node("BatchNormalization", {"x", "scale", "b", "mean", "var"}, {"y"});
  n.attrs["epsilon"] = Attribute::of_float(1e-3f);
  s.nodes = {n};
  s.weights = {{"scale", random_tensor({19}, 61)}, {"b", random_tensor({19}, 62)}, {"mean", random_tensor({19}, 63)},
               {"var", random_tensor({19}, 64, 0.1f, 2.f)}};
  s.inputs = {{"x", random_tensor({2, 19, 7, 9}, 65)}};
  s.outputs = {"y"};
  check_against_reference(s, {"BatchNormalization"}, 1e-5, 1e-6);
}

// Nearest asymmetric/floor Resize from scales (integer and fractional) and from sizes.
TEST(FastResize, NearestAsymmetricFloor) {
  for (int variant = 0; variant < 3; ++variant) {
    ModelSpec s;
    Node n = make_node("Resize", {"x", "", variant < 2 ? "scales" : "", variant == 2 ? "sizes" : ""}, {"y"});
    n.attrs["mode"] = Attribute::of_string("nearest");
    n.attrs["coordinate_transformation_mode"] = Attribute::of_string("asymmetric");
    n.attrs["nearest_mode"] = Attribute::of_string("floor");
    s.nodes = {n};
    if (variant == 0) s.weights["scales"] = Tensor::from_vector<float>({1, 1, 2, 2}, {4});
    if (variant == 1) s.weights["scales"] = Tensor::from_vector<float>({1, 1, 1.5f, 0.6f}, {4});
    if (variant == 2) s.weights["sizes"] = Tensor::from_vector<int64_t>({2, 3, 17, 4}, {4});
    s.inputs = {{"x", random_tensor({2, 3, 7, 9}, 66)}};
    s.outputs = {"y"};
    SCOPED_TRACE(variant);
    check_against_reference(s, {"Resize"}, 0, 0);
  }
}

// The separable kernel: every mode and coordinate transformation a segmentation or detection
// export writes, up and down, from scales and from sizes; the weights are the reference's own
// taps, the sums are float32 against the reference's double.
TEST(FastResize, SeparableModesAndCoordinates) {
  struct Case {
    const char* mode;
    const char* coord;
    bool antialias;
  };
  const Case cases[] = {{"linear", "half_pixel", false},      {"linear", "align_corners", false},
                        {"linear", "pytorch_half_pixel", false}, {"linear", "asymmetric", false},
                        {"cubic", "half_pixel", false},       {"cubic", "align_corners", false},
                        {"nearest", "half_pixel", false},     {"nearest", "tf_half_pixel_for_nn", false},
                        {"linear", "half_pixel", true},       {"cubic", "pytorch_half_pixel", true}};
  for (const Case& c : cases)
    for (int variant = 0; variant < 3; ++variant) {
      ModelSpec s;
      s.opset = 18;  // antialias
      Node n = make_node("Resize", {"x", "", variant < 2 ? "scales" : "", variant == 2 ? "sizes" : ""}, {"y"});
      n.attrs["mode"] = Attribute::of_string(c.mode);
      n.attrs["coordinate_transformation_mode"] = Attribute::of_string(c.coord);
      if (c.antialias) n.attrs["antialias"] = Attribute::of_int(1);
      s.nodes = {n};
      if (variant == 0) s.weights["scales"] = Tensor::from_vector<float>({1, 1, 2, 4}, {4});
      if (variant == 1) s.weights["scales"] = Tensor::from_vector<float>({1, 1, 0.5f, 1.7f}, {4});
      if (variant == 2) s.weights["sizes"] = Tensor::from_vector<int64_t>({2, 3, 5, 31}, {4});
      s.inputs = {{"x", random_tensor({2, 3, 11, 9}, 67)}};
      s.outputs = {"y"};
      SCOPED_TRACE(std::string(c.mode) + " " + c.coord + (c.antialias ? " antialias" : "") + " variant " +
                   std::to_string(variant));
      check_against_reference(s, {"Resize"}, 1e-5, 1e-6);
    }
}

// A resize of an outer axis is not the separable kernel's form: the reference runs it, correctly.
TEST(FastResize, OuterAxisResizeStaysCorrect) {
  ModelSpec s;
  Node n = make_node("Resize", {"x", "", "scales"}, {"y"});
  n.attrs["mode"] = Attribute::of_string("linear");
  s.nodes = {n};
  s.weights["scales"] = Tensor::from_vector<float>({1, 2, 2, 2}, {4});
  s.inputs = {{"x", random_tensor({1, 3, 4, 5}, 68)}};
  s.outputs = {"y"};
  check_against_reference(s, {}, 1e-6, 1e-7);
}

// Cast to its own type shares the input; float32 <-> float16/bfloat16 convert as the reference.
TEST(FastCast, SameTypeAndHalfConversions) {
  for (DType to : {DType::Float32, DType::Float16, DType::BFloat16}) {
    ModelSpec s;
    Node n = make_node("Cast", {"x"}, {"h"});
    n.attrs["to"] = Attribute::of_int(static_cast<int64_t>(to));
    Node back = make_node("Cast", {"h"}, {"y"});
    back.attrs["to"] = Attribute::of_int(static_cast<int64_t>(DType::Float32));
    s.nodes = {n, back};
    s.inputs = {{"x", random_tensor({3, 1000}, 69, -60000.f, 60000.f)}};
    s.outputs = {"y"};
    SCOPED_TRACE(dtype_name(to));
    check_against_reference(s, {"Cast"}, 0, 0);
  }
}

// Pow by a constant 2, 0.5 or 1 on the vector loops (exactly the reference's values: x*x, sqrt
// and x are correctly rounded in both); other exponents stay on the reference, still correct.
TEST(FastPow, ConstantExponents) {
  for (float e : {2.f, 0.5f, 1.f, 3.f}) {
    ModelSpec s;
    s.nodes = {make_node("Pow", {"x", "e"}, {"y"})};
    s.weights["e"] = Tensor::scalar<float>(e);
    s.inputs = {{"x", random_tensor({3, 33, 7}, 70, 0.f, 4.f)}};
    s.outputs = {"y"};
    SCOPED_TRACE(e);
    if (e == 3.f) check_against_reference(s, {}, 1e-6, 0);
    else check_against_reference(s, {"Pow"}, 0, 0);
  }
}

// Reductions over consecutive axes (last, all, middle), keepdims both ways, axes as attribute
// (opset 13) and as input (opset 18), NaN propagation in Max/Min: bit-equal to the reference.
TEST(FastReduce, ConsecutiveAxes) {
  const std::vector<std::vector<int64_t>> axes_list = {{-1}, {2, 3}, {}, {1, 2}, {0}, {1}};
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"})
    for (const auto& axes : axes_list)
      for (int keep = 0; keep < 2; ++keep)
        for (int opset : {13, 18}) {
          ModelSpec s;
          s.opset = opset;
          const bool sum_axes_input = opset >= 13 && std::string(op) == "ReduceSum";
          const bool axes_input = opset >= 18 || sum_axes_input;
          Node n = make_node(op, {"x"}, {"y"});
          if (axes_input && !axes.empty()) {
            n.inputs.push_back("axes");
            s.weights["axes"] = Tensor::from_vector<int64_t>(axes, {static_cast<int64_t>(axes.size())});
          } else if (!axes.empty()) {
            n.attrs["axes"] = ints(axes);
          }
          n.attrs["keepdims"] = Attribute::of_int(keep);
          s.nodes = {n};
          Tensor x = random_tensor({2, 5, 7, 9}, 71, -3.f, 3.f);
          x.data<float>()[17] = std::nanf("");
          s.inputs = {{"x", x}};
          s.outputs = {"y"};
          SCOPED_TRACE(std::string(op) + " keepdims " + std::to_string(keep) + " opset " + std::to_string(opset) +
                       " axes " + std::to_string(axes.size()));
          // NaN == NaN counts as equal in expect_close only through both being NaN: compare the
          // finite elements exactly and the NaN positions by the reference run itself.
          auto model = build_model(s);
          SessionOptions ref_opts;
          ref_opts.reference_kernels = true;
          const auto want = Session(model, ref_opts).run({Value(x)})[0].tensor.to_double_vector();
          Session fast(model);
          RunProfile prof;
          const auto got = fast.run({Value(x)}, &prof)[0].tensor.to_double_vector();
          EXPECT_NE(prof.nodes[0].kernel, kReferenceKernel);
          ASSERT_EQ(got.size(), want.size());
          for (size_t k = 0; k < got.size(); ++k) {
            if (std::isnan(want[k])) EXPECT_TRUE(std::isnan(got[k])) << k;
            else EXPECT_EQ(got[k], want[k]) << k;
          }
        }
}

// Max/Min: NaN from either side wins, as in the reference (numpy.maximum); equal values keep the
// first operand (visible as the sign of zero).
TEST(FastBinary, MaxMinNanAndSignedZero) {
  for (const char* op : {"Max", "Min"}) {
    ModelSpec s;
    s.nodes = {make_node(op, {"a", "b"}, {"y"})};
    Tensor a = Tensor::from_vector<float>({std::nanf(""), 1.f, -0.f, 2.f, 0.f}, {5});
    Tensor b = Tensor::from_vector<float>({1.f, std::nanf(""), 0.f, -3.f, -0.f}, {5});
    s.inputs = {{"a", a}, {"b", b}};
    s.outputs = {"y"};
    auto model = build_model(s);
    SessionOptions ref_opts;
    ref_opts.reference_kernels = true;
    const std::vector<Value> feeds{Value(a), Value(b)};
    const Tensor want = Session(model, ref_opts).run(feeds)[0].tensor;
    Session fast(model);
    RunProfile prof;
    const Tensor got = fast.run(feeds, &prof)[0].tensor;
    EXPECT_NE(prof.nodes[0].kernel, kReferenceKernel) << op;
    for (int k = 0; k < 5; ++k) {
      const float g = got.data<float>()[k], w = want.data<float>()[k];
      if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)) << op << " " << k;
      else EXPECT_EQ(std::signbit(g), std::signbit(w)) << op << " " << k;
      if (!std::isnan(w)) EXPECT_EQ(g, w) << op << " " << k;
    }
  }
}

}  // namespace
}  // namespace ms::test
