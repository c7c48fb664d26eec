// Bilinear Resize against ONNX Runtime's own outputs, bit for bit: a dynamically quantized model
// re-quantizes what a Resize produces, so one ulp there becomes a quantization step downstream
// (docs/dynamic-quantization.md). The expected values are onnxruntime-node 1.30 outputs for these
// inputs (sin-based, so that the products and sums round); summing the same taps in double and
// rounding once differs from them in 72 of 126 (half_pixel) and 3 of 35 (align_corners) elements.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

// Resize "linear" to `sizes` with `coord`, on the reference and then on the fast kernels.
void expect_ort_bits(const std::string& coord, const Shape& in, const std::vector<int64_t>& sizes,
                     const std::vector<float>& x, const std::vector<float>& want) {
  ModelSpec s;
  Node n = make_node("Resize", {"x", "", "", "sizes"}, {"y"});
  n.attrs["mode"] = Attribute::of_string("linear");
  n.attrs["coordinate_transformation_mode"] = Attribute::of_string(coord);
  s.nodes = {n};
  s.weights["sizes"] = Tensor::from_vector<int64_t>(sizes, {static_cast<int64_t>(sizes.size())});
  s.inputs = {{"x", Tensor::from_vector<float>(x, in)}};
  s.outputs = {"y"};
  auto model = build_model(s);
  for (bool reference : {true, false}) {
    SessionOptions o;
    o.reference_kernels = reference;
    const Tensor y = Session(model, o).run({Value(s.inputs[0].second)})[0].tensor;
    ASSERT_EQ(y.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(y.data<float>()[i], want[i]) << coord << (reference ? " reference" : " fast") << " at " << i;
  }
  check_against_reference(s, {"Resize"}, 0, 0);
}

TEST(ResizeBilinearOrt, HalfPixelNchwUpsampling) {
  expect_ort_bits("half_pixel", {1, 2, 3, 4}, {1, 2, 7, 9}, {
      20.9787025f, 34.9046402f, 42.6653900f, 42.8901672f, 35.5392685f, 21.9110870f, 4.41275930f,
      -13.8649931f, -29.6937771f, -40.2777634f, -43.7475014f, -39.4901390f, -28.2576485f, -12.0340214f,
      6.31516981f, 23.5489159f, 36.6232262f, 43.2287903f, 42.1988716f, 33.7153854f, 19.2767620f,
      1.43329334f, -16.6633377f, -31.8167305f}, {
      20.9787025f, 23.2996922f, 29.4889984f, 35.3357925f, 38.7850151f, 42.2342377f, 42.7528000f,
      42.8527031f, 42.8901672f, 23.0587845f, 24.7237225f, 29.1635609f, 33.2791061f, 35.1245728f,
      36.9700394f, 36.2602196f, 35.1853561f, 34.7822838f, 29.2990265f, 28.9958153f, 28.1872482f,
      27.1090298f, 24.1432457f, 21.1774635f, 16.7824802f, 12.1833258f, 10.4586411f, 35.5392685f,
      33.2679062f, 27.2109337f, 20.9389572f, 13.1619234f, 5.38488913f, -2.69525456f, -10.8186998f,
      -13.8649931f, 7.58224773f, 5.52832699f, 0.0512018204f, -5.37939548f, -10.4843159f, -15.5892391f,
      -19.5795155f, -23.4105587f, -24.8471985f, -20.3747749f, -22.2112522f, -27.1085300f, -31.6977501f,
      -34.1305542f, -36.5633659f, -36.4637756f, -36.0024185f, -35.8294067f, -29.6937771f, -31.4577751f,
      -36.1617699f, -40.4705276f, -42.0126343f, -43.5547409f, -42.0918617f, -40.1996994f, -39.4901390f,
      -28.2576485f, -25.5537109f, -18.3432083f, -11.0146217f, -2.85942578f, 5.29576969f, 13.0171814f,
      20.6766224f, 23.5489159f, -18.9889488f, -16.5140152f, -9.91418171f, -3.27373385f, 3.65104198f,
      10.5758171f, 16.7146912f, 22.7412930f, 25.0012703f, 8.81714249f, 10.6050758f, 15.3728914f,
      19.9489231f, 23.1824379f, 26.4159565f, 27.8072147f, 28.9352989f, 29.3583279f, 36.6232262f,
      37.7241516f, 40.6599617f, 43.1715736f, 42.7138290f, 42.2560883f, 38.8997383f, 35.1292992f,
      33.7153854f, 29.1890259f, 28.5435963f, 26.8224411f, 24.8528671f, 21.1443214f, 17.4357777f,
      12.5614243f, 7.52052784f, 5.63019133f, 21.7548256f, 19.3630352f, 12.9849224f, 6.53415728f,
      -0.425189018f, -7.38453579f, -13.7768898f, -20.0882454f, -22.4550056f, 19.2767620f, 16.3028526f,
      8.37241936f, 0.427924514f, -7.61502218f, -15.6579695f, -22.5563202f, -29.2911625f, -31.8167305f});
}

TEST(ResizeBilinearOrt, AlignCornersRank2) {
  expect_ort_bits("align_corners", {3, 4}, {5, 7}, {
      20.9787025f, 34.9046402f, 42.6653900f, 42.8901672f, 35.5392685f, 21.9110870f, 4.41275930f,
      -13.8649931f, -29.6937771f, -40.2777634f, -43.7475014f, -39.4901390f}, {
      20.9787025f, 27.9416714f, 34.9046402f, 38.7850151f, 42.6653900f, 42.7777786f, 42.8901672f,
      28.2589855f, 28.3334236f, 28.4078636f, 25.9734688f, 23.5390739f, 19.0258312f, 14.5125875f,
      35.5392685f, 28.7251778f, 21.9110870f, 13.1619234f, 4.41275930f, -4.72611713f, -13.8649931f,
      2.92274570f, -3.13029623f, -9.18333817f, -14.4253540f, -19.6673717f, -23.1724701f, -26.6775665f,
      -29.6937771f, -34.9857712f, -40.2777634f, -42.0126343f, -43.7475014f, -41.6188202f, -39.4901390f});
}

}  // namespace
}  // namespace ms::test
