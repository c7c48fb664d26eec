// TensorFlow DataType codes and TensorProto values -> IR dtypes and tensors.
#pragma once
#include <string>

#include "core/tensor.h"
#include "tf_graph.pb.h"

namespace ms::tf_format {

// Undefined for types the IR has no equivalent of (complex, resource, variant).
DType dtype_from_tf(int tf_type);
// `where` names the node for messages. Typed *_val fields with fewer values than the shape holds
// repeat their last value, as TensorFlow does.
Tensor tensor_from_proto(const ms_tf::TensorProto& p, const std::string& where);

}  // namespace ms::tf_format
