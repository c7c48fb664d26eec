// MS-L015: construct parameters defaulting to None. Export traces construct with exactly the inputs
// it is given; an optional input is either frozen to None (its branch vanishes from the MindIR) or
// must be supplied, and the exported model's signature no longer matches the Python one.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l015(RuleContext& ctx) {
  for (const auto& c : ctx.project.classes()) {
    if (!c->is_cell) continue;
    auto it = c->methods.find("construct");
    if (it == c->methods.end()) continue;
    const FunctionInfo& f = *it->second;
    const Node* args = field(*f.def, "args");
    if (!args) continue;
    std::vector<const Node*> pos;
    for (const char* key : {"posonlyargs", "args"})
      if (const Node* a = field(*args, key))
        for (const auto& x : *a) pos.push_back(&x);
    std::vector<std::pair<const Node*, const Node*>> with_default;
    if (const Node* d = field(*args, "defaults"))
      for (size_t i = 0; i < d->size() && i < pos.size(); ++i) with_default.push_back({pos[pos.size() - d->size() + i], &(*d)[i]});
    if (const Node* kwd = field(*args, "kw_defaults")) {
      const Node* kwo = field(*args, "kwonlyargs");
      for (size_t i = 0; kwo && i < kwd->size() && i < kwo->size(); ++i)
        if (!(*kwd)[i].is_null()) with_default.push_back({&(*kwo)[i], &(*kwd)[i]});
    }
    for (const auto& [a, d] : with_default) {
      if (!is(*d, "Constant") || str_field(*d, "vk") != "None") continue;
      std::string nm = str_field(*a, "arg");
      ctx.report("MS-L015", *f.file, *a, Severity::Warning, Severity::Warning,
                 "construct parameter '" + nm + "' of " + c->name +
                     " defaults to None: export needs every input, and a None input is frozen into the graph",
                 "make '" + nm + "' a required input (pass a real tensor, e.g. an all-ones mask), or export a Cell "
                 "whose construct has no optional inputs");
    }
  }
}

}  // namespace ms::lint
