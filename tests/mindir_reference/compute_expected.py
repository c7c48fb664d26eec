#!/usr/bin/env python3
"""Independent reference values for the MindSpore-exported MindIR files in tests/data/mindir.

Run once by hand (pure Python 3, no numpy, no protobuf package); it writes the inputs and the
expected outputs as .npy files into tests/data/mindir/, which are committed. The product never
runs Python: the C++ test (tests/unit/mindir_shared_files_test.cc) only reads the .npy files.

    python3 tests/mindir_reference/compute_expected.py tests/data/mindir tests/data/mindir

It has its own protobuf wire decoder and its own implementation of the MindSpore primitives these
files use (semantics from MindSpore's operator documentation), computed in float64, so it shares no
code or assumption with the C++ reader beyond the format facts.
"""
import math
import os
import struct
import sys

# ---------------------------------------------------------------- protobuf wire decoding
def varint(b, p):
    r = s = 0
    while True:
        c = b[p]
        p += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, p


def fields(b):
    p, out = 0, []
    while p < len(b):
        key, p = varint(b, p)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, p = varint(b, p)
        elif wt == 1:
            v = b[p:p + 8]; p += 8
        elif wt == 5:
            v = b[p:p + 4]; p += 4
        elif wt == 2:
            n, p = varint(b, p)
            v = b[p:p + n]; p += n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, v))
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def packed_varints(v, wt):
    if wt == 0:
        return [signed(v)]
    r, p = [], 0
    while p < len(v):
        x, p = varint(v, p)
        r.append(signed(x))
    return r


def packed_f32(v, wt):
    return [struct.unpack_from("<f", v, k)[0] for k in range(0, len(v), 4)]


def packed_f64(v, wt):
    return [struct.unpack_from("<d", v, k)[0] for k in range(0, len(v), 8)]


def tensor_proto(b):
    t = {"dims": [], "data_type": 0, "name": "", "raw": None}
    for f, wt, v in fields(b):
        if f == 1: t["dims"] += packed_varints(v, wt)
        elif f == 2: t["data_type"] = v
        elif f == 7: t["name"] = v.decode()
        elif f == 9: t["raw"] = v
    return t


def attr_proto(b):
    a = {"name": "", "f": 0.0, "i": 0, "d": 0.0, "s": b"", "floats": [], "doubles": [], "ints": [],
         "strings": [], "tensors": [], "ref": "", "type": 0, "values": []}
    for f, wt, v in fields(b):
        if f == 1: a["name"] = v.decode()
        elif f == 2: a["f"] = struct.unpack("<f", v)[0]
        elif f == 3: a["i"] = signed(v)
        elif f == 4: a["d"] = struct.unpack("<d", v)[0]
        elif f == 5: a["s"] = v
        elif f == 8: a["floats"] += packed_f32(v, wt) if wt == 2 else [struct.unpack("<f", v)[0]]
        elif f == 9: a["doubles"] += packed_f64(v, wt) if wt == 2 else [struct.unpack("<d", v)[0]]
        elif f == 10: a["ints"] += packed_varints(v, wt)
        elif f == 11: a["strings"].append(v)
        elif f == 12: a["tensors"].append(tensor_proto(v))
        elif f == 15: a["ref"] = v.decode()
        elif f == 16: a["type"] = v
        elif f == 17: a["values"].append(attr_proto(v))
    return a


def node_proto(b):
    n = {"input": [], "output": [], "name": "", "op_type": "", "attrs": []}
    for f, wt, v in fields(b):
        if f == 1: n["input"].append(v.decode())
        elif f == 2: n["output"].append(v.decode())
        elif f == 3: n["name"] = v.decode()
        elif f == 4: n["op_type"] = v.decode()
        elif f == 5: n["attrs"].append(attr_proto(v))
    return n


def graph_proto(b):
    g = {"node": [], "name": "", "parameter": [], "input": [], "output": []}
    for f, wt, v in fields(b):
        if f == 1: g["node"].append(node_proto(v))
        elif f == 2: g["name"] = v.decode()
        elif f == 3: g["parameter"].append(tensor_proto(v))
        elif f in (5, 6):
            vi = {"name": "", "tensor": []}
            for f2, wt2, v2 in fields(v):
                if f2 == 1: vi["name"] = v2.decode()
                elif f2 == 2: vi["tensor"].append(tensor_proto(v2))
            g["input" if f == 5 else "output"].append(vi)
    return g


