// Known defects of the installed ONNX backend test data (ONNX 1.12), corrected in the model before
// a case runs so that the case still checks the operator against ONNX's expected outputs instead of
// being listed as an expected failure.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::conformance {

struct DeclaredShapeFix {
  const char* case_name;  // "suite/test_name"
  const char* input;
  std::vector<int64_t> shape;
};

// ONNX 1.12's castlike.py declared input 'like' with the output's type ([3,4]) while its data is
// the output's first element ([1]); ONNX fixed the declaration in onnx/onnx#4684.
inline const std::vector<DeclaredShapeFix>& declared_shape_fixes() {
  static const std::vector<DeclaredShapeFix> fixes = {
      {"node/test_castlike_BFLOAT16_to_FLOAT", "like", {1}},
      {"node/test_castlike_BFLOAT16_to_FLOAT_expanded", "like", {1}},
      {"node/test_castlike_FLOAT_to_BFLOAT16", "like", {1}},
      {"node/test_castlike_FLOAT_to_BFLOAT16_expanded", "like", {1}},
  };
  return fixes;
}

inline bool has_data_defect(const std::string& case_name) {
  for (const auto& f : declared_shape_fixes())
    if (case_name == f.case_name) return true;
  return false;
}

// Applies the case's fixes to the model's graph inputs; a fix naming no input of the model is a
// stale table entry and throws, so that a changed test data set cannot silently skip it.
inline void fix_data_defects(const std::string& case_name, Model& m) {
  for (const auto& f : declared_shape_fixes()) {
    if (case_name != f.case_name) continue;
    bool found = false;
    for (auto& in : m.graph.inputs) {
      if (in.name != f.input) continue;
      std::vector<Dim> dims;
      for (int64_t d : f.shape) dims.push_back(Dim::fixed(d));
      in.type.shape = dims;
      found = true;
    }
    if (!found) throw std::runtime_error(std::string("data_defects.h: no input '") + f.input + "' in " + case_name);
  }
}

}  // namespace ms::conformance
