// A raw QDQ model given to a Session runs on the int8 kernels (runtime/quantized_graph.h), and its
// outputs match the reference kernels running the QDQ graph as written (the oracle) within one
// quantization step: a quantized tensor by at most 1 unit, a float output by at most what one unit
// of its layer's quantized input can move it. Seeded QDQ models cover Conv with and without
// residual and ReLU, grouped and depthwise Conv, MatMul and Gemm, per-tensor and per-channel
// weights, uint8 and int8 activations, the ONNX Runtime quantizer's QDQ form (int32 bias through
// DequantizeLinear), and a small ResNet-like quantized by `ms quant`.
#include <cmath>
#include <fstream>
#include <random>
#include <set>

#include "formats/model_io.h"
#include "passes_test_util.h"
#include "runtime/session.h"
#include "test_util.h"

namespace ms::test {
namespace {

struct Activations {
  DType type;
  int zp_signed, zp_relu;  // zero points of a signed tensor and of a ReLU output
};
const Activations kUint8{DType::UInt8, 128, 0};
const Activations kInt8{DType::Int8, 0, 0};

Tensor zero_point(DType t, int v) {
  return t == DType::UInt8 ? Tensor::scalar<uint8_t>(uint8_t(v)) : Tensor::scalar<int8_t>(int8_t(v));
}

// Builds QDQ graphs as quantizers write them; remembers the step of each quantized graph output.
class QdqBuilder {
 public:
  explicit QdqBuilder(Activations a) : act_(a) {}
  TestGraph g;
  std::map<std::string, double> output_step;  // graph output -> its quantization step (absent: float)

