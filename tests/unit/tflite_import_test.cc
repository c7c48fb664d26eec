// TFLite importer on hand-built flatbuffers (written with the generated builder of the project's
// schema): int8 quantized conv (QDQ) against TFLite's integer arithmetic written out, MediaPipe's
// Convolution2DTransposeBias and buffers stored after the flatbuffer against direct loops, and
// bad files (unsupported ops listed together, corrupt buffers) rejected with the right code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include <flatbuffers/flexbuffers.h>

#include "formats/model_io.h"
#include "formats/tflite/tflite_importer.h"
#include "runtime/session.h"
#include "tflite_schema_generated.h"

namespace ms {
namespace {

using flatbuffers::Offset;

struct Quant {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int axis = 0;
};

struct TfliteBuilder {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<Offset<mstflite::Buffer>> buffers;
  std::vector<Offset<mstflite::Tensor>> tensors;
  std::vector<Offset<mstflite::Operator>> ops;
  std::vector<Offset<mstflite::OperatorCode>> codes;
  uint64_t external_offset = 0;  // when set, buffer data goes after the flatbuffer
  std::string external;

  TfliteBuilder() { buffers.push_back(mstflite::CreateBuffer(fbb)); }

  int tensor(const std::string& name, const std::vector<int32_t>& shape, mstflite::TensorType type, const void* data = nullptr,
             size_t bytes = 0, const Quant* q = nullptr) {
    uint32_t buffer = 0;
    if (data) {
      if (external_offset) {
        while (external.size() % 16) external.push_back('\0');
        buffers.push_back(mstflite::CreateBuffer(fbb, 0, external_offset + external.size(), bytes));
        external.append(static_cast<const char*>(data), bytes);
      } else {
        fbb.ForceVectorAlignment(bytes, 1, 16);
        auto v = fbb.CreateVector(static_cast<const uint8_t*>(data), bytes);
        buffers.push_back(mstflite::CreateBuffer(fbb, v));
      }
      buffer = static_cast<uint32_t>(buffers.size() - 1);
    }
    Offset<mstflite::QuantizationParameters> qp = 0;
    if (q) qp = mstflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(q->scale), fbb.CreateVector(q->zero_point),
                                                        mstflite::QuantizationDetails_NONE, 0, q->axis);
    auto t = mstflite::CreateTensor(fbb, fbb.CreateVector(shape), type, buffer, fbb.CreateString(name), qp);
    tensors.push_back(t);
    return static_cast<int>(tensors.size() - 1);
  }
  template <class T>
  int constant(const std::string& name, const std::vector<int32_t>& shape, mstflite::TensorType type, const std::vector<T>& v,
               const Quant* q = nullptr) {
    return tensor(name, shape, type, v.data(), v.size() * sizeof(T), q);
  }
  uint32_t code(mstflite::BuiltinOperator op, const std::string& custom = "") {
    codes.push_back(mstflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min<int>(op, 127)), custom.empty() ? 0 : fbb.CreateString(custom), 1, op));
    return static_cast<uint32_t>(codes.size() - 1);
  }
  void op(uint32_t code, const std::vector<int32_t>& in, const std::vector<int32_t>& out,
          mstflite::BuiltinOptions type = mstflite::BuiltinOptions_NONE, Offset<void> options = 0,
          const std::vector<uint8_t>& custom = {}) {
    ops.push_back(mstflite::CreateOperator(fbb, code, fbb.CreateVector(in), fbb.CreateVector(out), type, options,
                                           custom.empty() ? 0 : fbb.CreateVector(custom)));
  }
  std::string finish(const std::vector<int32_t>& inputs, const std::vector<int32_t>& outputs) {
    auto sg = mstflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs), fbb.CreateVector(outputs),
                                       fbb.CreateVector(ops), fbb.CreateString("main"));
    std::vector<Offset<mstflite::SubGraph>> sgs{sg};
    auto model = mstflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(sgs), fbb.CreateString("test"),
                                       fbb.CreateVector(buffers));
    mstflite::FinishModelBuffer(fbb, model);
    return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  }
};