def model_proto(b):
    m = {"graph": None, "primitives": {}}
    for f, wt, v in fields(b):
        if f == 7: m["graph"] = graph_proto(v)
        elif f == 12:
            p = {"name": "", "op_type": "", "attrs": []}
            for f2, wt2, v2 in fields(v):
                if f2 == 1: p["name"] = v2.decode()
                elif f2 == 2: p["op_type"] = v2.decode()
                elif f2 == 3: p["attrs"].append(attr_proto(v2))
            m["primitives"][p["name"]] = p
    return m

# ---------------------------------------------------------------- values
FMT = {1: "f", 2: "B", 3: "b", 5: "h", 6: "i", 7: "q", 9: "?", 11: "d"}


class T:
    """A dense tensor: shape + flat list (row-major), float64 or int values."""
    def __init__(self, shape, data, dtype="f32"):
        self.shape, self.data, self.dtype = list(shape), list(data), dtype
        assert prod(self.shape) == len(self.data), (shape, len(data))


def prod(s):
    r = 1
    for x in s:
        r *= x
    return r


def tensor_value(t):
    n = prod(t["dims"])
    data = list(struct.unpack("<%d%s" % (n, FMT[t["data_type"]]), t["raw"])) if n else []
    dt = {1: "f32", 11: "f64", 6: "i32", 7: "i64", 9: "bool"}.get(t["data_type"], "i64")
    return T(t["dims"], data, dt)


def attr_value(a):
    ref = a["ref"]
    if ref:  # legacy encoding
        if ref.startswith("scalar:Tuple[") or ref.startswith("scalar:List["):
            src = a["ints"] or a["floats"] or a["doubles"] or a["strings"]
            return tuple(src)
        if ref.startswith("scalar:"):
            ty = a["type"]
            return a["f"] if ty == 1 else a["d"] if ty == 11 else a["s"].decode() if ty == 8 else a["i"]
        if ref.startswith("tensor:"):
            return tensor_value(a["tensors"][0])
        return None
    ty = a["type"]
    if ty in (20, 21):
        return tuple(elem_value(e) for e in a["values"])
    if ty == 19:
        t = a["tensors"][0]
        return tensor_value(t) if t["raw"] is not None else ("dtype", t["data_type"])
    if ty == 1: return a["f"]
    if ty == 11: return a["d"]
    if ty == 8: return a["s"].decode()
    if ty in (23, 24, 25): return None
    return a["i"]


def elem_value(e):
    ty = e["type"]
    if ty in (20, 21): return tuple(elem_value(x) for x in e["values"])
    if ty == 1: return e["floats"][0]
    if ty == 11: return e["doubles"][0]
    if ty == 8: return e["strings"][0].decode()
    if ty == 19: return tensor_value(e["tensors"][0])
    return e["ints"][0] if e["ints"] else e["i"]

# ---------------------------------------------------------------- tensor helpers
def strides_of(shape):
    s, acc = [0] * len(shape), 1
    for k in range(len(shape) - 1, -1, -1):
        s[k] = acc
        acc *= shape[k]
    return s


def unravel(i, shape):
    idx = []
    for d in reversed(shape):
        idx.append(i % d)
        i //= d
    return idx[::-1]


