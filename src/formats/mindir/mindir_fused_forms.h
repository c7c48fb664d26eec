// The project's fused ops (com.mstools FusedConv / FusedGemm / FusedMatMul / Gelu /
// MultiHeadAttention / DetectionPostProcess, what `ms optimize` produces) as MindSpore Lite writes
// its fused graphs: Conv2DFusion / MatMulFusion / AddFusion carrying the activation as
// `activation_type` (a residual input becomes a separate AddFusion), GeLU, DetectionPostProcess.
// An activation with parameters that Lite's enum cannot hold is written as its own primitive after
// the core one; attention is decomposed into BatchMatMul / Softmax primitives. The Lite import rules
// (mindir_lite_import.cc) read the *Fusion forms back; DetectionPostProcess is read here.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

void export_fused_conv(WriteCtx& c);
void export_fused_gemm(WriteCtx& c);
void export_fused_mat_mul(WriteCtx& c);
void export_ms_gelu(WriteCtx& c);
void export_multi_head_attention(WriteCtx& c);
void export_detection_post_process(WriteCtx& c);
RVal import_detection_post_process(ReadCtx& c);

}  // namespace ms::mindir
