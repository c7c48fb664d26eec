// Resize, TopK and OneHot are written with MindSpore's own primitives and attribute names, and a
// file in those forms computes what MindSpore computes: the expected values here follow the
// TensorFlow-style rules MindSpore documents for ResizeBilinearV2 / ResizeNearestNeighborV2, and a
// plain sort for TopK, all written independently of the kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "mind_ir.pb.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms {
namespace {

std::vector<Value> run_reference(const Model& m, const std::vector<Value>& feeds) {
  SessionOptions o;
  o.reference_kernels = true;
  Session s(std::make_shared<const Model>(m), o);
  return s.run(feeds);
}

std::set<std::string> primitive_types(const std::string& bytes, std::map<std::string, std::set<std::string>>* attrs = nullptr) {
  mind_ir::ModelProto p;
  EXPECT_TRUE(p.ParseFromString(bytes));
  std::set<std::string> r;
  for (const auto& pr : p.primitives()) {
    r.insert(pr.op_type());
    if (attrs)
      for (const auto& a : pr.attribute()) (*attrs)[pr.op_type()].insert(a.name());
  }
  return r;
}

struct ResizeCase {
  std::string mode, ctm, nearest;
  bool align, half;  // the MindSpore flags it must become
};

// MindSpore's (TensorFlow's) source coordinate of output index `o`.
double source_coord(int64_t o, int64_t in, int64_t out, bool align, bool half) {
  if (align) return out > 1 ? static_cast<double>(o) * (in - 1) / (out - 1) : 0.0;
  double scale = static_cast<double>(in) / out;
  return half ? (o + 0.5) * scale - 0.5 : o * scale;
}

std::vector<float> expected_resize(const std::vector<float>& x, int64_t H, int64_t W, int64_t oh, int64_t ow, bool bilinear,
                                   bool align, bool half) {
  std::vector<float> y;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      if (!bilinear) {
        auto near = [&](int64_t o, int64_t in, int64_t out) {
          double s = align ? std::round(source_coord(o, in, out, true, false))
                           : std::floor(half ? (o + 0.5) * in / out : static_cast<double>(o) * in / out);
          return std::min<int64_t>(static_cast<int64_t>(s), in - 1);
        };
        y.push_back(x[near(i, H, oh) * W + near(j, W, ow)]);
        continue;
      }
      double sy = source_coord(i, H, oh, align, half), sx = source_coord(j, W, ow, align, half);
      auto lo = [](double s) { return std::max<int64_t>(static_cast<int64_t>(std::floor(s)), 0); };
      auto hi = [](double s, int64_t n) { return std::min<int64_t>(static_cast<int64_t>(std::ceil(s)), n - 1); };
      double fy = sy - std::floor(sy), fx = sx - std::floor(sx);
      int64_t y0 = lo(sy), y1 = hi(sy, H), x0 = lo(sx), x1 = hi(sx, W);
      double top = x[y0 * W + x0] + (x[y0 * W + x1] - x[y0 * W + x0]) * fx;
      double bottom = x[y1 * W + x0] + (x[y1 * W + x1] - x[y1 * W + x0]) * fx;
      y.push_back(static_cast<float>(top + (bottom - top) * fy));
    }
  return y;
}

TEST(MindirNativeForms, ResizeBecomesTheV2PrimitivesWithTheirFlags) {
  const std::vector<ResizeCase> cases = {
      {"linear", "align_corners", "", true, false},
      {"linear", "half_pixel", "", false, true},
      {"linear", "pytorch_half_pixel", "", false, true},
      {"linear", "asymmetric", "", false, false},
      {"nearest", "asymmetric", "floor", false, false},
      {"nearest", "tf_half_pixel_for_nn", "floor", false, true},
      {"nearest", "align_corners", "round_prefer_ceil", true, false},
  };
  const int64_t H = 3, W = 4;
  std::vector<float> xs(H * W);
  for (size_t k = 0; k < xs.size(); ++k) xs[k] = static_cast<float>((k * 7) % 11) - 3.f;
  for (const auto& [oh, ow] : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {2, 3}, {6, 8}}) {
    for (const auto& rc : cases) {
      SCOPED_TRACE(rc.mode + "/" + rc.ctm + " to " + std::to_string(oh) + "x" + std::to_string(ow));
      Model m;
      m.opsets[""] = 17;
      m.graph.name = "resize";
      m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 1, H, W})};
      m.graph.initializers["sizes"] = Tensor::from_vector<int64_t>({1, 1, oh, ow}, {4});
      Node n = test::make_node("Resize", {"x", "", "", "sizes"}, {"y"});
      n.attrs["mode"] = Attribute::of_string(rc.mode);
      n.attrs["coordinate_transformation_mode"] = Attribute::of_string(rc.ctm);
      if (!rc.nearest.empty()) n.attrs["nearest_mode"] = Attribute::of_string(rc.nearest);
      m.graph.nodes.push_back(n);
      m.graph.outputs = {{"y", {}}};

      std::string bytes = mindir::export_mindir_bytes(m);
      std::map<std::string, std::set<std::string>> attrs;
      auto prims = primitive_types(bytes, &attrs);
      std::string want = rc.mode == "linear" ? "ResizeBilinearV2" : "ResizeNearestNeighborV2";
      ASSERT_TRUE(prims.count(want));
      EXPECT_EQ(attrs[want], (std::set<std::string>{"align_corners", "half_pixel_centers"}));

      Model back = mindir::import_mindir_bytes(bytes, "resize.mindir");
      Tensor x = Tensor::from_vector<float>(xs, {1, 1, H, W});
      Tensor got = run_reference(back, {Value(x)}).at(0).tensor;
      auto want_y = expected_resize(xs, H, W, oh, ow, rc.mode == "linear", rc.align, rc.half);
      ASSERT_EQ(got.numel(), static_cast<int64_t>(want_y.size()));
      for (size_t k = 0; k < want_y.size(); ++k) EXPECT_NEAR(got.as_double(k), want_y[k], 1e-5) << "element " << k;
    }
  }
}

