// Constant: y = the tensor held by exactly one of the value* attributes.
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

Tensor constant_value(const AttrReader& a) {
  if (a.has_attr("value")) return a.attr_tensor("value");
  if (a.has_attr("value_float")) return Tensor::scalar<float>(a.attr_float("value_float"));
  if (a.has_attr("value_int")) return Tensor::scalar<int64_t>(a.attr_int("value_int"));
  if (a.has_attr("value_string")) return Tensor::scalar<std::string>(a.attr_string("value_string"));
  if (a.has_attr("value_floats")) {
    const auto& v = a.attr_floats("value_floats");
    return Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())});
  }
  if (a.has_attr("value_ints")) {
    const auto& v = a.attr_ints("value_ints");
    return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())});
  }
  if (a.has_attr("value_strings")) {
    const auto& v = a.attr_strings("value_strings");
    return Tensor::from_vector<std::string>(v, {static_cast<int64_t>(v.size())});
  }
  if (a.has_attr("sparse_value")) fail_unsupported("{}: sparse_value is not supported", a.node().label());
  fail("{}: Constant has no value attribute", a.node().label());
}

}  // namespace

void register_op_constant(OpRegistry& r) {
  r.add(OpDef("Constant")
            .inputs(0)
            .outputs(1)
            .attr("value", AttrType::Tensor, false)
            .attr("value_float", AttrType::Float, false)
            .attr("value_floats", AttrType::Floats, false)
            .attr("value_int", AttrType::Int, false)
            .attr("value_ints", AttrType::Ints, false)
            .attr("value_string", AttrType::String, false)
            .attr("value_strings", AttrType::Strings, false)
            .attr("sparse_value", AttrType::Tensor, false)
            .infer_fn([](InferContext& ctx) {
              Tensor v = constant_value(ctx);
              ctx.set_output_type(0, TypeInfo::tensor(v.dtype(), v.shape()));
            })
            .kernel_fn([](KernelContext& ctx) { ctx.set_output(0, constant_value(ctx)); }));
}

}  // namespace ms
