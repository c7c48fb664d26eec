// TensorFlow conv, pooling, normalization, resize and activation ops. TF lays these out NHWC by
// default; they become the IR's NCHW ops between Transposes (data_format NCHW needs none).
#include "formats/import_builder.h"
#include "formats/tf/tf_context.h"
#include "ops/conv_pool_util.h"

namespace ms::tf_format {

namespace {

using importer::transpose_tensor;
using NodeDef = ms_tf::NodeDef;

// The spatial entries of a per-dimension attribute (strides, dilations, ksize) given in
// data_format order; absent attributes are all ones.
std::vector<int64_t> spatial(const TfContext& c, const NodeDef& n, const char* key, int rank) {
  std::vector<int64_t> v = c.attr_ints(n, key);
  if (v.empty()) return std::vector<int64_t>(rank - 2, 1);
  if (static_cast<int>(v.size()) != rank) fail("attribute {} has {} entries, expected {}", key, v.size(), rank);
  return c.channels_first(n) ? std::vector<int64_t>(v.begin() + 2, v.end()) : std::vector<int64_t>(v.begin() + 1, v.end() - 1);
}

// TF's padding attribute as IR window attributes. TF's SAME is the IR's SAME_UPPER (out =
// ceil(in / stride), the odd pad at the end), but it is written as explicit pads wherever they
// are known: ONNX Runtime refuses auto_pad SAME_* on a dilated Conv ("Dilation not supported for
// AutoPadType::SAME_UPPER"), and explicit pads need no shape at run time. With stride 1 the total
// pad is (k - 1) * dilation whatever the input size; otherwise it needs the input's spatial dims.
// What stays SAME_UPPER (a strided window over an unknown size) the ONNX writer resolves or
// refuses when it knows more (--inputShape).
void set_padding(const TfContext& c, const NodeDef& n, int rank, const std::vector<int64_t>& kernel,
                 std::map<std::string, Attribute>& attrs) {
  std::string p = c.attr_string(n, "padding", "VALID");
  if (p == "SAME") {
    std::vector<int64_t> strides = attrs.at("strides").ints;
    std::vector<int64_t> dilations = attrs.count("dilations") ? attrs.at("dilations").ints : std::vector<int64_t>(rank - 2, 1);
    std::vector<int64_t> in_dims;  // spatial input dims (-1 unknown), read only when a stride needs them
    std::vector<int64_t> begins, ends;
    for (int d = 0; d < rank - 2; ++d) {
      AxisWindow a;
      a.k = kernel[d];
      a.stride = strides[d];
      a.dilation = dilations[d];
      if (a.stride == 1) {
        a.in = a.k;  // any size gives the same pads at stride 1
      } else {
        if (in_dims.empty()) {
          std::vector<int64_t> all = c.dims_of(c.input(n, 0));
          if (static_cast<int>(all.size()) == rank) {
            int first = c.channels_first(n) ? 2 : 1;
            in_dims.assign(all.begin() + first, all.begin() + first + rank - 2);
          } else {
            in_dims.assign(rank - 2, -1);
          }
        }
        a.in = in_dims[d];
      }
      if (window_axis_out(a, "SAME_UPPER", false) < 0) {
        attrs["auto_pad"] = Attribute::of_string("SAME_UPPER");
        return;
      }
      begins.push_back(a.pad_begin);
      ends.push_back(a.pad_end);
    }
    begins.insert(begins.end(), ends.begin(), ends.end());
    attrs["pads"] = Attribute::of_ints(begins);
  } else if (p == "VALID") {
    attrs["auto_pad"] = Attribute::of_string("VALID");
  } else if (p == "EXPLICIT") {
    std::vector<int64_t> e = c.attr_ints(n, "explicit_paddings");  // (before, after) per dimension
    if (static_cast<int>(e.size()) != 2 * rank) fail("explicit_paddings has {} entries, expected {}", e.size(), 2 * rank);
    int first = c.channels_first(n) ? 2 : 1;
    std::vector<int64_t> begins, ends;
    for (int d = first; d < first + rank - 2; ++d) {
      begins.push_back(e[2 * d]);
      ends.push_back(e[2 * d + 1]);
    }
    begins.insert(begins.end(), ends.begin(), ends.end());
    attrs["pads"] = Attribute::of_ints(begins);
  } else {
    fail("unknown padding '{}'", p);
  }
}

// Runs `emit` on the input in NCHW and writes its result back in the node's layout.
template <class Emit>
void in_channels_first(TfContext& c, const NodeDef& n, int rank, Emit emit) {
  if (c.channels_first(n)) {
    emit(c.input(n, 0), c.output_name(n));
    return;
  }
  std::string x = c.b.to_channels_first(c.input(n, 0), rank, n.name());
  std::string y = emit(x, c.b.unique_name(n.name() + "/nchw"));
  c.b.add_node("Transpose", {y}, {c.output_name(n)}, {{"perm", Attribute::of_ints(importer::channels_last_perm(rank))}});
}

void conv(TfContext& c, const NodeDef& n, bool depthwise) {
  const int rank = n.op() == "Conv3D" ? 5 : 4;
  const Tensor& f = c.require_constant(n, 1, "filter");
  if (f.rank() != rank) fail("filter has rank {}, expected {}", f.rank(), rank);
  // TF filters are [spatial..., in, out] (depthwise: [spatial..., in, multiplier]); the IR wants
  // [out, in/group, spatial...] with depthwise output channel c*multiplier + m.
  Tensor w;
  int64_t group = 1;
  if (depthwise) {
    int64_t cin = f.dim(2), mult = f.dim(3);
    w = transpose_tensor(f, {2, 3, 0, 1}).reshaped({cin * mult, 1, f.dim(0), f.dim(1)});
    group = cin;
  } else {
    std::vector<int64_t> perm{rank - 1, rank - 2};
    for (int k = 0; k < rank - 2; ++k) perm.push_back(k);
    w = transpose_tensor(f, perm);
  }
  std::map<std::string, Attribute> attrs;
  attrs["strides"] = Attribute::of_ints(spatial(c, n, "strides", rank));
  attrs["dilations"] = Attribute::of_ints(spatial(c, n, "dilations", rank));
  attrs["group"] = Attribute::of_int(group);
  std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
  attrs["kernel_shape"] = Attribute::of_ints(kernel);
  set_padding(c, n, rank, kernel, attrs);
  std::string wname = c.b.constant(w, n.name() + "/weight");
  in_channels_first(c, n, rank, [&](const std::string& x, const std::string& out) {
    c.b.add_node("Conv", {x, wname}, {out}, attrs, n.name());
    return out;
  });
}

void pool(TfContext& c, const NodeDef& n, const char* op) {
  const int rank = n.op().back() == 'D' ? 5 : 4;  // MaxPool3D / AvgPool3D
  std::map<std::string, Attribute> attrs;
  std::vector<int64_t> kernel = spatial(c, n, "ksize", rank);
  attrs["kernel_shape"] = Attribute::of_ints(kernel);
  attrs["strides"] = Attribute::of_ints(spatial(c, n, "strides", rank));
  // SAME average pooling divides by the number of real (unpadded) elements: count_include_pad 0,
  // which leaves explicit pads out of the count too.
  set_padding(c, n, rank, kernel, attrs);
  in_channels_first(c, n, rank, [&](const std::string& x, const std::string& out) {
    c.b.add_node(op, {x}, {out}, attrs, n.name());
    return out;
  });
}

void fused_batch_norm(TfContext& c, const NodeDef& n) {
  if (c.attr_bool(n, "is_training", true))
    fail_unsupported("is_training=true (batch statistics) is a training-time form; freeze the graph for inference");
  std::vector<std::string> ins;
  for (size_t i = 1; i < 5; ++i) ins.push_back(c.input(n, i));
  float eps = c.attr_float(n, "epsilon", 1e-4f);
  in_channels_first(c, n, 4, [&](const std::string& x, const std::string& out) {
    std::vector<std::string> all{x};
    all.insert(all.end(), ins.begin(), ins.end());
    c.b.add_node("BatchNormalization", all, {out}, {{"epsilon", Attribute::of_float(eps)}}, n.name());
    return out;
  });
  // In inference mode TF passes the moving statistics through as batch_mean / batch_variance.
  c.alias_output(n, 1, ins[2]);
  c.alias_output(n, 2, ins[3]);
}

void resize(TfContext& c, const NodeDef& n, bool bilinear) {
  std::string size = c.input(n, 1);
  if (const Tensor* s = c.constant_input(n, 1)) size = c.b.int64s(s->to_int64_vector(), n.name() + "/size");
  else size = c.b.add("Cast", {size}, n.name() + "/size", {{"to", Attribute::of_int(int64_t(DType::Int64))}});
  bool align = c.attr_bool(n, "align_corners", false), half = c.attr_bool(n, "half_pixel_centers", false);
  in_channels_first(c, n, 4, [&](const std::string& x, const std::string& out) {
    importer::emit_tf_resize(c.b, x, size, bilinear, align, half, out, n.name());
    return out;
  });
}

void unary(ConverterTable& t, const char* tf, const char* ir) {
  t[tf] = [ir](TfContext& c, const NodeDef& n) { c.b.add_node(ir, {c.input(n, 0)}, {c.output_name(n)}, {}, n.name()); };
}

}  // namespace

void add_nn_converters(ConverterTable& t) {
  t["Conv2D"] = [](TfContext& c, const NodeDef& n) { conv(c, n, false); };
  t["Conv3D"] = [](TfContext& c, const NodeDef& n) { conv(c, n, false); };
  t["DepthwiseConv2dNative"] = [](TfContext& c, const NodeDef& n) { conv(c, n, true); };
  t["MaxPool"] = [](TfContext& c, const NodeDef& n) { pool(c, n, "MaxPool"); };
  t["AvgPool"] = [](TfContext& c, const NodeDef& n) { pool(c, n, "AveragePool"); };
  t["MaxPool3D"] = t["MaxPool"];
  t["AvgPool3D"] = t["AvgPool"];
  t["FusedBatchNorm"] = fused_batch_norm;
  t["FusedBatchNormV2"] = fused_batch_norm;
  t["FusedBatchNormV3"] = fused_batch_norm;
  t["ResizeBilinear"] = [](TfContext& c, const NodeDef& n) { resize(c, n, true); };
  t["ResizeNearestNeighbor"] = [](TfContext& c, const NodeDef& n) { resize(c, n, false); };
  t["BiasAdd"] = [](TfContext& c, const NodeDef& n) {
    std::string bias = c.input(n, 1);
    if (c.channels_first(n)) {
      // Bias over axis 1: [C] -> [C, 1, 1] for a rank-4 input.
      int r = c.rank_of(c.input(n, 0));
      if (r < 0) fail_unsupported("data_format NCHW needs the input's rank");
      std::vector<int64_t> axes;
      for (int k = 1; k < r - 1; ++k) axes.push_back(k);
      bias = c.b.add("Unsqueeze", {bias, c.b.int64s(axes, n.name() + "/axes")}, n.name() + "/bias");
    }
    c.b.add_node("Add", {c.input(n, 0), bias}, {c.output_name(n)}, {}, n.name());
  };
  t["Relu6"] = [](TfContext& c, const NodeDef& n) {
    DType dt = c.attr_dtype(n, "T", DType::Float32);
    Tensor lo(dt, {}), hi(dt, {});
    if (dt != DType::Float32) fail_unsupported("Relu6 of {}", dtype_name(dt));
    *lo.data<float>() = 0.f;
    *hi.data<float>() = 6.f;
    c.b.add_node("Clip", {c.input(n, 0), c.b.constant(lo, n.name() + "/min"), c.b.constant(hi, n.name() + "/max")},
                 {c.output_name(n)}, {}, n.name());
  };
  t["LeakyRelu"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("LeakyRelu", {c.input(n, 0)}, {c.output_name(n)}, {{"alpha", Attribute::of_float(c.attr_float(n, "alpha", 0.2f))}}, n.name());
  };
  t["Softmax"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("Softmax", {c.input(n, 0)}, {c.output_name(n)}, {{"axis", Attribute::of_int(-1)}}, n.name());
  };
  t["LogSoftmax"] = [](TfContext& c, const NodeDef& n) {
    c.b.add_node("LogSoftmax", {c.input(n, 0)}, {c.output_name(n)}, {{"axis", Attribute::of_int(-1)}}, n.name());
  };
  for (auto [tf, ir] : std::vector<std::pair<const char*, const char*>>{
           {"Relu", "Relu"}, {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"}, {"Elu", "Elu"}, {"Selu", "Selu"},
           {"Softplus", "Softplus"}, {"Softsign", "Softsign"}, {"Exp", "Exp"}, {"Log", "Log"}, {"Sqrt", "Sqrt"},
           {"Abs", "Abs"}, {"Neg", "Neg"}, {"Floor", "Floor"}, {"Ceil", "Ceil"}, {"Reciprocal", "Reciprocal"},
           {"Inv", "Reciprocal"}, {"Erf", "Erf"}, {"Sin", "Sin"}, {"Cos", "Cos"}, {"Sign", "Sign"},
           {"LogicalNot", "Not"}, {"Round", "Round"}})
    unary(t, tf, ir);
}

}  // namespace ms::tf_format