  // QuantizeLinear -> DequantizeLinear of `x`; returns the dequantized name.
  std::string qdq(const std::string& x, float scale, int zp) {
    const std::string s = x + "_s", z = x + "_z";
    g.scalar(s, scale).init(z, zero_point(act_.type, zp));
    g.node("QuantizeLinear", {x, s, z}, {x + "_q"}).node("DequantizeLinear", {x + "_q", s, z}, {x + "_dq"});
    steps_[x + "_dq"] = scale;
    return x + "_dq";
  }
  // An int8 weight of `shape` read through DequantizeLinear, scales per slice of `axis` (or one).
  std::string weight(const std::string& name, const Shape& shape, bool per_channel, int axis = 0) {
    Tensor q(DType::Int8, shape);
    std::uniform_int_distribution<int> u(-127, 127);
    for (int64_t i = 0; i < q.numel(); ++i) q.data<int8_t>()[i] = int8_t(u(rng_));
    const int64_t n = per_channel ? shape[size_t(axis)] : 1;
    std::vector<float> s(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s[size_t(i)] = 0.002f + 0.0003f * float(i % 7);
    g.init(name + "_q", q).init(name + "_s", per_channel ? Tensor::from_vector<float>(s, {n}) : Tensor::scalar<float>(s[0]));
    g.init(name + "_z", per_channel ? Tensor::from_vector<int8_t>(std::vector<int8_t>(size_t(n), 0), {n}) : Tensor::scalar<int8_t>(0));
    std::map<std::string, Attribute> attrs;
    if (per_channel) attrs["axis"] = Attribute::of_int(axis);
    g.node("DequantizeLinear", {name + "_q", name + "_s", name + "_z"}, {name}, attrs);
    return name;
  }
  // Marks a dequantized tensor as a graph output (compared within one step).
  void quantized_output(const std::string& dq) {
    g.output(dq);
    output_step[dq] = steps_.at(dq);
  }
  const Activations act_;

 private:
  std::map<std::string, double> steps_;
  std::mt19937 rng_{11};
};

std::map<std::string, Attribute> conv_attrs(int64_t k, int64_t group = 1, int64_t stride = 1) {
  return {{"kernel_shape", ints_attr({k, k})}, {"pads", ints_attr({k / 2, k / 2, k / 2, k / 2})},
          {"group", Attribute::of_int(group)}, {"strides", ints_attr({stride, stride})}};
}

std::vector<Value> seeded_feeds(const Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Value> feeds;
  for (const auto& in : m.graph.inputs) {
    Tensor t(DType::Float32, in.type.static_shape());
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
    feeds.emplace_back(t);
  }
  return feeds;
}

struct RunResult {
  std::vector<Value> outputs;
  std::map<std::string, std::string> kernel_of_op;  // op type -> a kernel that ran it
  std::multiset<std::string> ops;                    // op types of the graph the session ran
  Model graph;                                       // that graph
};

RunResult run(const Model& m, const std::vector<Value>& feeds, bool reference) {
  SessionOptions o;
  o.reference_kernels = reference;
  o.num_threads = 2;
  Session s(std::make_shared<const Model>(m), o);
  RunProfile prof;
  RunResult r;
  r.outputs = s.run(feeds, &prof);
  for (const auto& n : s.model().graph.nodes) r.ops.insert(n.op_type);
  r.graph = s.model();
  for (const auto& p : prof.nodes) r.kernel_of_op[s.model().graph.nodes[p.node_index].op_type] = p.kernel;
  return r;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const auto x = a.to_double_vector(), y = b.to_double_vector();
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

// Fast (int8) against reference outputs: quantized outputs within one step, float outputs within
// `float_tol` (per output name).
void expect_int8_matches_reference(const QdqBuilder& b, const std::map<std::string, double>& float_tol,
                                   const std::map<std::string, size_t>& int8_ops) {
  const auto feeds = seeded_feeds(b.g.m, 3);
  const RunResult fast = run(b.g.m, feeds, false), ref = run(b.g.m, feeds, true);
  for (const auto& [op, count] : int8_ops) {
    EXPECT_EQ(fast.ops.count(op), count) << op;
    if (count) EXPECT_TRUE(fast.kernel_of_op.count(op) && fast.kernel_of_op.at(op).find("int8") != std::string::npos)
        << op << " ran on " << (fast.kernel_of_op.count(op) ? fast.kernel_of_op.at(op) : "nothing");
  }
  EXPECT_EQ(fast.ops.count("Conv"), 0u) << "a QDQ Conv was left in float";
  std::multiset<std::string> written;
  for (const auto& n : b.g.m.graph.nodes) written.insert(n.op_type);
  EXPECT_EQ(ref.ops, written) << "the reference session must run the graph as written";
  ASSERT_EQ(fast.outputs.size(), ref.outputs.size());
  for (size_t o = 0; o < fast.outputs.size(); ++o) {
    const std::string& name = b.g.m.graph.outputs[o].name;
    const double d = max_abs_diff(fast.outputs[o].tensor, ref.outputs[o].tensor);
    auto step = b.output_step.find(name);
    const double tol = step != b.output_step.end() ? step->second * (1 + 1e-5) : float_tol.at(name);
    EXPECT_LE(d, tol) << name;
  }
}

// How far one quantization step of every element of a layer's input moves its float output: the
// input step times the largest row sum of |weight| (weight as [out, ...]).
double one_step_bound(double input_step, const std::vector<float>& scales, const Tensor& wq) {
  const int64_t out = wq.dim(0), per = wq.numel() / out;
  double worst = 0;
  for (int64_t m = 0; m < out; ++m) {
    double s = 0;
    for (int64_t k = 0; k < per; ++k) s += std::abs(double(wq.data<int8_t>()[m * per + k]));
    worst = std::max(worst, s * scales[scales.size() == 1 ? 0 : size_t(m)]);
  }
  return input_step * worst;
}

std::vector<float> scales_of(const TestGraph& g, const std::string& w) {
  const Tensor& s = g.m.graph.initializers.at(w + "_s");
  return std::vector<float>(s.data<float>(), s.data<float>() + s.numel());
}

// x -> QDQ -> Conv1 (3x3, bias, `group`) -> Relu -> QDQ -> Conv2 (1x1) + h1 (residual) -> Relu -> out
//                                                    \-> Conv3 (3x3, stride 2) -> QDQ -> out3
void conv_block(Activations a, bool per_channel, int64_t group) {
  QdqBuilder b(a);
  const int64_t c = 8;
  b.g.input("x", {1, c, 13, 11});
  const std::string xd = b.qdq("x", 0.008f, a.zp_signed);
  b.weight("w1", {c, c / group, 3, 3}, per_channel);
  b.g.weight("b1", {c}, -0.2f, 0.2f);
  b.g.node("Conv", {xd, "w1", "b1"}, {"c1"}, conv_attrs(3, group)).node("Relu", {"c1"}, {"h1"});
  const std::string hd = b.qdq("h1", 0.01f, a.zp_relu);
  b.weight("w2", {c, c, 1, 1}, per_channel);
  b.g.node("Conv", {hd, "w2"}, {"c2"}, conv_attrs(1)).node("Add", {"c2", "h1"}, {"a2"}).node("Relu", {"a2"}, {"out"});
  b.weight("w3", {6, c, 3, 3}, per_channel);
  b.g.weight("b3", {6}, -0.2f, 0.2f);
  b.g.node("Conv", {hd, "w3", "b3"}, {"c3"}, conv_attrs(3, 1, 2));
  const std::string od = b.qdq("c3", 0.02f, a.zp_signed);
  b.g.output("out");
  b.quantized_output(od);
  // out: Conv2's input h1 may be one step apart (Conv1 requantized by the int8 kernel), and so
  // may the residual h1 it adds (float in the reference, the same value in the fused graph).
  const double out_tol = one_step_bound(0.01, scales_of(b.g, "w2"), b.g.m.graph.initializers.at("w2_q")) + 0.01 + 1e-5;
  // Conv1 stays QConvFloatOut where h1 is also read as float (the residual); Conv2 absorbs the Add.
  expect_int8_matches_reference(b, {{"out", out_tol}}, {{"QConvFloatOut", 2}, {"QLinearConv", 1}});
}

TEST(SessionInt8, ConvBlocksRunOnInt8KernelsWithinOneStep) {
  for (const Activations& a : {kUint8, kInt8})
    for (bool per_channel : {true, false})
      for (int64_t group : {1, 2, 8}) {  // 8 = depthwise
        SCOPED_TRACE(std::string(a.type == DType::UInt8 ? "uint8" : "int8") + (per_channel ? " per-channel" : " per-tensor") +
                     " group " + std::to_string(group));
        conv_block(a, per_channel, group);
      }
}

// a -> QDQ -> MatMul(DQ b) -> QDQ -> out1  (QLinearMatMul)
//          \-> Gemm(DQ w, bias, transB) -> out2 (float: no int8 Gemm; its weight is dequantized once)
TEST(SessionInt8, MatMulAndGemm) {
  for (const Activations& a : {kUint8, kInt8})
    for (bool per_channel : {true, false}) {
      SCOPED_TRACE(std::string(a.type == DType::UInt8 ? "uint8" : "int8") + (per_channel ? " per-channel" : " per-tensor"));
      QdqBuilder b(a);
      b.g.input("a", {5, 33});
      const std::string ad = b.qdq("a", 0.008f, a.zp_signed);
      b.weight("bm", {33, 17}, per_channel, 1);
      b.g.node("MatMul", {ad, "bm"}, {"m"});
      const std::string md = b.qdq("m", 0.03f, a.zp_signed);
      b.weight("wg", {9, 33}, per_channel, 0);
      b.g.weight("bg", {9}, -0.2f, 0.2f);
      b.g.node("Gemm", {ad, "wg", "bg"}, {"out2"}, {{"transB", Attribute::of_int(1)}});
      b.quantized_output(md);
      b.g.output("out2");
      expect_int8_matches_reference(b, {{"out2", 1e-5}}, {{"QLinearMatMul", 1}});
      // The Gemm reads a float initializer: no weight is dequantized per inference.
      const RunResult fast = run(b.g.m, seeded_feeds(b.g.m, 3), false);
      for (const auto& n : fast.graph.graph.nodes)
        EXPECT_FALSE(n.op_type == "DequantizeLinear" && fast.graph.graph.initializers.count(n.inputs[0])) << n.label();
    }
}

// ONNX Runtime's quantizer (QuantFormat.QDQ, per-channel): QuantizeLinear -> DequantizeLinear on
// every quantized activation, int8 weights per output channel with int8 zero points, and an int32
// bias through DequantizeLinear at scale x_s * w_s[m].
TEST(SessionInt8, OnnxRuntimeQdqStyle) {
  QdqBuilder b(kUint8);
  b.g.input("x", {1, 4, 16, 16});
  std::string h = b.qdq("x", 0.008f, 128);
  const int64_t cin[2] = {4, 8}, cout[2] = {8, 12};
  for (int l = 0; l < 2; ++l) {
    const std::string w = "w" + std::to_string(l), bias = "b" + std::to_string(l);
    b.weight(w, {cout[l], cin[l], 3, 3}, true);
    const float xs = l == 0 ? 0.008f : 0.02f;
    std::vector<float> bs;
    std::vector<int32_t> bq;
    for (float s : scales_of(b.g, w)) bs.push_back(xs * s), bq.push_back(int32_t(bq.size() * 37) - 150);
    b.g.init(bias + "_q", Tensor::from_vector<int32_t>(bq, {cout[l]})).init(bias + "_s", Tensor::from_vector<float>(bs, {cout[l]}));
    b.g.init(bias + "_z", Tensor::from_vector<int32_t>(std::vector<int32_t>(size_t(cout[l]), 0), {cout[l]}));
    b.g.node("DequantizeLinear", {bias + "_q", bias + "_s", bias + "_z"}, {bias}, {{"axis", Attribute::of_int(0)}});
    const std::string y = "y" + std::to_string(l);
    b.g.node("Conv", {h, w, bias}, {y}, conv_attrs(3)).node("Relu", {y}, {y + "r"});
    h = b.qdq(y + "r", 0.02f, 0);
    if (l == 0) {
      b.g.node("MaxPool", {h}, {"p"}, {{"kernel_shape", ints_attr({2, 2})}, {"strides", ints_attr({2, 2})}});
      h = b.qdq("p", 0.02f, 0);
    }
  }
  b.quantized_output(h);
  expect_int8_matches_reference(b, {}, {{"QLinearConv", 2}});
}

// A small ResNet-like (stem, two bottleneck blocks with residual Adds, one strided with a
// projection, global pool, Gemm) quantized by `ms quant` FULL_QUANT: every quantized tensor of the
// int8 run within one step of the reference run (all but 0.1% of the elements; two at most), the
// logits within what one step of the Gemm input moves them.
TEST(SessionInt8, ResNetLikeFromMsQuant) {
  const auto dir = temp_dir("session_int8");
  TestGraph g("resnet_like");
  g.input("input", {1, 3, 32, 32});
  int k = 0;
  auto conv = [&](const std::string& x, int64_t cin, int64_t cout, int64_t ks, int64_t stride, bool relu) {
    const std::string w = "w" + std::to_string(k), bias = "b" + std::to_string(k), y = "c" + std::to_string(k++);
    const float r = std::sqrt(3.f / float(cin * ks * ks));
    g.weight(w, {cout, cin, ks, ks}, -r, r).weight(bias, {cout}, -0.1f, 0.1f);
    g.node("Conv", {x, w, bias}, {y}, conv_attrs(ks, 1, stride));
    if (!relu) return y;
    g.node("Relu", {y}, {y + "r"});
    return y + "r";
  };
  std::string x = conv("input", 3, 16, 3, 1, true);
  int64_t cin = 16;
  for (int block = 0; block < 2; ++block) {
    const int64_t stride = block ? 2 : 1, mid = 8 << block, cout = 16 << block;
    std::string y = conv(x, cin, mid, 1, 1, true);
    y = conv(y, mid, mid, 3, stride, true);
    y = conv(y, mid, cout, 1, 1, false);
    const std::string sc = block ? conv(x, cin, cout, 1, stride, false) : x;
    const std::string a = "add" + std::to_string(block);
    g.node("Add", {y, sc}, {a}).node("Relu", {a}, {a + "r"});
    x = a + "r", cin = cout;
  }
  g.node("GlobalAveragePool", {x}, {"gap"}).node("Flatten", {"gap"}, {"flat"});
  g.weight("fc", {10, cin}, -0.3f, 0.3f).weight("fcb", {10}, -0.1f, 0.1f);
  g.node("Gemm", {"flat", "fc", "fcb"}, {"logits"}, {{"transB", Attribute::of_int(1)}}).output("logits");
  save_model(g.m, (dir / "f.onnx").string(), ModelFormat::Onnx);
  {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    std::vector<float> calib(8 * 3 * 32 * 32);
    for (float& v : calib) v = u(rng);
    std::ofstream(dir / "calib.bin", std::ios::binary).write(reinterpret_cast<const char*>(calib.data()), std::streamsize(calib.size() * 4));
  }
  const auto r = run_command(std::string(MS_BINARY) + " quant --modelFile " + (dir / "f.onnx").string() + " --inputFile " +
                             (dir / "calib.bin").string() + " --quantType FULL_QUANT --outputFile " + (dir / "q.onnx").string() + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.output;
  const Model q = load_model((dir / "q.onnx").string());

  // Every quantized tensor (QuantizeLinear outputs of the QDQ graph), watched in both sessions.
  ValueWatch watch;
  for (const auto& n : q.graph.nodes)
    if (n.op_type == "QuantizeLinear") watch.names.insert(n.outputs[0]);
  ASSERT_EQ(watch.names.size(), 8u);  // the input, 6 convolution inputs (a block input feeds two), the Gemm input
  std::map<std::string, Tensor> seen[2];
  std::multiset<std::string> fast_ops;
  const auto feeds = seeded_feeds(q, 9);
  std::vector<Value> out[2];
  for (int reference = 0; reference < 2; ++reference) {
    SessionOptions o;
    o.reference_kernels = reference;
    Session s(std::make_shared<const Model>(q), o);
    watch.see = [&](const std::string& name, const Tensor& t) { seen[reference][name] = t.clone(); };
    out[reference] = s.run(feeds, nullptr, &watch);
    if (!reference)
      for (const auto& n : s.model().graph.nodes) fast_ops.insert(n.op_type);
  }
  EXPECT_EQ(fast_ops.count("Conv"), 0u);
  EXPECT_EQ(fast_ops.count("QLinearConv") + fast_ops.count("QConvFloatOut"), 8u);  // every convolution
  // A requantization tie rounded apart (exact int32 sums against the reference's float sums) is one
  // step; it moves the next layers' sums by a fraction of their step, so deeper tensors can, rarely,
  // see two. Measured on this seed: one element of one tensor two steps apart, all others within one.
  for (const auto& name : watch.names) {
    ASSERT_TRUE(seen[0].count(name) && seen[1].count(name)) << name;
    const auto a = seen[0][name].to_double_vector(), b = seen[1][name].to_double_vector();
    ASSERT_EQ(a.size(), b.size()) << name;
    size_t beyond_one = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_LE(std::abs(a[i] - b[i]), 2.0) << name << " element " << i;
      beyond_one += std::abs(a[i] - b[i]) > 1;
    }
    EXPECT_LE(double(beyond_one), 1e-3 * double(a.size())) << name << ": " << beyond_one << " of " << a.size() << " elements beyond one step";
  }
  // The logits: the Gemm input is one step apart at most, so they move by at most that step times
  // the largest row sum of |fc|.
  const Node* gemm = nullptr;
  for (const auto& n : q.graph.nodes)
    if (n.op_type == "Gemm") gemm = &n;
  ASSERT_TRUE(gemm);
  const Node* dq = nullptr;
  for (const auto& n : q.graph.nodes)
    if (!n.outputs.empty() && n.outputs[0] == gemm->inputs[0]) dq = &n;
  ASSERT_TRUE(dq && dq->op_type == "DequantizeLinear");
  const double step = q.graph.initializers.at(dq->inputs[1]).as_double(0);
  double row = 0;
  const Tensor& w = g.m.graph.initializers.at("fc");
  for (int64_t m = 0; m < 10; ++m) {
    double s = 0;
    for (int64_t i = 0; i < w.dim(1); ++i) s += std::abs(double(w.data<float>()[m * w.dim(1) + i]));
    row = std::max(row, s);
  }
  EXPECT_LE(max_abs_diff(out[0][0].tensor, out[1][0].tensor), step * row * 1.01 + 1e-5);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ms::test
