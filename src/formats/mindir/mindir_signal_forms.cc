#include "formats/mindir/mindir_signal_forms.h"

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

Abstract typed(DType dt) {
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  a.dtype = dt;
  return a;
}

DType dtype_in(WriteCtx& c, size_t i) {
  if (const Tensor* t = c.constant(c.node().inputs[i])) return t->dtype();
  return c.abstract(c.node().inputs[i]).dtype;
}

// Emits primitives with a declared dtype: the reader picks integer or float forms by it.
struct Typed {
  WriteCtx& c;
  DType dt;
  std::string op(const std::string& prim, std::vector<std::string> ins, Attrs a = {}) { return c.call(prim, a, ins, typed(dt)); }
};

// Input i (a scalar integer tensor) as a 0-d int64 value.
std::string int_scalar(WriteCtx& c, size_t i) {
  Emit e{c};
  if (const Tensor* t = c.constant(c.node().inputs[i]); t && t->numel() == 1) return e.i64(t->as_int64(0));
  Typed ti{c, DType::Int64};
  std::string v = ti.op("Reshape", {c.in(i), e.ints({})});
  return dtype_in(c, i) == DType::Int64 ? v : ti.op("Cast", {v, c.constant_node(MsValue::of_dtype(DType::Int64))});
}

// Part `k` (0 real, 1 imaginary) of an ONNX complex layout [..., 2]: the last axis dropped.
std::string part(WriteCtx& c, const std::string& x, int64_t k, DType dt) {
  Emit e{c};
  return c.call("Gather", {{"batch_dims", MsValue::of_int(0)}}, {x, e.i64(k), c.constant_node(MsValue::of_int(-1))}, typed(dt));
}

// A MindSpore complex value back to ONNX's [..., 2] layout.
std::string to_pairs(WriteCtx& c, const std::string& z, DType dt, const Abstract& out) {
  Typed t{c, dt};
  std::string minus1 = c.constant_node(MsValue::of_int(-1));
  std::string re = t.op("ExpandDims", {t.op("Real", {z}), minus1});
  std::string im = t.op("ExpandDims", {t.op("Imag", {z}), minus1});
  std::string tup = c.call("MakeTuple", {}, {re, im}, tuple_abs({typed(dt), typed(dt)}));
  return c.call("Concat", {{"axis", MsValue::of_int(-1)}, {"inputNums", MsValue::of_int(2)}}, {tup}, out);
}

// FFT-family call (input, n, dim, norm); norm None = "backward" (the inverse scaled by 1/n), as ONNX.
std::string fft(WriteCtx& c, const std::string& prim, const std::string& x, std::optional<int64_t> n, int64_t dim) {
  return c.call(prim, {}, {x, c.constant_node(n ? MsValue::of_int(*n) : MsValue::none()), c.constant_node(MsValue::of_int(dim)),
                          c.constant_node(MsValue::none())},
                Abstract{});
}

// The transform of signal parts (re[, im]) along `dim` (of the parts), as ONNX pairs.
std::string transform(WriteCtx& c, const std::string& re, const std::string& im, DType dt, std::optional<int64_t> n, int64_t dim,
                      bool inverse, bool onesided, const Abstract& out) {
  if (onesided && (inverse || !im.empty()))
    fail_unsupported("{}: a one-sided transform of complex input or an inverse one has no MindSpore FFT form", label(c));
  std::string z;
  if (onesided) {
    z = fft(c, "RFFT", re, n, dim);
  } else {
    std::string imag = im.empty() ? Typed{c, dt}.op("ZerosLike", {re}) : im;
    z = fft(c, inverse ? "IFFT" : "FFT", c.call("Complex", {}, {re, imag}, Abstract{}), n, dim);
  }
  return to_pairs(c, z, dt, out);
}

int64_t last_dim(WriteCtx& c, size_t i) {
  auto d = dims_of(c, i);
  if (d.empty() || (d.back() != 1 && d.back() != 2))
    fail_unsupported("{}: the signal needs a known last dimension of 1 (real) or 2 (complex) for MindIR", label(c));
  return d.back();
}

// A complex value as the reader holds it (ONNX pairs): a tensor of no declared dtype, so that the
// declared (complex) abstract of the MindSpore node is not taken for a real one.
Abstract complex_pairs() {
  Abstract a;
  a.kind = Abstract::Kind::Tensor;
  return a;
}

}  // namespace

void export_dft(WriteCtx& c) {
  int r = rank_of(c, 0);
  int64_t comps = last_dim(c, 0);
  DType dt = dtype_in(c, 0);
  int64_t axis = int_attr(c, "axis", 1);
  if (has_in(c, 2)) {
    auto a = const_ints(c, 2);
    if (!a || a->size() != 1) fail_unsupported("{}: a DFT axis computed at run time cannot be written to MindIR", label(c));
    axis = (*a)[0];
  }
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) fail("{}: DFT axis out of range for rank {}", label(c), r);
  std::optional<int64_t> n;
  if (has_in(c, 1)) {
    auto v = const_ints(c, 1);
    if (!v || v->size() != 1) fail_unsupported("{}: a dft_length computed at run time cannot be written to MindIR", label(c));
    n = (*v)[0];
  }
  std::string x = c.in(0);
  std::string re = part(c, x, 0, dt), im = comps == 2 ? part(c, x, 1, dt) : "";
  c.bind(out0(c), transform(c, re, im, dt, n, axis, int_attr(c, "inverse", 0) != 0, int_attr(c, "onesided", 0) != 0, out_abs(c)));
}

