// MS-L002: Python builtins and protocols applied to tensors: len(), `in`, zip(), isinstance(), and
// iterating over a tensor. They work only when the tensor's shape is static at compile time (and
// `in` not at all), and they bake that shape into the exported graph.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l002(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "Call") {
        std::string b = builtin_name(*f, n);
        const Node* a0 = arg(n, 0);
        if (b == "len" && a0 && ctx.kind(*f, *a0).tensor()) {
          ctx.report("MS-L002", *f->file, n, Severity::Warning, Severity::Warning,
                     "len() of tensor '" + RuleContext::text(*a0) + "' in " + where(*f) +
                         ": resolved from the compile-time shape, fails on dynamic shapes and is frozen into the export",
                     "use " + RuleContext::text(*a0) + ".shape[0] (static) or ops.shape/ops.size");
        } else if (b == "zip" || b == "enumerate" || b == "map" || b == "sorted" || b == "reversed") {
          if (const Node* as = field(n, "args"))
            for (const auto& a : *as)
              if (ctx.kind(*f, a).tensor()) {
                ctx.report("MS-L002", *f->file, n, Severity::Warning, Severity::Error,
                           b + "() over tensor '" + RuleContext::text(a) + "' in " + where(*f) +
                               ": iterates the tensor's first axis in Python, which GRAPH_MODE must unroll",
                           "index explicitly (x[i] for i in range(x.shape[0])) or use ops.split/ops.unstack");
                break;
              }
        } else if (b == "isinstance" && a0 && ctx.kind(*f, *a0).tensor()) {
          ctx.report("MS-L002", *f->file, n, Severity::Warning, Severity::Warning,
                     "isinstance() on tensor '" + RuleContext::text(*a0) + "' in " + where(*f) +
                         ": decided once at compile time, so the exported graph keeps only one branch",
                     "give the Cell one input signature; dispatch on types in Python before calling the network");
        }
      } else if (t == "Compare") {
        const Node& ops = *field(n, "ops");
        std::vector<const Node*> operands{field(n, "left")};
        for (const auto& c : *field(n, "comparators")) operands.push_back(&c);
        for (size_t i = 0; i < ops.size(); ++i) {
          if (ops[i] != "In" && ops[i] != "NotIn") continue;
          const Node* l = operands[i];
          const Node* r = operands[i + 1];
          // "key" in inputs: a string key means `inputs` is really a dict, not a tensor
          if (ctx.kind(*f, *l).k == K::Str) continue;
          if (ctx.kind(*f, *l).tensor() || ctx.kind(*f, *r).tensor()) {
            const Node* tn = ctx.kind(*f, *r).tensor() ? r : l;
            ctx.report("MS-L002", *f->file, n, Severity::Error, Severity::Error,
                       "'" + std::string(ops[i] == "In" ? "in" : "not in") + "' with tensor '" + RuleContext::text(*tn) +
                           "' in " + where(*f) + ": GRAPH_MODE cannot test membership on tensor values",
                       "compare with ops.equal and reduce with ops.any, e.g. ops.equal(ids, v).any()");
            break;
          }
        }
      } else if (t == "For" || t == "comprehension") {
        const Node* it = field(n, "iter");
        if (it && ctx.kind(*f, *it).tensor() && !is(*it, "Call"))
          ctx.report("MS-L002", *f->file, t == "For" ? n : *it, Severity::Warning, Severity::Error,
                     "loop over tensor '" + RuleContext::text(*it) + "' in " + where(*f) +
                         ": iterates the first axis in Python; needs a static shape and unrolls into the graph",
                     "use ops.split/ops.unstack, or a batched op instead of a loop");
      }
    });
  }
}

}  // namespace ms::lint
