// oneDNN convolution and pooling kernels against the reference kernels: 1-D/2-D/3-D, strides,
// padding (explicit, SAME, asymmetric), dilations, groups and depthwise, FusedConv's activations
// and residual input, ceil_mode pooling, and chains that pass the channel-blocked layout along.
#include "fast_kernels_util.h"

namespace ms::test {
namespace {

struct ConvCase {
  Shape x, w;
  std::map<std::string, Attribute> attrs;
  bool bias = true;
};

void check_conv(const ConvCase& c, const std::string& op = "Conv", std::map<std::string, Attribute> extra = {},
                bool residual = false) {
  ModelSpec s;
  Node n = make_node(op, {"x", "w"}, {"y"});
  n.domain = op == "FusedConv" ? kMsDomain : "";
  n.attrs = c.attrs;
  for (auto& [k, v] : extra) n.attrs[k] = v;
  s.weights["w"] = random_tensor(c.w, 11);
  if (c.bias || residual) n.inputs.push_back(c.bias ? "b" : "");
  // One bias per output channel: W's axis 0 for Conv, axis 1 times group for ConvTranspose.
  const auto g = c.attrs.count("group") ? c.attrs.at("group").i : 1;
  if (c.bias) s.weights["b"] = random_tensor({op == "ConvTranspose" ? c.w[1] * g : c.w[0]}, 12);
  s.inputs = {{"x", random_tensor(c.x, 13)}};
  if (residual) {
    // The residual must have the convolution's output shape: take it from a reference run.
    const Shape ys = reference_output_shape(s, n);
    n.inputs.push_back("z");
    s.inputs.push_back({"z", random_tensor(ys, 14)});
  }
  s.nodes = {n};
  s.outputs = {"y"};
  SCOPED_TRACE(op + " x" + shape_str(c.x) + " w" + shape_str(c.w));
  check_against_reference(s, {op}, 1e-4, 1e-4);
}

TEST(FastConv, Conv2dGeometry) {
  check_conv({{1, 3, 17, 19}, {8, 3, 3, 3}, {{"pads", ints({1, 1, 1, 1})}}});
  check_conv({{2, 16, 15, 15}, {32, 16, 3, 3}, {{"strides", ints({2, 2})}, {"pads", ints({0, 1, 2, 1})}}});
  check_conv({{1, 5, 20, 13}, {7, 5, 3, 2}, {{"dilations", ints({2, 3})}}, false});
  check_conv({{1, 24, 14, 14}, {24, 1, 3, 3}, {{"group", Attribute::of_int(24)}, {"pads", ints({1, 1, 1, 1})}}});
  check_conv({{1, 12, 9, 9}, {18, 4, 3, 3}, {{"group", Attribute::of_int(3)}, {"auto_pad", Attribute::of_string("SAME_UPPER")}}});
  check_conv({{1, 64, 7, 7}, {40, 64, 1, 1}, {}});
}

TEST(FastConv, Conv1dAnd3d) {
  check_conv({{2, 6, 50}, {4, 6, 5}, {{"strides", ints({3})}, {"pads", ints({2, 1})}}});
  check_conv({{1, 4, 6, 7, 8}, {6, 2, 3, 3, 3}, {{"group", Attribute::of_int(2)}, {"pads", ints({1, 0, 1, 1, 0, 1})}}});
}

TEST(FastConv, FusedConvActivationsAndResidual) {
  const ConvCase c{{1, 16, 12, 12}, {16, 16, 3, 3}, {{"pads", ints({1, 1, 1, 1})}}};
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("Relu")}}, true);
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("Clip")}, {"activation_params", Attribute::of_floats({0, 6})}});
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("HardSwish")}}, true);
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("Sigmoid")}});
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("LeakyRelu")}, {"activation_params", Attribute::of_floats({0.1f})}});
  check_conv(c, "FusedConv", {{"activation", Attribute::of_string("HardSigmoid")}, {"activation_params", Attribute::of_floats({0.2f, 0.5f})}});
}