TEST(MindirNativeForms, ResizeOutsideTheV2RulesKeepsTheGenericForm) {
  Model m;
  m.opsets[""] = 17;
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 1, 3, 4})};
  m.graph.initializers["sizes"] = Tensor::from_vector<int64_t>({1, 1, 5, 7}, {4});
  Node n = test::make_node("Resize", {"x", "", "", "sizes"}, {"y"});
  n.attrs["mode"] = Attribute::of_string("cubic");
  m.graph.nodes.push_back(n);
  m.graph.outputs = {{"y", {}}};
  auto prims = primitive_types(mindir::export_mindir_bytes(m));
  EXPECT_TRUE(prims.count("Resize"));
  EXPECT_FALSE(prims.count("ResizeBilinearV2"));
}

// TopK on axis 0, smallest first: MindSpore's TopK only takes the largest on the last axis.
TEST(MindirNativeForms, TopKSmallestOnAnotherAxis) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "topk";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {5, 3})};
  m.graph.initializers["k"] = Tensor::from_vector<int64_t>({2}, {1});
  Node n = test::make_node("TopK", {"x", "k"}, {"v", "i"});
  n.attrs["axis"] = Attribute::of_int(0);
  n.attrs["largest"] = Attribute::of_int(0);
  m.graph.nodes.push_back(n);
  m.graph.outputs = {{"v", {}}, {"i", {}}};
  std::string bytes = mindir::export_mindir_bytes(m);
  std::map<std::string, std::set<std::string>> attrs;
  ASSERT_TRUE(primitive_types(bytes, &attrs).count("TopK"));
  EXPECT_EQ(attrs["TopK"], std::set<std::string>{"sorted"});

  std::vector<float> xs = {4, -1, 7, 0, 3, 7, -2, 5, 1, 9, 3, 2, 4, 8, -6};
  auto outs = run_reference(mindir::import_mindir_bytes(bytes, "topk.mindir"), {Value(Tensor::from_vector<float>(xs, {5, 3}))});
  for (int64_t col = 0; col < 3; ++col) {
    std::vector<int64_t> order(5);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return xs[a * 3 + col] < xs[b * 3 + col]; });
    for (int64_t r = 0; r < 2; ++r) {
      EXPECT_EQ(outs[0].tensor.as_double(r * 3 + col), xs[order[r] * 3 + col]);
      EXPECT_EQ(outs[1].tensor.data<int64_t>()[r * 3 + col], order[r]);
    }
  }
}

// A forward LSTM with constant weights becomes MindSpore's LSTM with its flat weight (gates i, f,
// g, o); the file runs to what the ONNX LSTM computes.
TEST(MindirNativeForms, LstmWithConstantWeightsUsesTheMindSporePrimitive) {
  const int64_t T = 4, B = 2, I = 3, H = 5;
  auto fill = [](Shape s, float scale, int seed) {
    Tensor t(DType::Float32, s);
    for (int64_t k = 0; k < t.numel(); ++k) t.data<float>()[k] = scale * std::sin(0.7f * static_cast<float>(k + seed));
    return t;
  };
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "lstm";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {T, B, I})};
  m.graph.initializers["W"] = fill({1, 4 * H, I}, 0.4f, 1);
  m.graph.initializers["R"] = fill({1, 4 * H, H}, 0.3f, 2);
  m.graph.initializers["B"] = fill({1, 8 * H}, 0.2f, 3);
  Node n = test::make_node("LSTM", {"x", "W", "R", "B"}, {"y", "y_h", "y_c"});
  n.attrs["hidden_size"] = Attribute::of_int(H);
  m.graph.nodes.push_back(n);
  m.graph.outputs = {{"y", {}}, {"y_h", {}}, {"y_c", {}}};

  std::string bytes = mindir::export_mindir_bytes(m);
  std::map<std::string, std::set<std::string>> attrs;
  ASSERT_TRUE(primitive_types(bytes, &attrs).count("LSTM"));
  EXPECT_EQ(attrs["LSTM"], (std::set<std::string>{"input_size", "hidden_size", "num_layers", "has_bias", "bidirectional", "dropout"}));

  Tensor x = fill({T, B, I}, 1.f, 4);
  auto want = run_reference(m, {Value(x)});
  auto got = run_reference(mindir::import_mindir_bytes(bytes, "lstm.mindir"), {Value(x)});
  ASSERT_EQ(got.size(), 3u);
  for (size_t o = 0; o < 3; ++o) {
    ASSERT_EQ(got[o].tensor.shape(), want[o].tensor.shape()) << o;
    for (int64_t k = 0; k < want[o].tensor.numel(); ++k)
      EXPECT_NEAR(got[o].tensor.as_double(k), want[o].tensor.as_double(k), 1e-6) << "output " << o << " element " << k;
  }
}

}  // namespace
}  // namespace ms
