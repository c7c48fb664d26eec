// Tensor slicing/joining along one axis, shared by the control-flow and sequence ops (Loop and Scan
// stack per-iteration outputs, Scan slices its inputs, Split/ConcatFromSequence).
#pragma once
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

// t[..., start:start+len, ...] along `axis` (axis kept).
Tensor slice_axis(const Tensor& t, int64_t axis, int64_t start, int64_t len);
// t[..., idx, ...] with `axis` removed.
Tensor take_axis(const Tensor& t, int64_t axis, int64_t idx);
// Joins tensors along an existing axis; all other dims and the dtype must agree.
Tensor concat_axis(const std::vector<Tensor>& ts, int64_t axis, const std::string& who);
// Joins equally shaped tensors along a new axis inserted at `axis` (in [0, rank]).
Tensor stack_axis(const std::vector<Tensor>& ts, int64_t axis, const std::string& who);
// Value of a one-element bool (or numeric) tensor, e.g. If/Loop conditions.
bool scalar_truth(const Tensor& t, const std::string& who);
// Sequence type with the given element dtype and unknown element shape.
TypeInfo sequence_type(DType elem);

}  // namespace ms
