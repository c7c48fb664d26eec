// The IR's sequences of tensors as MindSpore 2.x dynamic-length lists (abstract: LIST with
// seq_info.is_dyn_len = true and the element abstract in seq_info.tuple_elem_item), with the list
// primitives of mindspore/core (base/sequence_ops.h) and ops/operations/_sequence_ops.py:
//   SequenceConstruct(x...)        -> make_list(x...)
//   SequenceEmpty{dtype}           -> make_list()             (element dtype in the node's abstract)
//   SequenceInsert(s, t)           -> ListAppend(s, t)
//   SequenceInsert(s, t, pos)      -> ListInsert(s, pos, t)   (pos: Constant INT64, or TensorToScalar)
//   SequenceAt(s, pos)             -> list_getitem(s, pos)    (same index forms)
//   SequenceLength(s)              -> ScalarToTensor(sequence_len(s), int64)
// Graph inputs and outputs that are sequences are written with the LIST abstract (attr_info). The
// reader maps each primitive back to the IR op it came from. Optional values stay refused: MindSpore
// fixes the type of every value (a tensor, or None) when it compiles the graph.
#pragma once
#include <functional>
#include <vector>

#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// A graph input/output type the writer can express: a tensor (or unknown) or a sequence of tensors.
bool sequence_type_writable(const TypeInfo& t);
// The IR type of a dynamic-length list abstract (a sequence of the element's tensor type).
TypeInfo sequence_type_of(const Abstract& list);

// SequenceMap as ONNX's own function body defines it, which MindSpore can hold: a Loop over the
// length of input 0 whose body takes element i of each sequence input (SequenceAt), runs the map's
// body on it and appends each result (SequenceInsert) to the output lists, which start empty
// (SequenceEmpty). The Loop's outputs keep the SequenceMap's output names. `is_seq` tells whether
// an IR value is a sequence.
std::vector<Node> expand_sequence_map(const Node& n, const std::function<bool(const std::string&)>& is_seq);

const std::vector<ExportRule>& sequence_export_rules();
const std::vector<ImportRule>& sequence_import_rules();

}  // namespace ms::mindir
