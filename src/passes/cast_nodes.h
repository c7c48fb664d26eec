// Small graph edits shared by the precision passes (half-precision lowering, the half-precision
// compute form), which insert Casts outside the pattern rewriter.
#pragma once
#include <set>
#include <string>

#include "core/graph.h"

namespace ms::passes {

// A Cast node `name` from `in` to `out` with `to` as its target type.
Node cast_node(const std::string& name, const std::string& in, const std::string& out, DType to);
// `base`, or `base_1`, `base_2`, ... : the first not in `taken`, which it joins.
std::string fresh_name(const std::string& base, std::set<std::string>& taken);

}  // namespace ms::passes