std::vector<float> values(int64_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>((seed >> 8) % 100000) / 100000.f;
  }
  return v;
}

std::vector<Tensor> run(const std::string& bytes, const std::vector<Tensor>& feeds) {
  auto m = std::make_shared<Model>(tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "test.tflite"));
  Session s(m);
  std::vector<Tensor> r;
  for (auto& v : s.run(std::vector<Value>(feeds.begin(), feeds.end()))) r.push_back(v.tensor);
  return r;
}

TEST(TfliteImport, Int8ConvRunsTfliteIntegerArithmetic) {
  // float input -> QUANTIZE -> int8 CONV_2D (per-channel weights, int32 bias, SAME, stride 2,
  // fused RELU) -> DEQUANTIZE. Input 6x6 with a 3x3 kernel at stride 2: TFLite's SAME pads 0
  // rows before and 1 after.
  const int H = 6, W = 6, C = 2, O = 3, K = 3, S = 2, OH = 3, OW = 3;
  const float s_in = 0.02f, s_out = 0.05f;
  const int zp_in = 3, zp_out = -5;
  std::vector<float> s_w{0.01f, 0.015f, 0.008f};
  auto x = values(H * W * C, 1);
  std::vector<int8_t> w(O * K * K * C);
  auto wv = values(w.size(), 2, -127, 127);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(std::lround(wv[i]));
  std::vector<int32_t> bias{120, -300, 45};

  TfliteBuilder b;
  Quant qin{{s_in}, {zp_in}}, qout{{s_out}, {zp_out}}, qw{s_w, {0, 0, 0}, 0}, qb{{s_in * s_w[0], s_in * s_w[1], s_in * s_w[2]}, {0, 0, 0}, 0};
  int tx = b.tensor("x", {1, H, W, C}, mstflite::TensorType_FLOAT32);
  int tq = b.tensor("xq", {1, H, W, C}, mstflite::TensorType_INT8, nullptr, 0, &qin);
  int tw = b.constant("w", {O, K, K, C}, mstflite::TensorType_INT8, w, &qw);
  int tb = b.constant("b", {O}, mstflite::TensorType_INT32, bias, &qb);
  int ty = b.tensor("yq", {1, OH, OW, O}, mstflite::TensorType_INT8, nullptr, 0, &qout);
  int tout = b.tensor("y", {1, OH, OW, O}, mstflite::TensorType_FLOAT32);
  b.op(b.code(mstflite::BuiltinOperator_QUANTIZE), {tx}, {tq});
  auto conv = mstflite::CreateConv2DOptions(b.fbb, mstflite::Padding_SAME, S, S, mstflite::ActivationFunctionType_RELU);
  b.op(b.code(mstflite::BuiltinOperator_CONV_2D), {tq, tw, tb}, {ty}, mstflite::BuiltinOptions_Conv2DOptions, conv.Union());
  b.op(b.code(mstflite::BuiltinOperator_DEQUANTIZE), {ty}, {tout});
  std::string bytes = b.finish({tx}, {tout});

  // TFLite's integer path: q = round(x/s)+zp; acc = bias + sum (q_in - zp_in) * q_w; y = zp_out +
  // round(acc * s_in*s_w/s_out), clamped to [zp_out, 127] by the fused RELU.
  auto quant = [](float v, float s, int zp) { return std::clamp<long>(std::lround(v / s) + zp, -128, 127); };
  std::vector<float> want(OH * OW * O);
  for (int i = 0; i < OH; ++i)
    for (int j = 0; j < OW; ++j)
      for (int o = 0; o < O; ++o) {
        long acc = bias[o];
        for (int a = 0; a < K; ++a)
          for (int c2 = 0; c2 < K; ++c2) {
            int h = i * S + a, ww = j * S + c2;  // pad before is 0
            if (h >= H || ww >= W) continue;
            for (int c = 0; c < C; ++c) acc += (quant(x[(h * W + ww) * C + c], s_in, zp_in) - zp_in) * w[((o * K + a) * K + c2) * C + c];
          }
        long q = std::clamp<long>(zp_out + std::lround(acc * (double(s_in) * s_w[o] / s_out)), zp_out, 127);
        want[(i * OW + j) * O + o] = (q - zp_out) * s_out;
      }
  auto got = run(bytes, {Tensor::from_vector(x, {1, H, W, C})});
  ASSERT_EQ(got[0].shape(), (Shape{1, OH, OW, O}));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_LE(std::fabs(got[0].as_double(k) - want[k]), s_out * 1.001) << "element " << k;
}