// frames[b, f, j] = signal[b, f * step + j] for f < (L - n) / step + 1, j < n; each times the window.
void export_stft(WriteCtx& c) {
  Emit e{c};
  Typed ti{c, DType::Int64};
  int64_t comps = last_dim(c, 0);
  DType dt = dtype_in(c, 0);
  auto sdims = dims_of(c, 0);
  if (sdims.size() != 3) fail_unsupported("{}: STFT needs a [batch, length, 1|2] signal of known rank for MindIR", label(c));
  std::string step = int_scalar(c, 1);
  std::string n;
  if (has_in(c, 3)) n = int_scalar(c, 3);
  else if (has_in(c, 2)) n = c.call("Gather", {{"batch_dims", MsValue::of_int(0)}}, {ti.op("TensorShape", {c.in(2)}), e.i64(0), c.constant_node(MsValue::of_int(0))}, typed(DType::Int64));
  else fail("{}: STFT needs a window or a frame_length", label(c));
  std::string len = sdims[1] >= 0 ? e.i64(sdims[1])
                                   : c.call("Gather", {{"batch_dims", MsValue::of_int(0)}},
                                            {ti.op("TensorShape", {c.in(0)}), e.i64(1), c.constant_node(MsValue::of_int(0))}, typed(DType::Int64));
  std::string frames = ti.op("Add", {ti.op("FloorDiv", {ti.op("Sub", {len, n}), step}), e.i64(1)});
  std::string starts = ti.op("Mul", {ti.op("Range", {e.i64(0), frames, e.i64(1)}), step});
  std::string offsets = ti.op("Range", {e.i64(0), n, e.i64(1)});
  std::string idx = ti.op("Add", {ti.op("Reshape", {starts, e.ints({-1, 1})}), ti.op("Reshape", {offsets, e.ints({1, -1})})});
  auto framed = [&](int64_t k) {
    std::string p = part(c, c.in(0), k, dt);
    std::string f = c.call("Gather", {{"batch_dims", MsValue::of_int(0)}}, {p, idx, c.constant_node(MsValue::of_int(1))}, typed(dt));
    return has_in(c, 2) ? Typed{c, dt}.op("Mul", {f, c.in(2)}) : f;
  };
  std::string re = framed(0), im = comps == 2 ? framed(1) : "";
  c.bind(out0(c), transform(c, re, im, dt, std::nullopt, -1, false, int_attr(c, "onesided", 1) != 0, out_abs(c)));
}

RVal import_complex(ReadCtx& c) {
  std::string axes = c.add_const(Tensor::from_vector<int64_t>({-1}, {1}), "axes");
  std::string re = c.add1("Unsqueeze", {c.tensor(0), axes}), im = c.add1("Unsqueeze", {c.tensor(1), axes});
  return RVal::tensor(c.add1("Concat", {re, im}, {{"axis", Attribute::of_int(-1)}}), complex_pairs());
}

RVal import_complex_part(ReadCtx& c, int64_t k) {
  return RVal::tensor(c.add1("Gather", {c.tensor(0), c.add_const(Tensor::scalar<int64_t>(k), "part")}, {{"axis", Attribute::of_int(-1)}}),
                      c.out_abstract());
}

// FFT / IFFT / RFFT(input, n, dim, norm) -> DFT in ONNX pairs; dims counted from the end shift by
// one for the pair axis. A complex input is a value this reader holds as pairs (no real dtype).
RVal import_fft(ReadCtx& c, bool inverse, bool real_input) {
  auto arg = [&](size_t i, const char* name) { return c.has_const_arg(i, name) ? c.const_arg(i, name) : MsValue::none(); };
  MsValue norm = arg(3, "norm");
  bool backward = norm.kind == MsValue::Kind::None || (norm.kind == MsValue::Kind::String && norm.s == "backward") ||
                  (norm.kind == MsValue::Kind::Int && norm.i == 0);
  if (!backward) fail_unsupported("{}: FFT norm {} is not supported (ONNX's DFT scales as \"backward\")", c.what(), norm.str());
  MsValue dimv = arg(2, "dim");
  int64_t dim = dimv.kind == MsValue::Kind::None ? -1 : dimv.as_int();
  if (dim < 0) dim -= 1;
  DType in = c.dtype(0);
  bool real = real_input || dtype_is_float(in);
  std::string x = c.tensor(0);
  if (real) x = c.add1("Unsqueeze", {x, c.add_const(Tensor::from_vector<int64_t>({-1}, {1}), "axes")});
  std::vector<std::string> ins{x};
  MsValue n = arg(1, "n");
  if (n.kind != MsValue::Kind::None) ins.push_back(c.add_const(Tensor::scalar<int64_t>(n.as_int()), "dft_length"));
  std::map<std::string, Attribute> a{{"axis", Attribute::of_int(dim)},
                                     {"inverse", Attribute::of_int(inverse)},
                                     {"onesided", Attribute::of_int(real_input && !inverse)}};
  return RVal::tensor(c.add1("DFT", ins, a), complex_pairs());
}

}  // namespace ms::mindir
