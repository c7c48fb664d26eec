// MS-L006: creating or assigning attributes in graph code (self.x = ..., setattr). A Cell's
// attributes are read as constants when the graph is compiled: a new attribute created in construct
// is an error, reassigning an existing Python attribute only works through 2.x's JIT fallback and is
// lost in the export, and a Parameter must be updated with ops.assign.
#include "lint/rules/common.h"

namespace ms::lint {

namespace {

bool is_parameter(const AttrInfo& a) {
  if (!a.value || !is(*a.value, "Call")) return false;
  return last_part(dotted(*field(*a.value, "func"))) == "Parameter";
}

}  // namespace

void rule_l006(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    if (!f->cls) continue;
    auto check_target = [&](const Node& target, const Node& stmt) {
      std::vector<const Node*> ts{&target};
      if (is(target, "Tuple") || is(target, "List")) {
        ts.clear();
        for (const auto& e : *field(target, "elts")) ts.push_back(&e);
      }
      for (const Node* t : ts) {
        std::string a = self_attr(*t);
        if (a.empty()) continue;
        const AttrInfo* ai = ctx.project.find_attr(f->cls, a);
        if (!ai) {
          ctx.report("MS-L006", *f->file, *t, Severity::Error, Severity::Error,
                     "'self." + a + "' is created in " + where(*f) +
                         ": GRAPH_MODE cannot add attributes to a Cell while compiling it",
                     "create self." + a + " in __init__; in construct keep the value in a local variable and return it");
        } else if (is_parameter(*ai)) {
          ctx.report("MS-L006", *f->file, *t, Severity::Error, Severity::Error,
                     "Parameter 'self." + a + "' is rebound in " + where(*f) +
                         ": assigning a Parameter attribute does not update it in the graph",
                     "update it in place with ops.assign(self." + a + ", value)");
        } else {
          ctx.report("MS-L006", *f->file, *t, Severity::Warning, Severity::Error,
                     "attribute 'self." + a + "' is assigned in " + where(*f) +
                         ": attributes are compile-time constants; 2.x's JIT fallback tolerates this but the export "
                         "does not keep it",
                     "keep run-time state in local variables or a Parameter updated with ops.assign");
        }
      }
    };
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "Assign") {
        for (const auto& tg : *field(n, "targets")) check_target(tg, n);
      } else if (t == "AugAssign" || t == "AnnAssign") {
        check_target(*field(n, "target"), n);
      } else if (t == "Call") {
        std::string b = builtin_name(*f, n);
        if ((b == "setattr" || b == "delattr") && arg(n, 0) && is_self(*arg(n, 0)))
          ctx.report("MS-L006", *f->file, n, Severity::Error, Severity::Error,
                     b + "(self, ...) in " + where(*f) + ": GRAPH_MODE cannot change a Cell's attributes while compiling it",
                     "set attributes in __init__; in construct use local variables");
      }
    });
  }
}

}  // namespace ms::lint
