// Optimizing the bodies of If/Loop/Scan: each body is run through the same pipeline as the main
// graph, as a stand-alone model whose inputs are its own inputs plus the outer values it reads
// (typed by the outer graph's inference) and whose initializers include the outer constants it
// reads (so that folding and weight fusions see them). Those additions are taken out again, so
// the body reads the outer scope as before. Nested bodies are handled recursively.
#pragma once
#include <functional>

#include "core/graph.h"

namespace ms::passes {

// `run_pipeline(model)` optimizes one stand-alone body model and returns its rewrite count.
// Returns the rewrites made in all bodies.
size_t optimize_subgraphs(Model& m, const std::function<size_t(Model&)>& run_pipeline);

}  // namespace ms::passes