void check_pool(const std::string& op, const Shape& x, std::map<std::string, Attribute> attrs) {
  ModelSpec s;
  Node n = make_node(op, {"x"}, {"y"});
  n.attrs = std::move(attrs);
  s.nodes = {n};
  s.inputs = {{"x", random_tensor(x, 21)}};
  s.outputs = {"y"};
  SCOPED_TRACE(op + " " + shape_str(x));
  check_against_reference(s, {op}, 1e-5, 1e-6);
}

TEST(FastPool, MaxAverageGlobal) {
  check_pool("MaxPool", {1, 8, 13, 13}, {{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}});
  check_pool("MaxPool", {1, 3, 10, 11}, {{"kernel_shape", ints({3, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  check_pool("MaxPool", {2, 4, 12}, {{"kernel_shape", ints({3})}, {"dilations", ints({2})}});
  // Plain sources that oneDNN pools with scalar loops go through the blocked layout (IS-Net's
  // 2x2 ceil-mode pools), channels not a multiple of the block included.
  check_pool("MaxPool", {1, 32, 128, 128}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  check_pool("MaxPool", {2, 20, 33, 31}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  check_pool("AveragePool", {1, 5, 9, 9}, {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 1, 1, 1})}});
  check_pool("AveragePool", {1, 5, 9, 9},
             {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 1, 1, 1})}, {"count_include_pad", Attribute::of_int(1)}});
  check_pool("AveragePool", {1, 5, 10, 10}, {{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"ceil_mode", Attribute::of_int(1)}});
  check_pool("GlobalAveragePool", {2, 19, 7, 5}, {});
  check_pool("GlobalMaxPool", {1, 33, 6, 6}, {});
}

TEST(FastConvTranspose, GeometryAndGroups) {
  check_conv({{1, 8, 7, 9}, {8, 6, 3, 3}, {{"strides", ints({2, 2})}, {"pads", ints({1, 0, 1, 1})}}}, "ConvTranspose");
  check_conv({{1, 8, 7, 9}, {8, 6, 2, 2}, {{"strides", ints({2, 2})}, {"output_padding", ints({1, 0})}}}, "ConvTranspose");
  check_conv({{2, 6, 10}, {6, 2, 4}, {{"group", Attribute::of_int(3)}, {"dilations", ints({2})}}, false}, "ConvTranspose");
  check_conv({{1, 4, 3, 4, 5}, {4, 3, 2, 2, 2}, {{"strides", ints({2, 1, 2})}}}, "ConvTranspose");
}

// Conv -> MaxPool -> FusedConv (residual from the first conv) -> GlobalAveragePool: the values
// between them travel channel-blocked (24 channels: the last block is padded), only the output is plain.
TEST(FastConv, BlockedLayoutChain) {
  ModelSpec s;
  Node c1 = make_node("Conv", {"x", "w1", "b1"}, {"t1"}, "c1");
  c1.attrs["pads"] = ints({1, 1, 1, 1});
  Node p = make_node("MaxPool", {"t1"}, {"t2"}, "p");
  p.attrs["kernel_shape"] = ints({2, 2});
  p.attrs["strides"] = ints({2, 2});
  Node c2 = make_node("FusedConv", {"t2", "w2", "b2"}, {"t3"}, "c2");
  c2.domain = kMsDomain;
  c2.attrs["pads"] = ints({1, 1, 1, 1});
  c2.attrs["group"] = Attribute::of_int(24);
  Node c3 = make_node("FusedConv", {"t3", "w3", "", "t2"}, {"t4"}, "c3");
  c3.domain = kMsDomain;
  c3.attrs["activation"] = Attribute::of_string("Relu");
  Node g = make_node("GlobalAveragePool", {"t4"}, {"y"}, "g");
  s.nodes = {c1, p, c2, c3, g};
  s.weights = {{"w1", random_tensor({24, 3, 3, 3}, 1)}, {"b1", random_tensor({24}, 2)},
               {"w2", random_tensor({24, 1, 3, 3}, 3)}, {"b2", random_tensor({24}, 4)},
               {"w3", random_tensor({24, 24, 1, 1}, 5)}};
  s.inputs = {{"x", random_tensor({1, 3, 16, 16}, 6)}};
  s.outputs = {"y"};
  check_against_reference(s, {"Conv", "MaxPool", "FusedConv", "GlobalAveragePool"}, 1e-4, 1e-5);
}

}  // namespace
}  // namespace ms::test
