// MS-L003: iterating a dict (for k in d, d.items()/keys()/values()) in graph code. Dict iteration
// order and contents must be constants at compile time; dicts built or changed at run time go
// through JIT fallback, and MindIR has no dict type.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l003(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t != "For" && t != "comprehension") return;
      const Node* it = field(n, "iter");
      if (!it) return;
      const Node* base = it;
      // enumerate(d.items()) / sorted(d) / list(d.keys())
      while (is(*base, "Call") && is(*field(*base, "func"), "Name") && arg(*base, 0)) {
        std::string b = builtin_name(*f, *base);
        if (b != "enumerate" && b != "sorted" && b != "list" && b != "tuple" && b != "reversed") break;
        base = arg(*base, 0);
      }
      bool dict = false;
      std::string what;
      if (is(*base, "Call") && is(*field(*base, "func"), "Attribute")) {
        const Node& fn = *field(*base, "func");
        std::string m = str_field(fn, "attr");
        Kind rk = ctx.kind(*f, *field(fn, "value"));
        // Tensors have no items()/keys()/values(): a "tensor" input used so is really a dict.
        if ((m == "items" || m == "keys" || m == "values") && rk.k != K::CellList && rk.k != K::Numpy &&
            field(*base, "args")->empty()) {
          dict = true;
          what = RuleContext::text(*field(fn, "value")) + "." + m + "()";
        }
      } else if (ctx.kind(*f, *base).k == K::Dict) {
        dict = true;
        what = RuleContext::text(*base);
      }
      if (!dict) return;
      ctx.report("MS-L003", *f->file, t == "For" ? n : *it, Severity::Warning, Severity::Error,
                 "iterating dict " + what + " in " + where(*f) +
                     ": the keys must be compile-time constants and the exported MindIR has no dict",
                 "keep the entries in a tuple or nn.CellList built in __init__ and loop over that; return tuples, not dicts");
    });
  }
}

}  // namespace ms::lint
