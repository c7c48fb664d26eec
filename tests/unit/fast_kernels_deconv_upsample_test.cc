// The GEMM + scatter ConvTranspose (kernel == stride, runtime/kernels/deconv_upsample.cc) against
// the reference kernel: square and non-square kernels, odd sizes, batch 2, with and without bias;
// and the shapes it must leave to oneDNN's deconvolution (overlap, padding, groups).
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

// Runs ConvTranspose(x, w[, b]) on both paths, compares, and returns the fast kernel's name.
std::string check_deconv(const Shape& x, const Shape& w, std::map<std::string, Attribute> attrs, bool bias) {
  ModelSpec s;
  Node n = make_node("ConvTranspose", {"x", "w"}, {"y"}, "ct");
  n.attrs = std::move(attrs);
  const int64_t group = n.attrs.count("group") ? n.attrs.at("group").i : 1;
  if (bias) {
    n.inputs.push_back("b");
    s.weights["b"] = random_tensor({w[1] * group}, 3);
  }
  s.nodes = {n};
  s.weights["w"] = random_tensor(w, 2);
  s.inputs = {{"x", random_tensor(x, 1)}};
  s.outputs = {"y"};
  check_against_reference(s, {"ConvTranspose"}, 1e-4, 1e-5, 2);
  auto model = build_model(s);
  SessionOptions o;
  o.num_threads = 1;
  RunProfile prof;
  Session(model, o).run({Value(s.inputs[0].second)}, &prof);
  return prof.nodes.at(0).kernel;
}

TEST(FastDeconvUpsample, KernelEqualsStride) {
  EXPECT_EQ(check_deconv({1, 24, 7, 9}, {24, 5, 2, 2}, {{"strides", ints({2, 2})}}, true), "gemm_upsample_deconv");
  EXPECT_EQ(check_deconv({2, 3, 5, 4}, {3, 1, 3, 2}, {{"strides", ints({3, 2})}, {"kernel_shape", ints({3, 2})}}, false),
            "gemm_upsample_deconv");
  EXPECT_EQ(check_deconv({1, 17, 1, 33}, {17, 16, 4, 4}, {{"strides", ints({4, 4})}, {"pads", ints({0, 0, 0, 0})}}, true),
            "gemm_upsample_deconv");
}

TEST(FastDeconvUpsample, OtherGeometriesStayOnOnednn) {
  EXPECT_NE(check_deconv({1, 8, 6, 6}, {8, 4, 3, 3}, {{"strides", ints({2, 2})}}, true), "gemm_upsample_deconv");
  EXPECT_NE(check_deconv({1, 8, 6, 6}, {8, 4, 2, 2}, {{"strides", ints({2, 2})}, {"pads", ints({1, 1, 0, 0})}}, true),
            "gemm_upsample_deconv");
  EXPECT_NE(check_deconv({1, 8, 6, 6}, {8, 2, 2, 2}, {{"strides", ints({2, 2})}, {"group", Attribute::of_int(2)}}, false),
            "gemm_upsample_deconv");
}

}  // namespace
}  // namespace ms::test
