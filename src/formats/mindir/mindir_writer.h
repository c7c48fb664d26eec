// IR -> MindIR, in the form MindSpore's exporter writes (mind_ir_version 1 conventions:
// `REF::<Prim>:<id>` op types, a primitives list, per-node `shape` abstracts, Constant nodes before
// their first use, one graph output, parameters `<graph>:<name>` with raw_data).
#pragma once
#include <cstdint>
#include <set>
#include <string>

#include "core/graph.h"

namespace ms::mindir {

struct WriteOptions {
  // Parameters totalling more than this are written split: `<prefix>_graph.mindir` plus
  // `<prefix>_variables/data_0` (64-byte header, 64-byte aligned, zero padded), as MindSpore does.
  uint64_t split_threshold = uint64_t(1) << 30;
  std::string model_version = "2.2.0";  // the MindSpore version whose conventions the file follows
};

// The serialized ModelProto with inline weights. Fails (exit 3) listing every op without a primitive.
std::string export_mindir_bytes(const Model& model, const WriteOptions& opts = {});

// Writes `path` atomically (tmp + rename). Returns the path of the graph file actually written:
// `path` itself, or `<prefix>_graph.mindir` when the weights are split.
std::string save_mindir(const Model& model, const std::string& path, const WriteOptions& opts = {});

// Op types of the model's nodes that cannot be written (no primitive, or an irregular form of a
// mapped op such as a 1-D Conv); empty when the whole model can be written.
std::set<std::string> mindir_unsupported_ops(const Model& model);

// IR ops that have a mapping to a MindSpore primitive; for `onnx2ms --check`.
bool mindir_can_export_op(const std::string& domain, const std::string& op_type);

}  // namespace ms::mindir
