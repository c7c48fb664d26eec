// Which tensor of the model under test stands for which tensor of the reference model.
//
// Two tensors pair when they stand for the same original tensor: the same name, or the same root
// through each model's Model::metadata["ms.tensor_origin"] (core/tensor_origin.h). Tensors left
// unpaired by names are then matched by structure: a node of each model with the same operator
// whose tensor inputs are already paired (or are the same graph input) computes the same thing, so
// its outputs pair too. That covers importers that name a tensor after the operator that made it.
// Graph outputs left unpaired pair by position, as the outputs themselves are compared.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::analysis {

enum class PairedBy { Name, Origin, Output, Structure };
std::string_view paired_by_name(PairedBy p);

struct TensorPair {
  std::string name;      // in the model under test
  std::string ref_name;  // in the reference model
  size_t node = 0;       // producing node in the model under test (main graph index)
  size_t ref_node = 0;   // producing node in the reference
  PairedBy by = PairedBy::Name;
};

// The node outputs of the main graphs that pair, in the topological order of the model under test.
std::vector<TensorPair> pair_tensors(const Model& model, const Model& ref);

}  // namespace ms::analysis
