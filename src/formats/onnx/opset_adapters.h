// The per-operator rewrites of the opset-13 upgrade (opset_upgrade_steps.cc says which op version
// each one produces). Each takes the node in the form of the version before and leaves the form of
// the version it is registered for.
#pragma once
#include "formats/onnx/opset_upgrade_ctx.h"

namespace ms::onnx_format::adapters {

// opset_adapters_inputs.cc: attributes that became inputs
void clip_11(Node& n, UpgradeCtx& c);
void slice_10(Node& n, UpgradeCtx& c);
void pad_2(Node& n, UpgradeCtx& c);
void pad_11(Node& n, UpgradeCtx& c);
void topk_10(Node& n, UpgradeCtx& c);
void axes_to_input_13(Node& n, UpgradeCtx& c);  // Squeeze, Unsqueeze, ReduceSum
void split_2(Node& n, UpgradeCtx& c);
void split_13(Node& n, UpgradeCtx& c);
void reshape_5(Node& n, UpgradeCtx& c);
void dropout_10(Node& n, UpgradeCtx& c);
void dropout_12(Node& n, UpgradeCtx& c);

// opset_adapters_broadcast.cc: opset < 7 broadcasting
void legacy_broadcast_7(Node& n, UpgradeCtx& c);  // Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less
void gemm_7(Node& n, UpgradeCtx& c);
void prelu_7(Node& n, UpgradeCtx& c);

// opset_adapters_softmax.cc: Softmax, LogSoftmax, Hardmax from 2-D coercion to one axis
void softmax_13(Node& n, UpgradeCtx& c);

// opset_adapters_resize.cc
void upsample_to_resize(Node& n, UpgradeCtx& c);  // any Upsample -> Resize-13
void resize_11(Node& n, UpgradeCtx& c);

// opset_adapters_legacy.cc: removed attributes and renamed operators
void drop_consumed_inputs(Node& n, UpgradeCtx& c);
void cast_6(Node& n, UpgradeCtx& c);
void concat_4(Node& n, UpgradeCtx& c);
void batch_norm_7(Node& n, UpgradeCtx& c);
void batch_norm_9(Node& n, UpgradeCtx& c);
void dropout_7(Node& n, UpgradeCtx& c);
void lp_pool_2(Node& n, UpgradeCtx& c);
void recurrent_7(Node& n, UpgradeCtx& c);  // RNN, GRU, LSTM
void scatter_to_scatter_elements(Node& n, UpgradeCtx& c);

}  // namespace ms::onnx_format::adapters