TEST(TfliteImport, QuantizedConvChainKeepsLayoutChangesAtTheBoundary) {
  // int8 conv -> int8 conv: the per-tensor QuantizeLinear/DequantizeLinear between them do not
  // stop the NCHW<->NHWC Transposes from cancelling.
  TfliteBuilder b;
  Quant qa{{0.05f}, {0}}, qw{{0.01f}, {0}}, qb{{0.0005f}, {0}};
  std::vector<int8_t> w(2 * 1 * 1 * 2, 7);
  std::vector<int32_t> bias(2, 10);
  int tx = b.tensor("x", {1, 4, 4, 2}, mstflite::TensorType_INT8, nullptr, 0, &qa);
  int tw = b.constant("w", {2, 1, 1, 2}, mstflite::TensorType_INT8, w, &qw);
  int tb = b.constant("b", {2}, mstflite::TensorType_INT32, bias, &qb);
  int t1 = b.tensor("c1", {1, 4, 4, 2}, mstflite::TensorType_INT8, nullptr, 0, &qa);
  int t2 = b.tensor("c2", {1, 4, 4, 2}, mstflite::TensorType_INT8, nullptr, 0, &qa);
  uint32_t conv = b.code(mstflite::BuiltinOperator_CONV_2D);
  for (auto [in, out] : {std::pair{tx, t1}, std::pair{t1, t2}}) {
    auto o = mstflite::CreateConv2DOptions(b.fbb, mstflite::Padding_SAME, 1, 1, mstflite::ActivationFunctionType_RELU);
    b.op(conv, {in, tw, tb}, {out}, mstflite::BuiltinOptions_Conv2DOptions, o.Union());
  }
  Model m = tflite_format::import_tflite_bytes(std::make_shared<const std::string>(b.finish({tx}, {t2})), "q.tflite");
  int transposes = 0;
  for (const auto& n : m.graph.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 2);
  EXPECT_EQ(m.graph.inputs[0].type.dtype, DType::Int8);
  auto out = Session(std::make_shared<Model>(m)).run(std::vector<Value>{Tensor(DType::Int8, {1, 4, 4, 2})});
  EXPECT_EQ(out[0].tensor.dtype(), DType::Int8);
}

// MediaPipe's Convolution2DTransposeBias: y[oy, ox, o] = bias[o] + sum over input pixels (iy, ix)
// and taps (a, b) with oy = iy*s + a - pad_top, ox = ix*s + b - pad_left of x[iy, ix, c] * w[o, a, b, c].
TEST(TfliteImport, Convolution2DTransposeBiasCustomOp) {
  const int H = 3, W = 4, C = 2, O = 3, K = 4, S = 2, OH = 6, OW = 8;
  auto x = values(H * W * C, 3), w = values(O * K * K * C, 4), bias = values(O, 5);
  TfliteBuilder b;
  int tx = b.tensor("x", {1, H, W, C}, mstflite::TensorType_FLOAT32);
  int tw = b.constant("w", {O, K, K, C}, mstflite::TensorType_FLOAT32, w);
  int tb = b.constant("b", {O}, mstflite::TensorType_FLOAT32, bias);
  int ty = b.tensor("y", {1, OH, OW, O}, mstflite::TensorType_FLOAT32);
  int32_t params[3] = {1 /* SAME */, S, S};
  std::vector<uint8_t> custom(reinterpret_cast<uint8_t*>(params), reinterpret_cast<uint8_t*>(params) + sizeof params);
  b.op(b.code(mstflite::BuiltinOperator_CUSTOM, "Convolution2DTransposeBias"), {tx, tw, tb}, {ty}, mstflite::BuiltinOptions_NONE, 0, custom);
  std::string bytes = b.finish({tx}, {ty});
  // SAME: total pad (in-1)*s + k - out = 2 per axis, 1 before.
  const int pad = 1;
  std::vector<double> want(OH * OW * O);
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int o = 0; o < O; ++o) want[(oy * OW + ox) * O + o] = bias[o];
  for (int iy = 0; iy < H; ++iy)
    for (int ix = 0; ix < W; ++ix)
      for (int a = 0; a < K; ++a)
        for (int bb = 0; bb < K; ++bb) {
          int oy = iy * S + a - pad, ox = ix * S + bb - pad;
          if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
          for (int o = 0; o < O; ++o)
            for (int c = 0; c < C; ++c) want[(oy * OW + ox) * O + o] += x[(iy * W + ix) * C + c] * w[((o * K + a) * K + bb) * C + c];
        }
  auto got = run(bytes, {Tensor::from_vector(x, {1, H, W, C})});
  ASSERT_EQ(got[0].shape(), (Shape{1, OH, OW, O}));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[0].as_double(k), want[k], 1e-4) << "element " << k;
}

