// If: runs then_branch when cond is true, else else_branch; the branch's outputs are the node's.
#include "ops/sequence_util.h"

namespace ms {

namespace {
// A type that holds for both branches: equal dims stay, differing ones become unknown.
TypeInfo merge_types(const TypeInfo& a, const TypeInfo& b) {
  if (a.kind != TypeInfo::Kind::Tensor || b.kind != TypeInfo::Kind::Tensor) return a.kind == b.kind ? a : TypeInfo{};
  if (a.dtype != b.dtype) return TypeInfo{};
  if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) return TypeInfo::tensor_unknown_shape(a.dtype);
  std::vector<Dim> dims(a.shape->size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim &x = (*a.shape)[i], &y = (*b.shape)[i];
    if ((x.is_static() && x.value == y.value) || (!x.is_static() && !x.param.empty() && x.param == y.param)) dims[i] = x;
  }
  return TypeInfo::tensor(a.dtype, dims);
}
}  // namespace

void register_op_if(OpRegistry& r) {
  r.add(OpDef("If")
            .inputs(1)
            .outputs(1, -1)
            .trait(kTraitControlFlow)
            .attr("then_branch", AttrType::Graph, true)
            .attr("else_branch", AttrType::Graph, true)
            .infer_fn([](InferContext& ctx) {
              const Graph& t = ctx.attr_graph("then_branch");
              const Graph& e = ctx.attr_graph("else_branch");
              for (size_t i = 0; i < t.outputs.size() && i < e.outputs.size(); ++i)
                ctx.set_output_type(i, merge_types(t.outputs[i].type, e.outputs[i].type));
            })
            .kernel_fn([](KernelContext& ctx) {
              const bool cond = scalar_truth(ctx.input(0), ctx.node().label());
              const Graph& branch = ctx.attr_graph(cond ? "then_branch" : "else_branch");
              std::vector<Value> outs = ctx.subgraphs().run(branch, {});
              if (outs.size() < ctx.num_outputs())
                fail("{}: branch returned {} outputs, the node has {}", ctx.node().label(), outs.size(),
                     ctx.num_outputs());
              for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_value(i, std::move(outs[i]));
            }));
}

}  // namespace ms
