// MS-L010: try/except in graph code. GRAPH_MODE has no exception handling: the statement is
// rejected when the graph is compiled.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l010(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions())
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Try") && !is(n, "TryStar")) return;
      ctx.report("MS-L010", *f->file, n, Severity::Error, Severity::Error,
                 "try/except in " + where(*f) + ": GRAPH_MODE cannot compile exception handling",
                 "check the condition explicitly (shapes, None) before the operation, or handle errors outside the network");
    });
}

}  // namespace ms::lint
