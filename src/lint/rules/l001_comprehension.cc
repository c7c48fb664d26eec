// MS-L001: list/set/dict comprehensions and generator expressions in graph code.
// MindSpore 2.x compiles list comprehensions and generator expressions by unrolling them over a
// sequence whose length is known at compile time; anything else (run-time lists, tensor elements,
// dict/set results) goes through JIT fallback, which cannot be exported. 1.x rejects all but the
// simplest list comprehension.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l001(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t != "ListComp" && t != "SetComp" && t != "DictComp" && t != "GeneratorExp") return;
      const char* what = t == "ListComp" ? "list comprehension" : t == "SetComp" ? "set comprehension"
                         : t == "DictComp" ? "dict comprehension" : "generator expression";
      size_t gens = field(n, "generators") ? field(n, "generators")->size() : 0;
      bool over_tensor = false;
      if (const Node* g = field(n, "generators"))
        for (const auto& c : *g)
          if (ctx.kind(*f, *field(c, "iter")).tensor()) over_tensor = true;
      Severity v1 = (t == "ListComp" && gens == 1 && !over_tensor) ? Severity::Warning : Severity::Error;
      std::string msg = std::string(what) + " in " + where(*f) +
                        (over_tensor ? ": iterates a tensor element by element, which GRAPH_MODE can only unroll for a static "
                                       "shape and export cannot keep"
                                     : ": GRAPH_MODE must unroll it at compile time; over run-time values it falls back to "
                                       "Python and cannot be exported");
      ctx.report("MS-L001", *f->file, n, Severity::Warning, v1, msg,
                 "write an explicit for loop over a constant-length tuple or nn.CellList, or use ops.stack/ops.concat/"
                 "ops.split on tensors; build Python lists in __init__");
    });
  }
}

}  // namespace ms::lint
