// Exports of IR ops in forms no single MindSpore primitive holds (an operand computed at run time
// where the primitive wants a constant attribute, outputs the primitive does not return, training
// semantics): each is written as a composition of MindSpore primitives that the reader maps back
// one by one, so the numbers stay those of the original op.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// Squeeze / Unsqueeze whose axes are a tensor computed at run time: Reshape to a computed shape.
void export_squeeze_runtime_axes(WriteCtx& c);
void export_unsqueeze_runtime_axes(WriteCtx& c);
// Split whose sizes are a tensor computed at run time: one StridedSlice per output.
void export_split_runtime_sizes(WriteCtx& c, int64_t axis);
// BatchNormalization with training_mode=1: batch statistics and the running-stat updates.
void export_batch_norm_training(WriteCtx& c);
// Dropout that returns its mask, or whose training_mode is an input.
void export_dropout_general(WriteCtx& c);
// LayerNormalization that also returns Mean / InvStdDev.
void export_layer_norm_with_stats(WriteCtx& c);
// MaxPool with an Indices output: MaxPoolWithArgmaxV2 plus the ONNX flattening of the indices.
void export_max_pool_with_indices(WriteCtx& c);

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (= the same over LogSoftmax(scores, 1)):
// GatherD of the target class, weights, ignore_index masking and the reduction, in primitives.
void export_nll_loss(WriteCtx& c);
void export_softmax_cross_entropy(WriteCtx& c);

// Hardmax = OneHot(first argmax along axis); Shrink and Compress as selects and gathers.
void export_hardmax(WriteCtx& c);
void export_shrink(WriteCtx& c);
void export_compress(WriteCtx& c);
// ArgMaxWithValue(x){axis, keep_dims} -> (index int32, value), read back.
RVal import_arg_max_with_value(ReadCtx& c);

// If(cond){then_branch, else_branch} -> Switch(cond, then_fg, else_fg) and a call of its result,
// with the branches as function graphs: MindSpore's form of a conditional.
void export_if(WriteCtx& c);

// Loop(M, cond, v...){body} -> MindSpore's form of a loop, tail recursion over function graphs:
//   header(i, c, v..., acc...) = Switch(c and i < M, body, exit)()
//   body() = header(i + 1, cond_out, v_out..., concat(acc, [scan_out])...)   (the ONNX body inline)
//   exit() = (v..., acc...)
// and the Loop itself a call header(0, cond, v..., empty...). Scan outputs are accumulated in the
// state, so their element shapes must be known.
void export_loop(WriteCtx& c);

}  // namespace ms::mindir
