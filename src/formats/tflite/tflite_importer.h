// TFLite flatbuffer (.tflite) -> IR. The buffer is verified with FlatBuffers' Verifier before
// anything reads it. Subgraph 0 is imported; images stay NHWC at the graph boundary and run NCHW
// inside (layout Transposes cancel between consecutive layout-sensitive ops). Quantized tensors
// become QDQ IR: constants are stored quantized behind DequantizeLinear, quantized activations get
// QuantizeLinear -> DequantizeLinear with their scale and zero point, so float kernels compute
// what TFLite's integer kernels compute to within rounding.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::tflite_format {

// keep_layout (`--keepLayout`): every tensor keeps the file's NHWC layout and name; the layout
// Transposes around the channels-first ops stay.
Model load_tflite(const std::string& path, bool keep_layout = false);
Model import_tflite_bytes(std::shared_ptr<const std::string> bytes, const std::string& source_path, bool keep_layout = false);

}  // namespace ms::tflite_format
