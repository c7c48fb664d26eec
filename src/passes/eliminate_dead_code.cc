// eliminate_dead_code: nodes none of whose outputs reach a graph output, then initializers that
// nothing reads (the `basic` pass remove_dead_nodes does both).
#include "passes/basic_passes.h"
#include "passes/pass_list.h"

namespace ms::passes {

std::unique_ptr<Pass> make_eliminate_dead_code() {
  return std::make_unique<FunctionPass>(
      "eliminate_dead_code", "dead nodes and unused initializers", [](Rewriter& rw, const PassContext&, PassStats& stats) {
        const size_t inits = rw.graph().initializers.size();
        stats.rewrites += remove_dead_nodes(rw.model());
        stats.rewrites += inits - rw.graph().initializers.size();
        rw.reindex();
      });
}

}  // namespace ms::passes
