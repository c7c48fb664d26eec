// Loop: for (i = 0; i < M && cond; ++i) (cond, carried..., scans...) = body(i, cond, carried...);
// outputs are the final carried values, then each scan output stacked along a new axis 0.
#include <limits>

#include "ops/sequence_util.h"

namespace ms {

void register_op_loop(OpRegistry& r) {
  r.add(OpDef("Loop")
            .inputs(2, -1)
            .outputs(1, -1)
            .trait(kTraitControlFlow)
            .attr("body", AttrType::Graph, true)
            .infer_fn([](InferContext& ctx) {
              const Graph& body = ctx.attr_graph("body");
              const size_t n_carried = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
              for (size_t i = 0; i < n_carried; ++i) {
                if (ctx.has_input(2 + i) && ctx.input_type(2 + i).kind != TypeInfo::Kind::Unknown)
                  ctx.set_output_type(i, ctx.input_type(2 + i));
              }
              for (size_t k = 1 + n_carried; k < body.outputs.size(); ++k) {
                const TypeInfo& et = body.outputs[k].type;
                if (et.kind != TypeInfo::Kind::Tensor) continue;
                if (!et.shape) {
                  ctx.set_output_type(k - 1, TypeInfo::tensor_unknown_shape(et.dtype));
                  continue;
                }
                std::vector<Dim> dims{Dim{}};
                dims.insert(dims.end(), et.shape->begin(), et.shape->end());
                ctx.set_output_type(k - 1, TypeInfo::tensor(et.dtype, dims));
              }
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Graph& body = ctx.attr_graph("body");
              const int64_t max_trip = ctx.has_input(0) ? ctx.input(0).as_int64(0) : std::numeric_limits<int64_t>::max();
              bool cond = ctx.has_input(1) ? scalar_truth(ctx.input(1), who) : true;
              const size_t n_carried = ctx.num_inputs() - 2;
              if (body.inputs.size() != 2 + n_carried)
                fail("{}: body takes {} inputs, expected {} (iteration, cond, {} carried)", who, body.inputs.size(),
                     2 + n_carried, n_carried);
              if (body.outputs.size() < 1 + n_carried)
                fail("{}: body returns {} outputs, expected at least {}", who, body.outputs.size(), 1 + n_carried);
              const size_t n_scan = body.outputs.size() - 1 - n_carried;
              std::vector<Value> carried;
              for (size_t i = 0; i < n_carried; ++i) carried.push_back(ctx.input_value(2 + i));
              std::vector<std::vector<Tensor>> scans(n_scan);
              for (int64_t it = 0; it < max_trip && cond; ++it) {
                std::vector<Value> in{Tensor::scalar<int64_t>(it), Tensor::scalar<bool>(cond)};
                in.insert(in.end(), carried.begin(), carried.end());
                std::vector<Value> out = ctx.subgraphs().run(body, in);
                if (out.size() != body.outputs.size())
                  fail("{}: body returned {} values, expected {}", who, out.size(), body.outputs.size());
                if (!out[0].is_tensor()) fail("{}: body condition output is not a tensor", who);
                cond = scalar_truth(out[0].tensor, who);
                for (size_t i = 0; i < n_carried; ++i) carried[i] = std::move(out[1 + i]);
                for (size_t k = 0; k < n_scan; ++k) {
                  Value& v = out[1 + n_carried + k];
                  if (!v.is_tensor()) fail("{}: scan output {} is not a tensor", who, k);
                  scans[k].push_back(std::move(v.tensor));
                }
              }
              for (size_t i = 0; i < n_carried; ++i) ctx.set_output_value(i, std::move(carried[i]));
              for (size_t k = 0; k < n_scan; ++k) {
                if (!scans[k].empty()) {
                  ctx.set_output(n_carried + k, stack_axis(scans[k], 0, who));
                  continue;
                }
                // No iteration ran: an empty tensor with the body's element shape when it is known.
                const TypeInfo& et = body.outputs[1 + n_carried + k].type;
                Shape s{0};
                if (et.has_static_shape())
                  for (int64_t d : et.static_shape()) s.push_back(d);
                ctx.set_output(n_carried + k, Tensor(et.dtype == DType::Undefined ? DType::Float32 : et.dtype, s));
              }
            }));
}

}  // namespace ms
