// IR ops written with MindSpore's own primitives and attribute names, where the MindSpore primitive
// is narrower than the ONNX op (TopK only on the last axis and only the largest, OneHot without
// negative indices, resize with a fixed output size and two flags), and read back from those forms.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// TopK(x, k) -> MindSpore TopK(x, k){sorted} on the last axis, with Transpose / Neg around it for
// another axis or the smallest elements; indices (int32 in MindSpore) cast back to int64.
void export_top_k(WriteCtx& c);
RVal import_top_k(ReadCtx& c);

// OneHot(indices, depth, values){axis} -> MindSpore OneHot(indices, depth, on_value, off_value){axis}.
void export_one_hot(WriteCtx& c);

// Resize -> ResizeBilinearV2 / ResizeNearestNeighborV2(x, size){align_corners, half_pixel_centers}
// when the output size is static and the coordinate rule is one of those the flags express;
// otherwise the generic form (ONNX attributes under MindSpore Lite's Resize).
void export_resize(WriteCtx& c);
RVal import_resize_v2(ReadCtx& c, bool bilinear);

// Hann / Hamming / Blackman windows -> MindSpore HammingWindow(length){periodic, alpha, beta, dtype}
// (Hann is alpha = beta = 0.5) and BlackmanWindow(length){periodic, dtype}; read back to the ONNX op
// when alpha/beta are those of an ONNX window.
void export_window(WriteCtx& c);
RVal import_window(ReadCtx& c, bool blackman);

// LSTM (forward, default activations, no peepholes/clip/sequence lengths, constant weights) ->
// MindSpore LSTM(x, h, c, w){input_size, hidden_size, num_layers, has_bias, bidirectional, dropout}
// with the flat weight [W_ih; W_hh; b_ih; b_hh] in MindSpore's gate order i, f, g, o; other forms
// keep the generic one. (Read back by import_ms_lstm in the mapping table.)
void export_lstm(WriteCtx& c);

}  // namespace ms::mindir
