// MS-L007: reshape/view with -1 on a tensor whose shape depends on data (masked_select, nonzero,
// unique, boolean-mask indexing...). The -1 must then be inferred at run time: the graph becomes
// dynamically shaped, which 1.x rejects and which MindIR export and most inference back ends
// cannot keep. Reshape with -1 on statically shaped tensors is fine and not reported.
#include "lint/rules/common.h"

namespace ms::lint {

namespace {

bool has_minus_one(const Node& shape) {
  long long v;
  if (int_const(shape, v)) return v == -1;
  if (is(shape, "Tuple") || is(shape, "List")) {
    for (const auto& e : *field(shape, "elts"))
      if (int_const(e, v) && v == -1) return true;
  }
  return false;
}

}  // namespace

void rule_l007(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      const Node* tensor = nullptr;
      bool minus_one = false;
      const Node& args = *field(n, "args");
      if (is(fn, "Attribute")) {
        std::string m = str_field(fn, "attr");
        const Node& recv = *field(fn, "value");
        Kind rk = ctx.kind(*f, recv);
        if (rk.tensor() && (m == "view" || m == "reshape")) {
          tensor = &recv;
          for (const auto& a : args)
            if (has_minus_one(a)) minus_one = true;
          if (const Node* s = kwarg(n, "shape")) minus_one = minus_one || has_minus_one(*s);
        }
      }
      if (!tensor) {
        // ops.reshape(x, s), P.Reshape()(x, s), self.reshape(x, s) with self.reshape = ops.Reshape()
        std::string q = ctx.project.qualname(fn, *f->file);
        Kind fk = ctx.kind(*f, fn);
        bool reshape_fn = last_part(q) == "reshape" || last_part(q) == "view";
        bool reshape_prim = fk.k == K::Primitive && fk.ctor == "Reshape";
        if ((reshape_fn || reshape_prim) && args.size() >= 2) {
          tensor = &args[0];
          minus_one = has_minus_one(args[1]);
        }
      }
      if (!tensor || !minus_one) return;
      Kind k = ctx.kind(*f, *tensor);
      if (!k.tensor() || !k.dyn) return;
      ctx.report("MS-L007", *f->file, n, Severity::Warning, Severity::Error,
                 "reshape with -1 of '" + RuleContext::text(*tensor) + "' in " + where(*f) +
                     ", whose shape depends on data (masked_select/nonzero/unique/boolean indexing): the graph becomes "
                     "dynamically shaped and the export cannot fix the size",
                 "keep shapes static: replace the data-dependent selection by a mask (ops.select, x * mask) or pad to a "
                 "fixed maximum size, then reshape with explicit sizes");
    });
  }
}

}  // namespace ms::lint
