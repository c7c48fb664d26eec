// IR ops whose MindSpore primitive returns or takes indices in another convention than ONNX, written
// as that primitive plus the index arithmetic (in MindSpore primitives) that bridges the two, and
// read back so that the round trip computes the ONNX op exactly.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// MaxUnpool(X, I[, output_shape]) -> MaxUnpool2D / MaxUnpool3D(x, argmax){ksize, strides, pads,
// output_shape, data_format}. ONNX's I is flat over the whole default output N*C*spatial (and an
// explicit output_shape keeps each element's spatial coordinates); MindSpore's argmax is flat
// within each (n, c) plane of the final output. The writer emits FloorMod and the coordinate
// remapping before the primitive; the reader adds the plane offsets back.
void export_max_unpool(WriteCtx& c);
RVal import_max_unpool(ReadCtx& c, int sp);

// Unique(X){sorted, axis} -> MindSpore 2.x Unique2(x, sorted, return_inverse, return_counts) on the
// flattened input, or UniqueDim(x, sorted, return_inverse, dim) with an axis; both return the sorted
// (output, inverse_indices, counts). ONNX's first-occurrence `indices` and the unsorted order are
// computed from the inverse indices with compare/reduce primitives.
void export_unique(WriteCtx& c);
RVal import_unique2(ReadCtx& c);
RVal import_unique_dim(ReadCtx& c);

}  // namespace ms::mindir
