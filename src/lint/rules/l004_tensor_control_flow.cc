// MS-L004: Python control flow that depends on tensor values or on Python containers filled with
// run-time values: `if`/`while`/conditional expressions whose condition is a tensor, and
// `for i in range(<tensor>)`. GRAPH_MODE turns a tensor `if` into graph control flow (exported as
// If/switch subgraphs that many inference back ends reject) and cannot bound a `while` or `range`
// whose limit is only known at run time; conditions on run-time Python values cannot be compiled.
#include "lint/rules/common.h"

namespace ms::lint {

namespace {

bool is_none_check(const Node& test) {
  if (!is(test, "Compare")) return false;
  for (const auto& op : *field(test, "ops"))
    if (op != "Is" && op != "IsNot") return false;
  return true;
}

// `a in tensor` is reported by MS-L002 (the membership test itself is the problem).
bool is_membership(const Node& test) {
  if (!is(test, "Compare")) return false;
  for (const auto& op : *field(test, "ops"))
    if (op == "In" || op == "NotIn") return true;
  return false;
}

}  // namespace

void rule_l004(RuleContext& ctx) {
  const char* hint_if = "make it data-independent: ops.select(cond, a, b) or a mask (x * mask), or decide on "
                        "shapes/Python attributes instead of tensor values";
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "If" || t == "While" || t == "IfExp" || t == "Assert") {
        const Node* test = field(n, "test");
        if (!test || is_none_check(*test) || is_membership(*test)) return;
        Kind k = ctx.kind(*f, *test);
        std::string cond = RuleContext::text(*test);
        const char* stmt = t == "If" ? "if" : t == "While" ? "while" : t == "Assert" ? "assert" : "conditional expression";
        if (k.tensor()) {
          if (t == "Assert") return;  // asserts on tensors are dropped from the graph; not worth an error
          bool loop = t == "While";
          ctx.report("MS-L004", *f->file, n, loop ? Severity::Error : Severity::Warning, Severity::Error,
                     std::string("'") + stmt + "' on a tensor value in " + where(*f) +
                         (loop ? ": a loop whose end depends on tensor data cannot be unrolled or exported as a static graph"
                               : ": the branch is chosen at run time, so the export needs control-flow subgraphs "
                                 "(If/switch) that inference back ends often reject"),
                     loop ? "bound the loop by a Python constant (for i in range(self.max_steps)) and mask finished steps, "
                            "or use ops.while_loop"
                          : hint_if);
        } else if (k.k == K::RuntimeList) {
          ctx.report("MS-L004", *f->file, n, Severity::Error, Severity::Error,
                     std::string("'") + stmt + "' on run-time Python values (from .asnumpy()/.tolist()/.item()) in " +
                         where(*f) + ": the graph cannot branch on values it does not have at compile time",
                     hint_if);
        }
      } else if (t == "For") {
        const Node* it = field(n, "iter");
        if (!it || !is(*it, "Call") || builtin_name(*f, *it) != "range") return;
        for (const auto& a : *field(*it, "args")) {
          Kind k = ctx.kind(*f, a);
          if (k.tensor() || k.k == K::RuntimeList) {
            ctx.report("MS-L004", *f->file, n, Severity::Error, Severity::Error,
                       "range() bounded by the tensor value '" + RuleContext::text(a) + "' in " + where(*f) +
                           ": the loop count must be a compile-time constant",
                       "loop over a Python constant or x.shape[i], and mask the surplus iterations");
            break;
          }
        }
      }
    });
  }
}

}  // namespace ms::lint
