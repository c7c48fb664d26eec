// Tensor files: NumPy .npy, ONNX TensorProto .pb, and raw little-endian .bin.
#pragma once
#include <optional>
#include <string>

#include "core/graph.h"
#include "core/value.h"

namespace ms::io {

Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& t);  // temporary file + rename
std::string npy_bytes(const Tensor& t);
Tensor parse_npy(const std::string& bytes, const std::string& what);

// TensorProto, or (for sequence/optional test data) SequenceProto/OptionalProto when `expected`
// says the value is a sequence or optional.
Value read_pb(const std::string& path, const TypeInfo* expected = nullptr);

// Raw bytes shaped by the model input's type; the type must be a tensor with a static shape.
Tensor read_bin(const std::string& path, const TypeInfo& expected, const std::string& input_name);

// bfloat16 data stored as uint16 bits (NumPy and ONNX test data have no bfloat16) is read back
// as bfloat16 when the model expects bfloat16.
Tensor adapt_bfloat16_bits(const Tensor& t, const TypeInfo& expected);

// Dispatches on the extension (.npy, .pb, anything else is raw).
Value read_tensor_file(const std::string& path, const TypeInfo& expected, const std::string& input_name);

}  // namespace ms::io
