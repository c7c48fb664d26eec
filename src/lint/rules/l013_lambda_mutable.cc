// MS-L013: lambdas in graph code that capture mutable state: a variable the function rebinds or
// mutates (append, item assignment, +=), an attribute of self changed in graph code, or a mutable
// default argument. GRAPH_MODE resolves a lambda's free variables once, at compile time, so the
// lambda sees a frozen value (or the compile fails in 1.x).
#include "lint/rules/common.h"

#include <map>
#include <set>

namespace ms::lint {

namespace {

const std::set<std::string> kMutators = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                                         "popitem", "add", "discard", "sort", "reverse"};

void count_targets(const Node& t, std::map<std::string, int>& assigns) {
  if (is(t, "Name")) ++assigns[name_of(t)];
  else if (is(t, "Tuple") || is(t, "List"))
    for (const auto& e : *field(t, "elts")) count_targets(e, assigns);
  else if (is(t, "Starred")) count_targets(*field(t, "value"), assigns);
}

}  // namespace

void rule_l013(RuleContext& ctx) {
  // self attributes changed in any graph function of the class.
  std::map<const ClassInfo*, std::set<std::string>> mutated_attrs;
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    if (!f->cls) continue;
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "Assign")
        for (const auto& tg : *field(n, "targets")) {
          if (!self_attr(tg).empty()) mutated_attrs[f->cls].insert(self_attr(tg));
        }
      if (t == "AugAssign" && !self_attr(*field(n, "target")).empty()) mutated_attrs[f->cls].insert(self_attr(*field(n, "target")));
      if (t == "Call" && is(*field(n, "func"), "Attribute") && kMutators.count(str_field(*field(n, "func"), "attr"))) {
        std::string a = self_attr(*field(*field(n, "func"), "value"));
        if (!a.empty()) mutated_attrs[f->cls].insert(a);
      }
    });
  }
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    std::map<std::string, int> assigns;
    std::set<std::string> mutated;
    for_each_node(*f, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "Assign")
        for (const auto& tg : *field(n, "targets")) {
          count_targets(tg, assigns);
          if (is(tg, "Subscript") && is(*field(tg, "value"), "Name")) mutated.insert(name_of(*field(tg, "value")));
        }
      else if (t == "AugAssign") {
        count_targets(*field(n, "target"), assigns);
        if (is(*field(n, "target"), "Name")) mutated.insert(name_of(*field(n, "target")));
      } else if (t == "AnnAssign" || t == "For" || t == "NamedExpr")
        count_targets(*field(n, "target"), assigns);
      else if (t == "Call" && is(*field(n, "func"), "Attribute") && kMutators.count(str_field(*field(n, "func"), "attr")) &&
               is(*field(*field(n, "func"), "value"), "Name"))
        mutated.insert(name_of(*field(*field(n, "func"), "value")));
    });
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Lambda")) return;
      std::set<std::string> params;
      const Node* args = field(n, "args");
      if (args)
        for (const char* key : {"posonlyargs", "args", "kwonlyargs"})
          if (const Node* l = field(*args, key))
            for (const auto& x : *l) params.insert(str_field(x, "arg"));
      std::string why;
      if (args)
        if (const Node* d = field(*args, "defaults"))
          for (const auto& dv : *d)
            if (is(dv, "List") || is(dv, "Dict") || is(dv, "Set")) why = "a mutable default argument";
      walk(*field(n, "body"), [&](const Node& x) {
        if (!why.empty()) return;
        if (is(x, "Attribute") && f->cls) {
          std::string a = self_attr(x);
          if (!a.empty() && !params.count("self") && mutated_attrs[f->cls].count(a)) why = "self." + a + ", which construct changes";
          return;
        }
        std::string id = name_of(x);
        if (id.empty() || params.count(id) || id == "self") return;
        if (mutated.count(id)) why = "'" + id + "', which is mutated in " + where(*f);
        else if (assigns[id] >= 2) why = "'" + id + "', which is reassigned in " + where(*f);
      });
      if (why.empty()) return;
      ctx.report("MS-L013", *f->file, n, Severity::Warning, Severity::Error,
                 "lambda in " + where(*f) + " captures " + why +
                     ": GRAPH_MODE binds free variables once at compile time, so the lambda does not see later changes",
                 "pass the value as a lambda argument, or use a small method/function taking it explicitly");
    });
  }
}

}  // namespace ms::lint
