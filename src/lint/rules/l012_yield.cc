// MS-L012: `yield` in graph code. Generators cannot be compiled into a graph.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l012(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions())
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Yield") && !is(n, "YieldFrom")) return;
      ctx.report("MS-L012", *f->file, n, Severity::Error, Severity::Error,
                 std::string(is(n, "Yield") ? "yield" : "yield from") + " in " + where(*f) +
                     ": generators cannot be compiled into a graph",
                 "return a tuple of all the values instead of yielding them one by one");
    });
}

}  // namespace ms::lint
