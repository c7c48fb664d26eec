// MindIR -> IR for every generation MindSpore has written: legacy 0.1.0 (ref_attr_name attributes),
// mind_ir_version 1 (primitives list), 2/3 (primitive-function inputs); framework nodes
// (Load/UpdateState/Depend/MakeTuple/TupleGetItem); Lite *Fusion primitives; split weights
// (external_data and the legacy `_variables` GraphProto files); linear-quant weights.
#pragma once
#include <string>

#include "core/graph.h"

namespace ms::mindir {

Model load_mindir(const std::string& path);
// `source_path` names the file in messages and anchors external data.
Model import_mindir_bytes(const std::string& bytes, const std::string& source_path);

// True when the first bytes are one of MindSpore's encryption magics (AES-GCM/CBC, SM4-CBC).
bool is_encrypted_mindir(const std::string& head, std::string* mode = nullptr);

}  // namespace ms::mindir
