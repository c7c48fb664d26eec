// SequenceMap: out_k[i] = body(seq[i], extra_j[i] or extra_j...)_k for every element i of seq;
// each output is a sequence.
#include "ops/sequence_util.h"

namespace ms {

void register_op_sequence_map(OpRegistry& r) {
  r.add(OpDef("SequenceMap")
            .inputs(1, -1)
            .outputs(1, -1)
            .trait(kTraitSequence | kTraitControlFlow)
            .attr("body", AttrType::Graph, true)
            .infer_fn([](InferContext& ctx) {
              const Graph& body = ctx.attr_graph("body");
              for (size_t k = 0; k < body.outputs.size(); ++k)
                if (body.outputs[k].type.kind == TypeInfo::Kind::Tensor)
                  ctx.set_output_type(k, sequence_type(body.outputs[k].type.dtype));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Graph& body = ctx.attr_graph("body");
              const Value& s = ctx.input_value(0);
              if (!s.is_sequence()) fail("{}: input 0 must be a sequence", who);
              const size_t n = s.sequence.size();
              for (size_t j = 1; j < ctx.num_inputs(); ++j) {
                const Value& v = ctx.input_value(j);
                if (v.is_sequence() && v.sequence.size() != n)
                  fail("{}: sequence input {} has {} elements, input 0 has {}", who, j, v.sequence.size(), n);
                if (v.is_none()) fail("{}: input {} is absent", who, j);
              }
              std::vector<std::vector<Tensor>> outs(body.outputs.size());
              for (size_t i = 0; i < n; ++i) {
                std::vector<Value> in{s.sequence[i]};
                for (size_t j = 1; j < ctx.num_inputs(); ++j) {
                  const Value& v = ctx.input_value(j);
                  in.push_back(v.is_sequence() ? Value(v.sequence[i]) : v);
                }
                std::vector<Value> res = ctx.subgraphs().run(body, in);
                if (res.size() != outs.size()) fail("{}: body returned {} values, expected {}", who, res.size(), outs.size());
                for (size_t k = 0; k < res.size(); ++k) {
                  if (!res[k].is_tensor()) fail("{}: body output {} is not a tensor", who, k);
                  outs[k].push_back(std::move(res[k].tensor));
                }
              }
              for (size_t k = 0; k < outs.size(); ++k) {
                DType dt = outs[k].empty() ? body.outputs[k].type.dtype : outs[k][0].dtype();
                ctx.set_output_value(k, Value::of_sequence(std::move(outs[k]), dt));
              }
            }));
}

}  // namespace ms
