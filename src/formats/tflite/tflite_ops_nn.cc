// TFLite conv, pooling, resize, fully-connected and activation ops. TFLite is NHWC throughout;
// layout-sensitive ops run as the IR's NCHW ops between Transposes. Weights are OHWI (depthwise
// 1HW(C*M), transpose-conv OHWI) and are permuted once at import.
#include <cstring>

#include "formats/tflite/tflite_context.h"

namespace ms::tflite_format {

namespace {

template <class T>
const T& options(const T* p, const char* what) {
  if (!p) fail("has no {}", what);
  return *p;
}

// `emit` gets the NCHW input and returns the NCHW result; the output goes back to NHWC.
template <class Emit>
void channels_first(TfliteContext& c, const Op& op, int act, Emit emit) {
  std::string hint = c.out_hint(op, 0);
  std::string x = c.b.to_channels_first(c.input(op, 0), 4, hint);
  std::string y = emit(x, hint + "/nchw");
  c.set_output(op, 0, c.b.to_channels_last(y, 4, hint), act);
}

void set_padding(std::map<std::string, Attribute>& attrs, int padding) {
  // TFLite's SAME is TF's: the odd pad goes to the end (SAME_UPPER).
  attrs["auto_pad"] = Attribute::of_string(padding == mstflite::Padding_SAME ? "SAME_UPPER" : "VALID");
}

void conv(TfliteContext& c, const Op& op, bool depthwise) {
  Shape xs = c.input_shape(op, 0), ws = c.input_shape(op, 1);
  if (xs.size() != 4 || ws.size() != 4) fail("input and filter must be rank 4, got {} and {}", shape_str(xs), shape_str(ws));
  std::map<std::string, Attribute> attrs;
  int act = 0;
  int64_t group = 1;
  if (depthwise) {
    const auto& o = options(op.builtin_options_as_DepthwiseConv2DOptions(), "DepthwiseConv2DOptions");
    attrs["strides"] = Attribute::of_ints({o.stride_h(), o.stride_w()});
    attrs["dilations"] = Attribute::of_ints({o.dilation_h_factor(), o.dilation_w_factor()});
    set_padding(attrs, o.padding());
    act = o.fused_activation_function();
    group = xs[3];
  } else {
    const auto& o = options(op.builtin_options_as_Conv2DOptions(), "Conv2DOptions");
    attrs["strides"] = Attribute::of_ints({o.stride_h(), o.stride_w()});
    attrs["dilations"] = Attribute::of_ints({o.dilation_h_factor(), o.dilation_w_factor()});
    set_padding(attrs, o.padding());
    act = o.fused_activation_function();
    if (ws[3] <= 0 || xs[3] % ws[3]) fail("input channels {} are not a multiple of the filter's {}", xs[3], ws[3]);
    group = xs[3] / ws[3];
  }
  attrs["group"] = Attribute::of_int(group);
  attrs["kernel_shape"] = Attribute::of_ints({ws[1], ws[2]});
  // OHWI -> OIHW; depthwise 1HW(C*M) -> (C*M)1HW.
  std::vector<std::string> ins{"", c.weight(op, 1, depthwise ? std::vector<int64_t>{3, 0, 1, 2} : std::vector<int64_t>{0, 3, 1, 2})};
  if (c.has_input(op, 2)) ins.push_back(c.input(op, 2));
  channels_first(c, op, act, [&](const std::string& x, const std::string& hint) {
    ins[0] = x;
    return c.b.add("Conv", ins, hint, attrs);
  });
}

// ConvTranspose with TFLite's output size: total padding (in-1)*stride + k - out per axis, the
// smaller half first (SAME); VALID pads nothing and any extra output rows come from output_padding.
void transpose_conv(TfliteContext& c, const Op& op, size_t x_in, size_t w_in, int bias_in, int padding, int64_t sh,
                    int64_t sw, int act) {
  Shape xs = c.input_shape(op, x_in), ws = c.input_shape(op, w_in), ys = c.output_shape(op, 0);
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) fail("input, filter and output must be rank 4");
  std::vector<int64_t> pads(4, 0), out_pad(2, 0), strides{sh, sw};
  for (int a = 0; a < 2; ++a) {
    int64_t in = xs[1 + a], k = ws[1 + a], out = ys[1 + a], s = strides[a];
    int64_t full = (in - 1) * s + k;
    int64_t total = padding == mstflite::Padding_SAME ? std::max<int64_t>(full - out, 0) : 0;
    pads[a] = total / 2;
    pads[2 + a] = total - total / 2;
    out_pad[a] = out - (full - total);
    if (out_pad[a] < 0 || out_pad[a] >= std::max<int64_t>(s, 1))
      fail("output size {} does not follow from input {}, kernel {}, stride {}", out, in, k, s);
  }
  std::map<std::string, Attribute> attrs{{"strides", Attribute::of_ints(strides)}, {"pads", Attribute::of_ints(pads)},
                                         {"kernel_shape", Attribute::of_ints({ws[1], ws[2]})}};
  if (out_pad[0] || out_pad[1]) attrs["output_padding"] = Attribute::of_ints(out_pad);
  // OHWI -> IOHW (ConvTranspose weights are [in, out, kh, kw]).
  std::vector<std::string> ins{c.b.to_channels_first(c.input(op, x_in), 4, c.out_hint(op, 0)), c.weight(op, w_in, {3, 0, 1, 2})};
  if (bias_in >= 0 && c.has_input(op, bias_in)) ins.push_back(c.input(op, bias_in));
  std::string hint = c.out_hint(op, 0);
  std::string y = c.b.add("ConvTranspose", ins, hint + "/nchw", attrs);
  c.set_output(op, 0, c.b.to_channels_last(y, 4, hint), act);
}

void pool(TfliteContext& c, const Op& op, const char* ir) {
  const auto& o = options(op.builtin_options_as_Pool2DOptions(), "Pool2DOptions");
  std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::of_ints({o.filter_height(), o.filter_width()})},
                                         {"strides", Attribute::of_ints({o.stride_h(), o.stride_w()})}};
  // SAME average pooling divides by the real (unpadded) element count: count_include_pad 0.
  set_padding(attrs, o.padding());
  channels_first(c, op, o.fused_activation_function(), [&](const std::string& x, const std::string& hint) {
    return c.b.add(ir, {x}, hint, attrs);
  });
}

