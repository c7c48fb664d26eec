// Small helpers shared by the rule files.
#pragma once
#include <string>

#include "lint/rule.h"

namespace ms::lint {

// "Net.construct" / "helper" for messages.
inline std::string where(const FunctionInfo& f) { return f.cls ? f.cls->name + "." + f.name : f.name; }

// The positional argument i of a call, or nullptr.
inline const Node* arg(const Node& call, size_t i) {
  const Node* a = field(call, "args");
  return a && i < a->size() ? &(*a)[i] : nullptr;
}
// The keyword argument `name` of a call, or nullptr.
inline const Node* kwarg(const Node& call, const char* name) {
  const Node* kws = field(call, "keywords");
  if (!kws) return nullptr;
  for (const auto& k : *kws)
    if (str_field(k, "arg") == name) return field(k, "value");
  return nullptr;
}
// The name a builtin call uses (`len` for len(x)) when the name is not rebound by an import.
inline std::string builtin_name(const FunctionInfo& f, const Node& call) {
  const Node* fn = field(call, "func");
  if (!fn || !is(*fn, "Name")) return "";
  std::string n = name_of(*fn);
  return f.file->aliases.count(n) ? "" : n;
}

}  // namespace ms::lint
