// Locating the first divergence: the first paired tensor (topological order of the model under
// test) that fails the tolerance while every paired tensor it is computed from passes.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/compare.h"

namespace ms::analysis {

// The part of `g` that computes `tensor` from the nearest tensors in `known`: the nodes in between
// (topological order) and those nearest known tensors. Graph inputs and constants end the walk too.
struct Upstream {
  std::vector<size_t> nodes;
  std::vector<std::string> frontier;
};
Upstream upstream_of(const Graph& g, const std::string& tensor, const std::set<std::string>& known);

std::optional<Divergence> find_divergence(const Model& model, const Model& ref, const std::vector<LayerResult>& layers);

}  // namespace ms::analysis
