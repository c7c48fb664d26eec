// IR -> ONNX ModelProto. Writes the canonical form the importer produced (opset 17 for upgraded
// models), every initializer with raw_data, value_info, subgraphs and metadata.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "core/graph.h"

namespace ms::onnx_format {

void export_onnx(const Model& model, onnx::ModelProto* out);
std::string export_onnx_bytes(const Model& model);

}  // namespace ms::onnx_format
