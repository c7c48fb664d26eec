// The passes of `--optimize basic`, `--fp16 on` and half-precision lowering, each in its own file. They rewrite the IR in
// place and return what they did (a count) so that callers can report it.
#pragma once
#include <cstddef>
#include <set>
#include <string>

#include "core/graph.h"

namespace ms::passes {

// Runs every node whose inputs are all constants with its reference kernel and replaces it by
// initializers (Constant nodes become initializers too). Random and control-flow ops are kept.
size_t fold_constants(Model& m);
// Removes nodes whose outputs nobody uses and initializers no node or output refers to.
size_t remove_dead_nodes(Model& m);
// Stores float32 weights as float16 initializers followed by a Cast back to float32.
size_t weights_to_fp16(Model& m);
// Every float16/bfloat16 value inside the graph becomes float32 (weights widened, Cast targets
// retargeted); half-precision graph inputs and outputs keep their types through boundary Casts.
// Returns the changes (0: the model had no half-precision values).
size_t lower_half_precision(Model& m);
// The half-precision compute form: every node whose op computes in `half` (Float16 or BFloat16) as
// in float32 (kTraitHalfCompute), except those named in `keep_float32`, reads and writes `half`
// values, its float32 weights stored in `half`; Casts join it to the float32 nodes and to the
// graph's inputs and outputs, which keep float32. Returns the number of half nodes.
size_t to_half_compute_form(Model& m, DType half, const std::set<std::string>& keep_float32 = {});
// `basic` = fold_constants, then remove_dead_nodes (folding leaves the folded inputs dead).
void run_basic_pipeline(Model& m);

}  // namespace ms::passes