void resize(TfliteContext& c, const Op& op, bool bilinear) {
  bool align = false, half = false;
  if (bilinear) {
    if (const auto* o = op.builtin_options_as_ResizeBilinearOptions()) align = o->align_corners(), half = o->half_pixel_centers();
  } else if (const auto* o = op.builtin_options_as_ResizeNearestNeighborOptions()) {
    align = o->align_corners(), half = o->half_pixel_centers();
  }
  std::string size = c.b.int64s(c.constant_ints(op, 1, "size"), c.out_hint(op, 0) + "/size");
  channels_first(c, op, 0, [&](const std::string& x, const std::string& hint) {
    std::string y = c.b.unique_name(hint);
    importer::emit_tf_resize(c.b, x, size, bilinear, align, half, y, hint);
    return y;
  });
}

void depth_space(TfliteContext& c, const Op& op, bool to_depth) {
  int64_t bs = to_depth ? options(op.builtin_options_as_SpaceToDepthOptions(), "SpaceToDepthOptions").block_size()
                        : options(op.builtin_options_as_DepthToSpaceOptions(), "DepthToSpaceOptions").block_size();
  // TF's NHWC channel order (block row, block column, channel) is the IR's DCR mode.
  std::map<std::string, Attribute> attrs{{"blocksize", Attribute::of_int(bs)}};
  if (!to_depth) attrs["mode"] = Attribute::of_string("DCR");
  channels_first(c, op, 0, [&](const std::string& x, const std::string& hint) {
    return c.b.add(to_depth ? "SpaceToDepth" : "DepthToSpace", {x}, hint, attrs);
  });
}

