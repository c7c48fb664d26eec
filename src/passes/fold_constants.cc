// fold_constants: nodes whose outputs are known at compile time become initializers. Graph shape
// inference (ops/infer_graph.h) already evaluates them with the reference kernels: Constant
// nodes, nodes whose inputs are all initializers, and shape subgraphs (Shape/Size of a value with
// a static shape, then the Gather/Unsqueeze/Concat/... computed from it), which become foldable
// once --inputShape fixes the input dims. Values derived from graph inputs (including
// initializers that are also graph inputs, which a caller may override) are never folded, except
// through ops that read only shapes. Tensors above PassContext::fold_limit_elements are not
// materialized.
#include <set>

#include "ops/infer_graph.h"
#include "ops/op.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

void fold(Rewriter& rw, const PassContext& ctx, PassStats& stats) {
  GraphInferOptions o;
  o.input_shapes = ctx.input_shapes;
  o.fold_limit = ctx.fold_limit_elements;
  const Graph& g = rw.graph();
  GraphInference inf = infer_graph(rw.model(), o);
  const auto& consts = inf.constants[&g];
  std::set<std::string> varying;
  for (const auto& v : g.inputs) varying.insert(v.name);
  std::vector<size_t> folded;
  std::vector<std::pair<std::string, Tensor>> values;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const OpDef* def = OpRegistry::global().find(n.domain, n.op_type);
    const bool shape_only = def && (def->traits & kTraitShapeOnly);
    bool ok = def && !(def->traits & (kTraitRandom | kTraitControlFlow)) && !n.outputs.empty();
    bool inputs_fixed = true;
    for (const auto& in : n.inputs) inputs_fixed = inputs_fixed && (in.empty() || !varying.count(in));
    ok = ok && (shape_only || inputs_fixed);
    for (const auto& out : n.outputs)
      ok = ok && !out.empty() && consts.count(out) && !rw.is_graph_output(out);
    if (!ok) {
      if (def && inputs_fixed && !n.inputs.empty() && !(def->traits & (kTraitRandom | kTraitControlFlow)))
        stats.reject("inputs are constant but the output was not materialized (size limit, or the kernel refused)", n);
      for (const auto& out : n.outputs) varying.insert(out);
      continue;
    }
    folded.push_back(i);
    for (const auto& out : n.outputs) values.emplace_back(out, consts.at(out));
  }
  for (auto& [name, t] : values) rw.set_initializer(name, t);
  if (!folded.empty()) rw.replace(folded, {});
  stats.rewrites += folded.size();
}

}  // namespace

std::unique_ptr<Pass> make_fold_constants() {
  return std::make_unique<FunctionPass>("fold_constants",
                                        "constant and shape-subgraph folding with the reference kernels", fold);
}

}  // namespace ms::passes
