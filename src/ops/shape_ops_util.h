// Helpers shared by the shape and data-movement ops (Reshape, Slice, Pad, Transpose, Gather, ...).
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ops/kernel_util.h"

namespace ms {

// Output of shape [axis_offsets[0].size(), axis_offsets[1].size(), ...] where element (o0, o1, ...)
// is input element sum_d axis_offsets[d][o_d] (linear offset contributions). A contribution of -1
// on any axis writes `fill` (a one-element tensor of the input dtype) or, without one, zero / "".
Tensor gather_by_axis_offsets(const Tensor& in, const std::vector<std::vector<int64_t>>& axis_offsets,
                              const Tensor* fill = nullptr);

// A slice start:end:step (numpy semantics, negative indices from the end) clamped to a dim of
// size `dim`: {first index, element count}.
// Reshape's output shape for input shape `in` and shape input `spec` (0 copies the input's dim unless
// `allowzero`, -1 is inferred); an error names the node when it does not fit.
Shape reshape_target(const Shape& in, const std::vector<int64_t>& spec, bool allowzero, const Node& node);
std::pair<int64_t, int64_t> clamp_slice(int64_t start, int64_t end, int64_t step, int64_t dim);

// normalize_axis for indexing a dim: also rejects every axis of a rank-0 tensor.
int64_t axis_index(int64_t axis, int64_t rank, const Node& node);

// Validates an output shape before the per-axis offset tables are built: no negative dims, no
// overflow, and a size the reference kernels can hold. Error names the node.
void check_output_shape(const Shape& s, const Node& node);

// `in` viewed as `view_shape` (same element count), axes permuted: out axis d = view axis perm[d].
Tensor permute_copy(const Tensor& in, const Shape& view_shape, const std::vector<int64_t>& perm);

// Copies n elements src[src_off..] -> dst[dst_off..] (any dtype incl. string).
void copy_elements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t n);

// A one-element tensor of dtype `dt` holding `v` (numeric dtypes and bool).
Tensor scalar_of_dtype(DType dt, double v);

// The static shape of a tensor type when its rank and every dim are known.
std::optional<Shape> known_shape(const TypeInfo& t);
// Input i of an inference context as an int64 list when it is a constant.
std::optional<std::vector<int64_t>> const_ints(const InferContext& ctx, size_t i);
// ONNX moved several attributes to inputs (axes, pads, split, starts...): the input's values when
// present, else the attribute's when set, else nullopt. In inference an input that is present but
// not constant also gives nullopt (with *unknown set).
std::optional<std::vector<int64_t>> ints_input_or_attr(const KernelContext& ctx, size_t i, const std::string& attr);
std::optional<std::vector<int64_t>> ints_input_or_attr(const InferContext& ctx, size_t i, const std::string& attr,
                                                       bool* unknown);

// The element count of 1-D input i when its length is known (e.g. a non-constant shape input).
std::optional<int64_t> static_length(const InferContext& ctx, size_t i);

// Dims of a static shape.
std::vector<Dim> dims_of(const Shape& s);

}  // namespace ms