def bshape(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    return [max(x, y) for x, y in zip(a, b)]


def bindex(idx, shape):
    off = len(idx) - len(shape)
    st = strides_of(shape)
    return sum((0 if shape[k] == 1 else idx[off + k]) * st[k] for k in range(len(shape)))


def binary(x, y, f):
    if not isinstance(x, T): x = T([], [x])
    if not isinstance(y, T): y = T([], [y])
    s = bshape(x.shape, y.shape)
    out = []
    for i in range(prod(s)):
        idx = unravel(i, s)
        out.append(f(x.data[bindex(idx, x.shape)], y.data[bindex(idx, y.shape)]))
    return T(s, out, x.dtype)


def unary(x, f):
    return T(x.shape, [f(v) for v in x.data], x.dtype)


def transpose(x, perm):
    s = [x.shape[p] for p in perm]
    st = strides_of(x.shape)
    out = []
    for i in range(prod(s)):
        idx = unravel(i, s)
        out.append(x.data[sum(idx[k] * st[perm[k]] for k in range(len(perm)))])
    return T(s, out, x.dtype)


def reshape(x, shape):
    shape = list(shape)
    if -1 in shape:
        k = shape.index(-1)
        shape[k] = len(x.data) // prod([d for d in shape if d != -1])
    return T(shape, x.data, x.dtype)


def batch_matmul(a, b, ta=False, tb=False):
    if ta: a = transpose(a, list(range(len(a.shape) - 2)) + [len(a.shape) - 1, len(a.shape) - 2])
    if tb: b = transpose(b, list(range(len(b.shape) - 2)) + [len(b.shape) - 1, len(b.shape) - 2])
    M, K = a.shape[-2:]
    K2, N = b.shape[-2:]
    assert K == K2
    batch = bshape(a.shape[:-2], b.shape[:-2])
    out = []
    for bi in range(prod(batch)):
        idx = unravel(bi, batch)
        ao = bindex(idx, a.shape[:-2]) * M * K if a.shape[:-2] else 0
        bo = bindex(idx, b.shape[:-2]) * K * N if b.shape[:-2] else 0
        for m in range(M):
            for n in range(N):
                out.append(sum(a.data[ao + m * K + k] * b.data[bo + k * N + n] for k in range(K)))
    return T(batch + [M, N], out, a.dtype)


def reduce_sum(x, axes, keep):
    r = len(x.shape)
    axes = [a % r for a in axes] if axes else list(range(r))
    s = [1 if k in axes else d for k, d in enumerate(x.shape)]
    out = [0.0] * prod(s)
    st = strides_of(s)
    for i, v in enumerate(x.data):
        idx = unravel(i, x.shape)
        out[sum((0 if k in axes else idx[k]) * st[k] for k in range(r))] += v
    if not keep:
        s = [d for k, d in enumerate(x.shape) if k not in axes]
    return T(s, out, x.dtype)


def softmax(x, axis):
    r = len(x.shape)
    axis %= r
    out = list(x.data)
    st = strides_of(x.shape)
    for i in range(len(x.data)):
        idx = unravel(i, x.shape)
        if idx[axis] != 0: continue
        pos = [i + j * st[axis] for j in range(x.shape[axis])]
        m = max(x.data[p] for p in pos)
        e = [math.exp(x.data[p] - m) for p in pos]
        s = sum(e)
        for p, v in zip(pos, e):
            out[p] = v / s
    return T(x.shape, out, x.dtype)


def gather(p, idx, axis):
    axis %= len(p.shape)
    outer, inner = prod(p.shape[:axis]), prod(p.shape[axis + 1:])
    out = []
    for o in range(outer):
        for j in idx.data:
            base = (o * p.shape[axis] + j) * inner
            out += p.data[base:base + inner]
    return T(p.shape[:axis] + idx.shape + p.shape[axis + 1:], out, p.dtype)


def tile(x, mult):
    s = [d * m for d, m in zip(x.shape, mult)]
    return T(s, [x.data[sum((idx[k] % x.shape[k]) * st for k, st in enumerate(strides_of(x.shape)))]
                 for idx in (unravel(i, s) for i in range(prod(s)))], x.dtype)


def conv2d(x, w, stride, pad, dil, group):
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    pt, pb, pl, pr = pad
    OH = (H + pt + pb - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + pl + pr - dil[1] * (KW - 1) - 1) // stride[1] + 1
    out = []
    opg = O // group
    for n in range(N):
        for o in range(O):
            g = o // opg
            for oh in range(OH):
                for ow in range(OW):
                    acc = 0.0
                    for c in range(Cg):
                        ci = g * Cg + c
                        for kh in range(KH):
                            ih = oh * stride[0] - pt + kh * dil[0]
                            if ih < 0 or ih >= H: continue
                            for kw in range(KW):
                                iw = ow * stride[1] - pl + kw * dil[1]
                                if iw < 0 or iw >= W: continue
                                acc += x.data[((n * C + ci) * H + ih) * W + iw] * w.data[((o * Cg + c) * KH + kh) * KW + kw]
                    out.append(acc)
    return T([N, O, OH, OW], out, x.dtype)


def maxpool(x, k, s, mode):
    N, C, H, W = x.shape
    if mode == "SAME":
        OH, OW = -(-H // s[0]), -(-W // s[1])
        ph = max(0, (OH - 1) * s[0] + k[0] - H) // 2
        pw = max(0, (OW - 1) * s[1] + k[1] - W) // 2
    else:
        OH, OW, ph, pw = (H - k[0]) // s[0] + 1, (W - k[1]) // s[1] + 1, 0, 0
    out = []
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    best = -math.inf
                    for a in range(k[0]):
                        for b in range(k[1]):
                            ih, iw = oh * s[0] - ph + a, ow * s[1] - pw + b
                            if 0 <= ih < H and 0 <= iw < W:
                                best = max(best, x.data[((n * C + c) * H + ih) * W + iw])
                    out.append(best)
    return T([N, C, OH, OW], out, x.dtype)


def strided_slice(x, begin, end, strides, bm, em, sm):
    r = len(x.shape)
    ranges = []
    for k in range(r):
        d = x.shape[k]
        if k >= len(begin):
            ranges.append(list(range(d)))
            continue
        st = strides[k]
        b, e = begin[k], end[k]
        if sm >> k & 1:
            ranges.append([b % d])
            continue
        if bm >> k & 1: b = 0 if st > 0 else d - 1
        elif b < 0: b += d
        if em >> k & 1: e = d if st > 0 else -1
        elif e < 0: e += d
        b, e = max(0, min(b, d)), max(-1, min(e, d))
        ranges.append(list(range(b, e, st)))
    st_in = strides_of(x.shape)
    shape = [len(rg) for rg in ranges]
    out = []
    for i in range(prod(shape)):
        idx = unravel(i, shape)
        out.append(x.data[sum(ranges[k][idx[k]] * st_in[k] for k in range(r))])
    final = [n for k, n in enumerate(shape) if not (sm >> k & 1)]
    return T(final, out, x.dtype)


def sigmoid(v):
    return 1 / (1 + math.exp(-v))


def lstm(x, h0, c0, w, I, H, bias):
    # MindSpore LSTM: gates i, f, g, o; w = [w_ih (4H x I), w_hh (4H x H), b (4H)] flattened
    wd = w.data
    wih, whh = wd[:4 * H * I], wd[4 * H * I:4 * H * I + 4 * H * H]
    b = wd[4 * H * I + 4 * H * H:4 * H * I + 4 * H * H + 4 * H] if bias else [0.0] * (4 * H)
    Tn, B, _ = x.shape
    h = [h0.data[k * H:(k + 1) * H] for k in range(B)]
    c = [c0.data[k * H:(k + 1) * H] for k in range(B)]
    ys = []
    for t in range(Tn):
        for bi in range(B):
            xt = x.data[(t * B + bi) * I:(t * B + bi + 1) * I]
            g = [b[j] + sum(wih[j * I + k] * xt[k] for k in range(I)) + sum(whh[j * H + k] * h[bi][k] for k in range(H))
                 for j in range(4 * H)]
            ig = [sigmoid(v) for v in g[0:H]]
            fg = [sigmoid(v) for v in g[H:2 * H]]
            gg = [math.tanh(v) for v in g[2 * H:3 * H]]
            og = [sigmoid(v) for v in g[3 * H:4 * H]]
            c[bi] = [fg[k] * c[bi][k] + ig[k] * gg[k] for k in range(H)]
            h[bi] = [og[k] * math.tanh(c[bi][k]) for k in range(H)]
            ys += h[bi]
    return T([Tn, B, H], ys, x.dtype)

# ---------------------------------------------------------------- interpreter
def run_model(m, feeds):
    g = m["graph"]
    env = {}
    for p in g["parameter"]:
        env[p["name"]] = tensor_value(p)
    for vi, v in zip(g["input"], feeds):
        env[vi["name"]] = v
    for n in g["node"]:
        op = n["op_type"]
        if op == "Constant":
            env[n["output"][0]] = attr_value(n["attrs"][0])
            continue
        attrs = {}
        if op.startswith("REF::"):
            prim = m["primitives"][op[5:]]
            op = prim["op_type"]
            for a in prim["attrs"]:
                attrs[a["name"]] = attr_value(a)
        for a in n["attrs"]:
            if a["name"] and a["name"] != "shape":
                attrs[a["name"]] = attr_value(a)
        ins = [env[i] for i in n["input"]]
        env[n["output"][0]] = apply(op, ins, attrs)
    outs = env[g["output"][0]["name"]]
    return list(outs) if isinstance(outs, tuple) else [outs]


def apply(op, ins, a):
    if op in ("Load", "Depend"): return ins[0]
    if op == "UpdateState": return None
    if op == "MakeTuple": return tuple(ins)
    if op == "TupleGetItem": return ins[0][ins[1]]
    if op == "Add": return binary(ins[0], ins[1], lambda x, y: x + y)
    if op == "Mul": return binary(ins[0], ins[1], lambda x, y: x * y)
    if op == "Abs": return unary(ins[0], abs)
    if op == "ReLU": return unary(ins[0], lambda v: max(v, 0.0))
    if op == "Tanh": return unary(ins[0], math.tanh)
    if op == "Sigmoid": return unary(ins[0], sigmoid)
    if op == "Reshape": return reshape(ins[0], ins[1])
    if op == "ExpandDims":
        ax = ins[1] if ins[1] >= 0 else ins[1] + len(ins[0].shape) + 1
        return T(ins[0].shape[:ax] + [1] + ins[0].shape[ax:], ins[0].data, ins[0].dtype)
    if op == "Squeeze":
        axes = a.get("axis", ())
        axes = [x % len(ins[0].shape) for x in axes] if axes else [k for k, d in enumerate(ins[0].shape) if d == 1]
        return T([d for k, d in enumerate(ins[0].shape) if k not in axes], ins[0].data, ins[0].dtype)
    if op == "Transpose": return transpose(ins[0], list(ins[1]))
    if op == "Gather": return gather(ins[0], ins[1], ins[2])
    if op in ("BatchMatMul", "MatMul"):
        return batch_matmul(ins[0], ins[1], bool(a.get("transpose_a", 0)), bool(a.get("transpose_b", 0)))
    if op == "ReduceSum":
        axes = ins[1] if isinstance(ins[1], tuple) else (ins[1],)
        return reduce_sum(ins[0], list(axes), bool(a.get("keep_dims", 0)))
    if op == "Softmax":
        ax = a["axis"]
        return softmax(ins[0], ax[0] if isinstance(ax, tuple) else ax)
    if op == "Tile": return tile(ins[0], list(ins[1]))
    if op == "BiasAdd":
        b = ins[1]
        return binary(ins[0], T([b.shape[0]] + [1] * (len(ins[0].shape) - 2), b.data), lambda x, y: x + y)
    if op == "Conv2D":
        return conv2d(ins[0], ins[1], list(a["stride"])[-2:], list(a["pad_list"]), list(a["dilation"])[-2:], a.get("group", 1))
    if op == "MaxPool":
        return maxpool(ins[0], list(a["kernel_size"])[-2:], list(a["strides"])[-2:], a["pad_mode"].upper())
    if op == "StridedSlice":
        return strided_slice(ins[0], list(ins[1]), list(ins[2]), list(ins[3]), a["begin_mask"], a["end_mask"], a["shrink_axis_mask"])
    if op == "Concat":
        ts = ins[0]
        assert a.get("axis", 0) == 0
        return T([sum(t.shape[0] for t in ts)] + ts[0].shape[1:], sum((t.data for t in ts), []), ts[0].dtype)
    if op == "LSTM":
        out = lstm(ins[0], ins[1], ins[2], ins[3], a["input_size"], a["hidden_size"], a["has_bias"])
        return (out, None, None, None, None)
    raise NotImplementedError(op)

# ---------------------------------------------------------------- .npy writing
def write_npy(path, t, dtype):
    code, fmt = {"f32": ("<f4", "f"), "i32": ("<i4", "i"), "f64": ("<f8", "d")}[dtype]
    shape = "(" + "".join("%d," % d for d in t.shape) + ")" if len(t.shape) != 1 else "(%d,)" % t.shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (code, shape)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(t.data), fmt), *t.data))


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    cases = {
        "ms200a0_ori_net_lenet_like": [T([1, 1, 32, 32], [((i * 37) % 101) / 50.0 - 1.0 for i in range(1024)], "f32")],
        "ms161_lstm_old_version_2": [
            T([1, 9, 10], [math.sin(0.1 * i) for i in range(90)], "f32"),
            T([1, 1, 50], [0.01 * ((i % 7) - 3) for i in range(50)], "f32"),
            T([1, 1, 50], [0.02 * ((i % 5) - 2) for i in range(50)], "f32")],
        "ms1100_tbnet_model": [
            T([1], [17], "i32"),
            T([1, 39], [(i * 3) % 4 for i in range(39)], "i32"),
            T([1, 39], [(i * 131 + 7) % 5233 for i in range(39)], "i32"),
            T([1, 39], [(i + 1) % 4 for i in range(39)], "i32"),
            T([1, 39], [(i * 977 + 3) % 5233 for i in range(39)], "i32"),
            T([1], [1.0], "f32")],
    }
    for name, feeds in cases.items():
        with open(os.path.join(src, name + ".mindir"), "rb") as f:
            m = model_proto(f.read())
        outs = run_model(m, feeds)
        for k, t in enumerate(feeds):
            write_npy(os.path.join(dst, "%s.input_%d.npy" % (name, k)), t, t.dtype)
        for k, t in enumerate(outs):
            write_npy(os.path.join(dst, "%s.output_%d.npy" % (name, k)), t, "f32")
            print(name, "output", k, t.shape, [round(v, 6) for v in t.data[:4]])


if __name__ == "__main__":
    main()
