// MS-L009: printing tensors in graph code. GRAPH_MODE turns print() of a tensor into a Print op with
// a side effect that stays in the exported graph (and that inference back ends do not support).
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l009(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      std::string b = builtin_name(*f, n);
      std::string q = ctx.project.qualname(fn, *f->file);
      Kind fk = ctx.kind(*f, fn);
      bool prim = (fk.k == K::Primitive && fk.ctor == "Print") || last_part(q) == "print_";
      if (b != "print" && !prim) return;
      bool tensor = prim;
      for (const auto& a : *field(n, "args")) {
        if (ctx.kind(*f, a).tensor()) tensor = true;
        if (is(a, "JoinedStr"))
          for (const auto& v : *field(a, "values"))
            if (is(v, "FormattedValue") && ctx.kind(*f, *field(v, "value")).tensor()) tensor = true;
      }
      if (!tensor) return;
      ctx.report("MS-L009", *f->file, n, Severity::Warning, Severity::Warning,
                 "print of a tensor in " + where(*f) +
                     ": becomes a Print op with a side effect that stays in the exported graph",
                 "remove it before export, or print the network's outputs outside construct");
    });
  }
}

}  // namespace ms::lint
