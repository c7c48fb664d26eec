// Conversions between ONNX protobuf messages (TensorProto, TypeProto) and the IR.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "core/graph.h"

namespace ms::onnx_format {

// `base_dir` resolves external data (locations must stay inside it); empty = external data refused.
// `what` names the tensor's origin in messages (file and initializer name).
Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what);
void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p);

TypeInfo type_from_proto(const onnx::TypeProto& p);
void type_to_proto(const TypeInfo& t, onnx::TypeProto* p);

}  // namespace ms::onnx_format
