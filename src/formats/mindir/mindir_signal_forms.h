// DFT and STFT with MindSpore's complex FFT primitives (2.x FFT / IFFT / RFFT(input, n, dim, norm),
// Complex(real, imag), Real, Imag). ONNX holds a complex tensor as a real one with a last dimension
// [real, imag]; the writer converts between the two layouts with Gather / ExpandDims / Concat, and
// the reader reads a MindSpore complex value back in ONNX's layout (Complex = stacking the parts,
// Real / Imag = picking one), so each primitive maps back on its own.
#pragma once
#include "formats/mindir/mindir_ops.h"

namespace ms::mindir {

// DFT(x[, dft_length[, axis]]){axis, inverse, onesided} -> RFFT (real input, onesided) or FFT / IFFT
// of Complex(re, im) along the axis, n = dft_length; the result split back into [real, imag].
void export_dft(WriteCtx& c);
// STFT(signal, frame_step[, window][, frame_length]){onesided}: frames gathered at i * frame_step
// (their count computed at run time), weighted by the window, transformed by RFFT / FFT on the last
// axis. MindSpore's own STFT primitive takes frame sizes as attributes; ONNX's may be run-time
// tensors, which this form keeps.
void export_stft(WriteCtx& c);

RVal import_complex(ReadCtx& c);
RVal import_complex_part(ReadCtx& c, int64_t part);  // Real 0, Imag 1
RVal import_fft(ReadCtx& c, bool inverse, bool real_input);

}  // namespace ms::mindir