// FULLY_CONNECTED (+ fused RELU6) whose weights live after the flatbuffer (offset/size buffers).
TEST(TfliteImport, BuffersStoredAfterTheFlatbuffer) {
  const int N = 2, I = 5, O = 4;
  auto x = values(N * I, 6), w = values(O * I, 7, -3, 3), bias = values(O, 8);
  auto build = [&](uint64_t offset, std::string* external) {
    TfliteBuilder b;
    b.external_offset = offset;
    int tx = b.tensor("x", {N, I}, mstflite::TensorType_FLOAT32);
    int tw = b.constant("w", {O, I}, mstflite::TensorType_FLOAT32, w);
    int tb = b.constant("b", {O}, mstflite::TensorType_FLOAT32, bias);
    int ty = b.tensor("y", {N, O}, mstflite::TensorType_FLOAT32);
    auto fc = mstflite::CreateFullyConnectedOptions(b.fbb, mstflite::ActivationFunctionType_RELU6);
    b.op(b.code(mstflite::BuiltinOperator_FULLY_CONNECTED), {tx, tw, tb}, {ty}, mstflite::BuiltinOptions_FullyConnectedOptions, fc.Union());
    std::string fb = b.finish({tx}, {ty});
    *external = b.external;
    return fb;
  };
  std::string ext;
  // The flatbuffer's size does not depend on the offset's value, so build once to learn it.
  size_t fb_size = build(uint64_t(1) << 40, &ext).size();
  uint64_t offset = (fb_size + 15) / 16 * 16;
  std::string bytes = build(offset, &ext);
  ASSERT_EQ(bytes.size(), fb_size);
  bytes.resize(offset, '\0');
  bytes += ext;
  std::vector<float> want(N * O);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < O; ++o) {
      double acc = bias[o];
      for (int i = 0; i < I; ++i) acc += x[n * I + i] * w[o * I + i];
      want[n * O + o] = static_cast<float>(std::clamp(acc, 0.0, 6.0));
    }
  auto got = run(bytes, {Tensor::from_vector(x, {N, I})});
  ASSERT_EQ(got[0].shape(), (Shape{N, O}));
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[0].as_double(k), want[k], 1e-5);

  // A buffer range past the end of the file is an error naming the tensor.
  std::string cut = bytes.substr(0, offset + 8);
  try {
    tflite_format::import_tflite_bytes(std::make_shared<const std::string>(cut), "cut.tflite");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
  }
}

TEST(TfliteImport, UnsupportedOpsAreListedTogether) {
  TfliteBuilder b;
  int tx = b.tensor("x", {1, 4}, mstflite::TensorType_FLOAT32);
  int t1 = b.tensor("t1", {1, 4}, mstflite::TensorType_FLOAT32);
  int t2 = b.tensor("t2", {1, 4}, mstflite::TensorType_FLOAT32);
  int t3 = b.tensor("t3", {1, 4}, mstflite::TensorType_FLOAT32);
  b.op(b.code(mstflite::BuiltinOperator_CUSTOM, "TransformTensorBilinear"), {tx}, {t1});
  b.op(b.code(mstflite::BuiltinOperator_LSH_PROJECTION), {t1}, {t2});
  b.op(b.code(mstflite::BuiltinOperator_CUSTOM, "Landmarks2TransformMatrix"), {t2}, {t3});
  std::string bytes = b.finish({tx}, {t3});
  try {
    tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "m.tflite");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string m = e.what();
    for (const char* name : {"TransformTensorBilinear", "LSH_PROJECTION", "Landmarks2TransformMatrix"})
      EXPECT_NE(m.find(name), std::string::npos) << m;
  }
}

