// TFLite sparse tensors (SparsityParameters: traversal order, block map, per-level dense or CSR
// metadata) expanded into dense row-major tensors.
#pragma once
#include "core/tensor.h"
#include "tflite_schema_generated.h"

namespace ms::tflite_format {

// `values` holds the stored (non-zero) elements in traversal order; `shape` is the dense shape.
Tensor densify(const mstflite::SparsityParameters& sp, const Tensor& values, const Shape& shape, const std::string& where);

}  // namespace ms::tflite_format
