// Rule family 6: target support (MC-TARGET-001) and the "Supported ops: N/M" summary.
#include <fmt/format.h>

#include <map>
#include <set>

#include "check/check.h"

namespace ms::check {

void check_target(Context& ctx) {
  std::map<std::string, bool> ops;  // op name -> supported
  for_each_graph(ctx.model.graph, [&](const Graph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      std::string name = op_name(n);
      auto it = ops.find(name);
      bool ok = it != ops.end() ? it->second : target_supports(ctx.opts.target, n.domain, n.op_type);
      ops[name] = ok;
      // Unknown operators are reported once, by MC-OP-001/002, not again here.
      if (!ok && !ctx.node_has_error(g, i))
        ctx.node_finding("MC-TARGET-001", g, i,
                         fmt::format("{} is not supported by target {}", name, target_name(ctx.opts.target)));
    }
  });
  TargetSummary s;
  s.total = static_cast<int>(ops.size());
  for (const auto& [name, ok] : ops) {
    if (ok) ++s.supported;
    else s.unsupported.push_back(name);
  }
  ctx.target_summary = std::move(s);
}

}  // namespace ms::check