TEST(TfliteImport, CorruptFilesAreRejected) {
  TfliteBuilder b;
  int tx = b.tensor("x", {1, 4}, mstflite::TensorType_FLOAT32);
  int ty = b.tensor("y", {1, 4}, mstflite::TensorType_FLOAT32);
  b.op(b.code(mstflite::BuiltinOperator_RELU), {tx}, {ty});
  std::string good = b.finish({tx}, {ty});
  std::vector<std::string> bad{"", "TFL3", good.substr(0, good.size() / 2)};
  std::string flipped = good;
  for (size_t i = 8; i < flipped.size(); i += 7) flipped[i] = static_cast<char>(0xff);
  bad.push_back(flipped);
  for (const auto& bytes : bad) {
    try {
      tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "bad.tflite");
      ADD_FAILURE() << "accepted a corrupt file of " << bytes.size() << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.tflite"), std::string::npos) << e.what();
    }
  }
}

// Random byte flips in a valid model: every result is a model or an ms::Error, never a crash.
TEST(TfliteImport, MutatedFilesNeverCrash) {
  TfliteBuilder b;
  auto w = values(3 * 2 * 2 * 2, 9);
  int tx = b.tensor("x", {1, 4, 4, 2}, mstflite::TensorType_FLOAT32);
  int tw = b.constant("w", {3, 2, 2, 2}, mstflite::TensorType_FLOAT32, w);
  int ty = b.tensor("y", {1, 3, 3, 3}, mstflite::TensorType_FLOAT32);
  int tz = b.tensor("z", {1, 27}, mstflite::TensorType_FLOAT32);
  auto conv = mstflite::CreateConv2DOptions(b.fbb, mstflite::Padding_VALID, 1, 1, mstflite::ActivationFunctionType_RELU6);
  b.op(b.code(mstflite::BuiltinOperator_CONV_2D), {tx, tw, -1}, {ty}, mstflite::BuiltinOptions_Conv2DOptions, conv.Union());
  auto rs = mstflite::CreateReshapeOptions(b.fbb, b.fbb.CreateVector(std::vector<int32_t>{1, 27}));
  b.op(b.code(mstflite::BuiltinOperator_RESHAPE), {ty}, {tz}, mstflite::BuiltinOptions_ReshapeOptions, rs.Union());
  const std::string good = b.finish({tx}, {tz});
  ASSERT_NO_THROW(tflite_format::import_tflite_bytes(std::make_shared<const std::string>(good), "good.tflite"));
  uint32_t seed = 77;
  int imported = 0, ran = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bytes = good;
    for (int k = 0; k < 1 + iter % 4; ++k) {
      seed = seed * 1664525u + 1013904223u;
      bytes[(seed >> 8) % bytes.size()] = static_cast<char>(seed >> 24);
    }
    try {
      auto m = std::make_shared<Model>(tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "m.tflite"));
      ++imported;
      // What imports must also run or fail cleanly (attributes such as strides may be mutated).
      const auto& in = m->graph.inputs.at(0).type;
      if (!in.has_static_shape() || shape_numel(in.static_shape()) > (1 << 16)) continue;
      Session(m).run(std::vector<Value>{Tensor(in.dtype, in.static_shape())});
      ++ran;
    } catch (const Error&) {
    }
  }
  std::printf("[ fuzz ] %d of 3000 mutated files still imported, %d ran\n", imported, ran);
}

