// The project's own operator domain: fused ops and quantized ops that ONNX has no (opset-17) op
// for. Exported to ONNX under this domain at version kMsDomainVersion.
#pragma once

namespace ms {

inline constexpr const char* kMsDomain = "com.mstools";
inline constexpr int kMsDomainVersion = 1;

}  // namespace ms
