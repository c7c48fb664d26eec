// MS-L011: `global`/`nonlocal` in graph code. The compiled graph cannot rebind Python module or
// closure variables.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l011(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions())
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Global") && !is(n, "Nonlocal")) return;
      std::string kw = is(n, "Global") ? "global" : "nonlocal";
      std::string names;
      for (const auto& x : *field(n, "names")) names += (names.empty() ? "" : ", ") + x.get<std::string>();
      ctx.report("MS-L011", *f->file, n, Severity::Error, Severity::Error,
                 kw + " " + names + " in " + where(*f) + ": GRAPH_MODE cannot rebind Python variables outside the graph",
                 "pass the value in as an input or keep it as a Cell attribute set in __init__ (a Parameter if it changes)");
    });
}

}  // namespace ms::lint