// TFLite_Detection_PostProcess on four anchors and two classes (plus background), expectations
// worked out by hand from the op's documented semantics. Scales 10/10/5/5; boxes 0, 1, 3 have zero
// encodings (decoded box = anchor), box 2 has (ty, tx, th, tw) = (1, -2, 5 ln 2, 0), so
// yc = 1/10*0.1 + 0.2 = 0.21, xc = -2/10*0.1 + 0.2 = 0.18, h = 2*0.1, w = 0.1 -> (0.11, 0.13, 0.31, 0.23).
// Boxes 0 and 1 overlap with IoU 0.036/0.044 = 0.82 > 0.5; scores pass at >= 0.3.
struct DetectionCase {
  bool regular;
  int max_classes;
};

std::string detection_model(const DetectionCase& dc, bool drop_key = false) {
  flexbuffers::Builder fb;
  fb.Map([&] {
    fb.Int("max_detections", 3);
    if (!drop_key) fb.Int("max_classes_per_detection", dc.max_classes);
    fb.Int("detections_per_class", 100);
    fb.Bool("use_regular_nms", dc.regular);
    fb.Float("nms_score_threshold", 0.3f);
    fb.Float("nms_iou_threshold", 0.5f);
    fb.Int("num_classes", 2);
    fb.Float("y_scale", 10.f);
    fb.Float("x_scale", 10.f);
    fb.Float("h_scale", 5.f);
    fb.Float("w_scale", 5.f);
  });
  fb.Finish();
  std::vector<float> anchors{0.5f, 0.5f, 0.2f, 0.2f, 0.52f, 0.5f, 0.2f, 0.2f, 0.2f, 0.2f, 0.1f, 0.1f, 0.8f, 0.8f, 0.1f, 0.1f};
  const int D = 3 * dc.max_classes;
  TfliteBuilder b;
  int te = b.tensor("raw_boxes", {1, 4, 4}, mstflite::TensorType_FLOAT32);
  int ts = b.tensor("raw_scores", {1, 4, 3}, mstflite::TensorType_FLOAT32);
  int ta = b.constant("anchors", {4, 4}, mstflite::TensorType_FLOAT32, anchors);
  int o0 = b.tensor("boxes", {1, D, 4}, mstflite::TensorType_FLOAT32);
  int o1 = b.tensor("classes", {1, D}, mstflite::TensorType_FLOAT32);
  int o2 = b.tensor("scores", {1, D}, mstflite::TensorType_FLOAT32);
  int o3 = b.tensor("num", {1}, mstflite::TensorType_FLOAT32);
  b.op(b.code(mstflite::BuiltinOperator_CUSTOM, "TFLite_Detection_PostProcess"), {te, ts, ta}, {o0, o1, o2, o3},
       mstflite::BuiltinOptions_NONE, 0, fb.GetBuffer());
  return b.finish({te, ts}, {o0, o1, o2, o3});
}

struct Detection {
  std::vector<float> box;
  float cls, score;
};

// via: "" runs the imported model, ".mindir" runs it after a MindIR file round trip (Lite's
// DetectionPostProcess primitive; ONNX has no form for it, see OnnxWriterRefusesIt).
void expect_detections(const DetectionCase& dc, const std::vector<Detection>& want, float num, const std::string& via = "") {
  std::vector<float> enc(16, 0.f);
  enc[8] = 1.f, enc[9] = -2.f, enc[10] = 5.f * std::log(2.f);
  std::vector<float> sc{0.1f, 0.9f, 0.3f, 0.1f, 0.8f, 0.85f, 0.f, 0.2f, 0.6f, 0.f, 0.05f, 0.1f};
  std::vector<Tensor> feeds{Tensor::from_vector(enc, {1, 4, 4}), Tensor::from_vector(sc, {1, 4, 3})};
  std::vector<Tensor> got;
  if (via.empty()) {
    got = run(detection_model(dc), feeds);
  } else {
    Model m = tflite_format::import_tflite_bytes(std::make_shared<const std::string>(detection_model(dc)), "ssd.tflite");
    auto file = std::filesystem::temp_directory_path() / ("ms_detection_" + std::to_string(::getpid()) + via);
    std::string written = save_model(m, file.string(), via == ".onnx" ? ModelFormat::Onnx : ModelFormat::MindIR);
    Session s(std::make_shared<Model>(load_model(written)));
    std::filesystem::remove(written);
    for (auto& v : s.run(std::vector<Value>(feeds.begin(), feeds.end()))) got.push_back(v.tensor);
  }
  ASSERT_EQ(got.size(), 4u);
  const int64_t D = 3 * dc.max_classes;
  ASSERT_EQ(got[0].shape(), (Shape{1, D, 4}));
  ASSERT_EQ(got[1].shape(), (Shape{1, D}));
  ASSERT_EQ(got[3].shape(), (Shape{1}));
  EXPECT_EQ(got[3].as_double(0), num);
  for (int64_t k = 0; k < D; ++k) {
    // Slots past the detections are zero.
    Detection w = k < int64_t(want.size()) ? want[k] : Detection{{0, 0, 0, 0}, 0, 0};
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(got[0].as_double(k * 4 + j), w.box[j], 1e-5) << "slot " << k;
    EXPECT_EQ(got[1].as_double(k), w.cls) << "slot " << k;
    EXPECT_NEAR(got[2].as_double(k), w.score, 1e-6) << "slot " << k;
  }
}