void fully_connected(TfliteContext& c, const Op& op) {
  const auto* o = op.builtin_options_as_FullyConnectedOptions();
  int act = o ? o->fused_activation_function() : 0;
  if (o && o->weights_format() != 0) fail_unsupported("shuffled weights format");
  Shape ws = c.input_shape(op, 1), ys = c.output_shape(op, 0);
  if (ws.size() != 2) fail("weights must be rank 2, got {}", shape_str(ws));
  std::string hint = c.out_hint(op, 0);
  // TFLite flattens the input to [-1, in]; the output keeps the output tensor's shape.
  std::string x = c.b.add("Reshape", {c.input(op, 0), c.b.int64s({-1, ws[1]}, hint + "/flat_shape")}, hint + "/flat");
  std::string y = c.b.add("MatMul", {x, c.weight(op, 1, {1, 0})}, hint + "/matmul");
  if (c.has_input(op, 2)) y = c.b.add("Add", {y, c.input(op, 2)}, hint + "/bias");
  if (ys.size() != 2) {
    for (auto& d : ys)
      if (d < 0) d = -1;
    y = c.b.add("Reshape", {y, c.b.int64s(ys, hint + "/out_shape")}, hint + "/reshaped");
  }
  c.set_output(op, 0, y, act);
}

void unary(ConverterTables& t, int code, const char* ir) {
  t.builtin[code] = [ir](TfliteContext& c, const Op& op) { c.set_output(op, 0, c.b.add(ir, {c.input(op, 0)}, c.out_hint(op, 0))); };
}

}  // namespace

