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

// The type one sample of raw .bin data for a model input is read as: the input's own type when its
// shape is static; when the leading (batch) dim is its only dynamic dim, that dim set to 1 (said once
// on stderr per input and shape). Any other dynamic dim, an unknown rank or a non-tensor/string input
// is an error (exit 2) naming the input and --inputShape.
TypeInfo bin_sample_type(const std::string& path, const TypeInfo& expected, const std::string& input_name);

// Raw bytes shaped by the model input's type (bin_sample_type). When the input's only dynamic dim
// is the leading one, a file of N samples back to back is read as one batch of N.
Tensor read_bin(const std::string& path, const TypeInfo& expected, const std::string& input_name);

// bfloat16 data stored as uint16 bits (NumPy and ONNX test data have no bfloat16) is read back
// as bfloat16 when the model expects bfloat16.
Tensor adapt_bfloat16_bits(const Tensor& t, const TypeInfo& expected);

// Dispatches on the extension (.npy, .pb, anything else is raw).
Value read_tensor_file(const std::string& path, const TypeInfo& expected, const std::string& input_name);

}  // namespace ms::io