const std::vector<float> kBox0{0.4f, 0.4f, 0.6f, 0.6f}, kBox1{0.42f, 0.4f, 0.62f, 0.6f}, kBox2{0.11f, 0.13f, 0.31f, 0.23f};

TEST(TfliteDetectionPostProcess, FastNmsOneClassPerBox) {
  // Best scores 0.9 (box 0, class 0), 0.85 (box 1, suppressed by box 0), 0.6 (box 2, class 1), 0.1 (box 3, below).
  expect_detections({false, 1}, {{kBox0, 0, 0.9f}, {kBox2, 1, 0.6f}}, 2);
}

TEST(TfliteDetectionPostProcess, FastNmsTwoClassesPerBox) {
  // Each kept box fills two slots with its classes, best first.
  expect_detections({false, 2}, {{kBox0, 0, 0.9f}, {kBox0, 1, 0.3f}, {kBox2, 1, 0.6f}, {kBox2, 0, 0.2f}}, 2);
}

TEST(TfliteDetectionPostProcess, RegularNmsPerClass) {
  // Class 0 keeps box 0 (box 1 suppressed); class 1 keeps box 1 and box 2 (box 0 at 0.3 is
  // suppressed by box 1): merged by score.
  expect_detections({true, 1}, {{kBox0, 0, 0.9f}, {kBox1, 1, 0.85f}, {kBox2, 1, 0.6f}}, 3);
}

TEST(TfliteDetectionPostProcess, SurvivesMindirFileRoundTrip) {
  expect_detections({true, 1}, {{kBox0, 0, 0.9f}, {kBox1, 1, 0.85f}, {kBox2, 1, 0.6f}}, 3, ".mindir");
}

// com.mstools DetectionPostProcess has no ONNX form (kTraitNoOnnxForm): ONNX Runtime could not load
// the file, so the ONNX writer refuses it (exit 3) naming the node and the op.
TEST(TfliteDetectionPostProcess, OnnxWriterRefusesIt) {
  Model m = tflite_format::import_tflite_bytes(std::make_shared<const std::string>(detection_model({true, 1})), "ssd.tflite");
  try {
    save_model(m, (std::filesystem::temp_directory_path() / ("ms_detection_" + std::to_string(::getpid()) + ".onnx")).string(),
               ModelFormat::Onnx);
    FAIL() << "a model with DetectionPostProcess was written as ONNX";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string msg = e.what();
    for (const char* part : {"com.mstools:DetectionPostProcess", "no standard ONNX form"})
      EXPECT_NE(msg.find(part), std::string::npos) << msg;
  }
}

TEST(TfliteDetectionPostProcess, MissingOptionIsNamed) {
  std::string bytes = detection_model({false, 1}, true);
  try {
    tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "ssd.tflite");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    std::string m = e.what();
    for (const char* part : {"ssd.tflite", "TFLite_Detection_PostProcess", "max_classes_per_detection"})
      EXPECT_NE(m.find(part), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace ms