void add_nn_converters(ConverterTables& t) {
  using B = mstflite::BuiltinOperator;
  t.builtin[B::BuiltinOperator_CONV_2D] = [](TfliteContext& c, const Op& op) { conv(c, op, false); };
  t.builtin[B::BuiltinOperator_DEPTHWISE_CONV_2D] = [](TfliteContext& c, const Op& op) { conv(c, op, true); };
  t.builtin[B::BuiltinOperator_TRANSPOSE_CONV] = [](TfliteContext& c, const Op& op) {
    const auto& o = options(op.builtin_options_as_TransposeConvOptions(), "TransposeConvOptions");
    // Inputs: output_shape, weights, input, optional bias.
    transpose_conv(c, op, 2, 1, 3, o.padding(), o.stride_h(), o.stride_w(), o.fused_activation_function());
  };
  // MediaPipe's custom op: inputs input, weights (OHWI), bias; custom_options is the plain struct
  // {int32 padding (1 SAME, 2 VALID), int32 stride_width, int32 stride_height}.
  t.custom["Convolution2DTransposeBias"] = [](TfliteContext& c, const Op& op) {
    if (!op.custom_options() || op.custom_options()->size() < 12) fail("custom options must hold padding and strides");
    int32_t p[3];
    std::memcpy(p, op.custom_options()->data(), sizeof p);
    if (p[0] != 1 && p[0] != 2) fail("unknown padding code {}", p[0]);
    transpose_conv(c, op, 0, 1, 2, p[0] == 1 ? mstflite::Padding_SAME : mstflite::Padding_VALID, p[2], p[1], 0);
  };
  t.builtin[B::BuiltinOperator_AVERAGE_POOL_2D] = [](TfliteContext& c, const Op& op) { pool(c, op, "AveragePool"); };
  t.builtin[B::BuiltinOperator_MAX_POOL_2D] = [](TfliteContext& c, const Op& op) { pool(c, op, "MaxPool"); };
  t.builtin[B::BuiltinOperator_RESIZE_BILINEAR] = [](TfliteContext& c, const Op& op) { resize(c, op, true); };
  t.builtin[B::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR] = [](TfliteContext& c, const Op& op) { resize(c, op, false); };
  t.builtin[B::BuiltinOperator_DEPTH_TO_SPACE] = [](TfliteContext& c, const Op& op) { depth_space(c, op, false); };
  t.builtin[B::BuiltinOperator_SPACE_TO_DEPTH] = [](TfliteContext& c, const Op& op) { depth_space(c, op, true); };
  t.builtin[B::BuiltinOperator_FULLY_CONNECTED] = fully_connected;
  t.builtin[B::BuiltinOperator_SOFTMAX] = [](TfliteContext& c, const Op& op) {
    std::string x = c.input(op, 0);
    float beta = op.builtin_options_as_SoftmaxOptions() ? op.builtin_options_as_SoftmaxOptions()->beta() : 1.f;
    if (beta != 1.f) x = c.b.add("Mul", {x, c.b.constant(Tensor::scalar(beta), c.out_hint(op, 0) + "/beta")}, c.out_hint(op, 0) + "/scaled");
    c.set_output(op, 0, c.b.add("Softmax", {x}, c.out_hint(op, 0), {{"axis", Attribute::of_int(-1)}}));
  };
  t.builtin[B::BuiltinOperator_RELU] = [](TfliteContext& c, const Op& op) { c.set_output(op, 0, c.input(op, 0), mstflite::ActivationFunctionType_RELU); };
  t.builtin[B::BuiltinOperator_RELU6] = [](TfliteContext& c, const Op& op) { c.set_output(op, 0, c.input(op, 0), mstflite::ActivationFunctionType_RELU6); };
  t.builtin[B::BuiltinOperator_RELU_N1_TO_1] = [](TfliteContext& c, const Op& op) {
    c.set_output(op, 0, c.input(op, 0), mstflite::ActivationFunctionType_RELU_N1_TO_1);
  };
  t.builtin[B::BuiltinOperator_LEAKY_RELU] = [](TfliteContext& c, const Op& op) {
    float alpha = op.builtin_options_as_LeakyReluOptions() ? op.builtin_options_as_LeakyReluOptions()->alpha() : 0.2f;
    c.set_output(op, 0, c.b.add("LeakyRelu", {c.input(op, 0)}, c.out_hint(op, 0), {{"alpha", Attribute::of_float(alpha)}}));
  };
  t.builtin[B::BuiltinOperator_PRELU] = [](TfliteContext& c, const Op& op) {
    c.set_output(op, 0, c.b.add("PRelu", {c.input(op, 0), c.input(op, 1)}, c.out_hint(op, 0)));
  };
  for (auto [code, ir] : std::vector<std::pair<int, const char*>>{
           {B::BuiltinOperator_LOGISTIC, "Sigmoid"}, {B::BuiltinOperator_TANH, "Tanh"}, {B::BuiltinOperator_HARD_SWISH, "HardSwish"},
           {B::BuiltinOperator_ELU, "Elu"}, {B::BuiltinOperator_EXP, "Exp"}, {B::BuiltinOperator_LOG, "Log"},
           {B::BuiltinOperator_SQRT, "Sqrt"}, {B::BuiltinOperator_ABS, "Abs"}, {B::BuiltinOperator_NEG, "Neg"},
           {B::BuiltinOperator_FLOOR, "Floor"}, {B::BuiltinOperator_CEIL, "Ceil"}, {B::BuiltinOperator_ROUND, "Round"},
           {B::BuiltinOperator_SIN, "Sin"}, {B::BuiltinOperator_COS, "Cos"}, {B::BuiltinOperator_LOGICAL_NOT, "Not"}})
    unary(t, code, ir);
  t.builtin[B::BuiltinOperator_RSQRT] = [](TfliteContext& c, const Op& op) {
    std::string s = c.b.add("Sqrt", {c.input(op, 0)}, c.out_hint(op, 0) + "/sqrt");
    c.set_output(op, 0, c.b.add("Reciprocal", {s}, c.out_hint(op, 0)));
  };
  t.builtin[B::BuiltinOperator_SQUARE] = [](TfliteContext& c, const Op& op) {
    c.set_output(op, 0, c.b.add("Mul", {c.input(op, 0), c.input(op, 0)}, c.out_hint(op, 0)));
  };
}

}  // namespace ms::tflite_format
