// Numeric equality of two models (the original and the optimized) on the same inputs: the check
// `ms optimize` runs before it writes anything.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/value.h"

namespace ms::passes {

// Seeded random feeds for the graph inputs (those with an initializer get its value): floats uniform in [-1, 1),
// integers in [0, 4), booleans fair. Dynamic dims take `input_shapes` (--inputShape), else 1.
std::vector<Value> seeded_inputs(const Model& m, uint32_t seed, const std::map<std::string, std::vector<int64_t>>& input_shapes);

struct OutputDiff {
  std::string name;
  double rel_error = 0;  // max |a - b| / max |a| (max |a - b| when a is all zero); worst element of a sequence
  std::string problem;   // kind/shape/dtype/length mismatch; "" when comparable
};

// True when some node (subgraphs included) is a random op: its outputs differ run to run, so two
// runs cannot be compared.
bool has_random_ops(const Model& m);

// Runs both models with the reference kernels on `feeds` and compares the outputs in order.
std::vector<OutputDiff> compare_outputs(const Model& reference, const Model& candidate, const std::vector<Value>& feeds);
// Same with the reference outputs already computed.
std::vector<OutputDiff> compare_outputs(const std::vector<Value>& reference_outputs, const Model& candidate,
                                        const std::vector<Value>& feeds, const std::vector<ValueInfo>& names);
std::vector<Value> run_reference(const Model& m, const std::vector<Value>& feeds);

// "" when every output is within `tol`; else a message naming the outputs beyond it.
std::string describe_differences(const std::vector<OutputDiff>& diffs, double tol);

}  // namespace ms::passes
