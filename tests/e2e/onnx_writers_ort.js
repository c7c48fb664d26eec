#!/usr/bin/env node
// Every way `ms` writes ONNX, on the small models the repository holds: `convert --saveType ONNX`
// from TF (tests/data/tf: the tf2onnx frozen graphs and the hand-built GraphDefs of
// tests/data/tf/handbuilt), ONNX (libonnx-testdata models), TFLite (tests/tflite/models, compiled
// with flatc) and MindIR (tests/data/mindir_outside), the half-precision compute form (`convert
// --precision fp16`), `optimize` to .onnx and `quant` to .onnx (QDQ, and with --mixedPrecision). Each written file must pass ONNX's checker with its full check (ms_onnx_check), load in
// ONNX Runtime and run there to the values `ms run` computes on the source model; the hand-built
// TF graphs are also compared with values computed here from TensorFlow's documented semantics.
// (tests/e2e/mindir_to_onnx_ort.js covers MindSpore's own MindIR files the same way.)
// Usage: node onnx_writers_ort.js MS_BINARY WORK_DIR   (MS_ONNX_CHECK: the checker binary)
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { npyBytes, readNpy, makeRng } = require('../real_models/seeded_data.js');

const [ms, work] = process.argv.slice(2);
const root = path.resolve(__dirname, '..', '..');
const tfData = path.join(root, 'tests', 'data', 'tf');
const onnxData = '/usr/share/libonnx-testdata/data';
const checker = process.env.MS_ONNX_CHECK || path.join(path.dirname(ms), 'ms_onnx_check');

let ort;
try {
  ort = require(path.join(root, 'tests', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('FAIL: onnxruntime-node is missing (tests/real_models/reference/node_modules): run scripts/fetch_models.sh\n' + e.message);
  process.exit(1);
}
if (!fs.existsSync(checker)) {
  console.error(`FAIL: ${checker} is missing (build the ms_onnx_check target)`);
  process.exit(1);
}

function run(cmd, args) { return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); }
const ms_ = (args) => run(ms, args);

const TYPED = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array, bool: Uint8Array };

// Seeded inputs in [-1, 1) (non-negative small integers for integer inputs), shaped by the model's
// declared dims with `shapes` overriding by input name and unknown dims taken as 1.
function makeInputs(model, shapes, seed) {
  const info = JSON.parse(ms_(['info', '--modelFile', model, '--json']));
  const rng = makeRng(seed);
  return info.inputs.map((inp) => {
    const dims = shapes[inp.name] || (inp.shape || []).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
    const n = dims.reduce((a, b) => a * b, 1);
    const C = TYPED[inp.dtype];
    if (!C) throw new Error(`input ${inp.name}: no generator for ${inp.dtype}`);
    const data = new C(n);
    for (let i = 0; i < n; ++i) {
      const u = rng.uniform();
      if (inp.dtype === 'float32') data[i] = 2 * u - 1;
      else if (inp.dtype === 'int64') data[i] = BigInt(Math.floor(u * 3));
      else if (inp.dtype === 'bool') data[i] = 1;
      else data[i] = Math.floor(u * 3);
    }
    return { name: inp.name, type: inp.dtype, dims, data };
  });
}

// `ms run` on `model` with `inputs` (.npy files), its outputs read back in order.
function msRun(model, inputs, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const files = inputs.map((t, k) => {
    const f = path.join(dir, `input_${k}.npy`);
    fs.writeFileSync(f, npyBytes(t.type, t.dims, t.data));
    return f;
  });
  const out = path.join(dir, 'out');
  const args = ['run', '--modelFile', model, '--outputDir', out];
  if (files.length) args.push('--inDataFile', files.join(','));
  ms_(args);
  const outs = [];
  for (let k = 0; fs.existsSync(path.join(out, `output_${k}.npy`)); ++k) outs.push(readNpy(path.join(out, `output_${k}.npy`)));
  return outs;
}

async function ortRun(onnx, inputs) {
  // 'basic': the model's own arithmetic (the extended level fuses DequantizeLinear + MatMul into a
  // MatMul that quantizes activations on the fly; see mindir_to_onnx_ort.js).
  const session = await ort.InferenceSession.create(onnx, { graphOptimizationLevel: 'basic' });
  const feeds = {};
  session.inputNames.forEach((n, k) => {
    const t = inputs.find((i) => i.name === n) || inputs[k];
    if (!t) throw new Error(`ONNX Runtime wants input ${n}, which the source model does not have`);
    feeds[n] = new ort.Tensor(t.type, t.type === 'bool' ? Uint8Array.from(t.data) : t.data, t.dims);
  });
  const r = await session.run(feeds);
  return session.outputNames.map((n) => ({ name: n, dims: r[n].dims, data: r[n].data }));
}

// Element-wise closeness; `step` (quantized outputs) allows that many units of the output's range.
function compare(what, got, want, step) {
  if (got.dims.join(',') !== want.dims.join(',')) return `${what}: shape [${got.dims}] vs [${want.dims}]`;
  let range = 0;
  for (const v of want.data) range = Math.max(range, Math.abs(Number(v)));
  const tol = step ? step * range + 1e-5 : 0;
  for (let i = 0; i < want.data.length; ++i) {
    const a = Number(got.data[i]), b = Number(want.data[i]);
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!(Math.abs(a - b) <= Math.max(tol, 1e-4 + 1e-4 * Math.abs(b)))) return `${what}[${i}]: ${a} vs ${b}`;
  }
  return null;
}

// ---- references from TensorFlow's documented semantics for the hand-built graphs ----------------
// Conv2D / DepthwiseConv2dNative, NHWC, filter [kh, kw, C, M]; SAME: out = ceil(in / s), total pad
// max((out - 1) * s + (k - 1) * d + 1 - in, 0), the smaller half before; VALID: out =
// ceil((in - (k - 1) * d) / s), no pads (tensorflow/core/framework/kernel_shape_util.cc).
function window(n, k, s, d, padding) {
  if (padding === 'VALID') return [Math.ceil((n - (k - 1) * d) / s), 0];
  const out = Math.ceil(n / s);
  return [out, Math.floor(Math.max((out - 1) * s + (k - 1) * d + 1 - n, 0) / 2)];
}
function convNhwc(x, [N, H, W, C], f, [kh, kw, , M], [sh, sw], [dh, dw], depthwise, padding = 'SAME') {
  const [OH, pt] = window(H, kh, sh, dh, padding), [OW, pl] = window(W, kw, sw, dw, padding);
  const CO = depthwise ? C * M : M;
  const y = new Float32Array(N * OH * OW * CO);
  for (let n = 0; n < N; ++n)
    for (let i = 0; i < OH; ++i)
      for (let j = 0; j < OW; ++j)
        for (let o = 0; o < CO; ++o) {
          let acc = 0;
          for (let a = 0; a < kh; ++a)
            for (let b = 0; b < kw; ++b) {
              const h = i * sh + a * dh - pt, w = j * sw + b * dw - pl;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const xi = ((n * H + h) * W + w) * C;
              if (depthwise) {
                const c = Math.floor(o / M), m = o % M;
                acc += x[xi + c] * f[((a * kw + b) * C + c) * M + m];
              } else {
                for (let c = 0; c < C; ++c) acc += x[xi + c] * f[((a * kw + b) * C + c) * M + o];
              }
            }
          y[((n * OH + i) * OW + j) * CO + o] = acc;
        }
  return { dims: [N, OH, OW, CO], data: y };
}

// MaxPool / AvgPool, NHWC, the same windows; SAME's pads take no part (AvgPool divides by the
// elements inside the input).
function poolNhwc(x, [N, H, W, C], [kh, kw], [sh, sw], padding, kind) {
  const [OH, pt] = window(H, kh, sh, 1, padding), [OW, pl] = window(W, kw, sw, 1, padding);
  const y = new Float32Array(N * OH * OW * C);
  for (let n = 0; n < N; ++n)
    for (let i = 0; i < OH; ++i)
      for (let j = 0; j < OW; ++j)
        for (let c = 0; c < C; ++c) {
          let acc = kind === 'max' ? -Infinity : 0, count = 0;
          for (let a = 0; a < kh; ++a)
            for (let b = 0; b < kw; ++b) {
              const h = i * sh + a - pt, w = j * sw + b - pl;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const v = x[((n * H + h) * W + w) * C + c];
              acc = kind === 'max' ? Math.max(acc, v) : acc + v;
              ++count;
            }
          y[((n * OH + i) * OW + j) * C + c] = kind === 'max' ? acc : acc / count;
        }
  return { dims: [N, OH, OW, C], data: y };
}

// Element-wise map and index helpers over row-major tensors.
const mapT = (t, fn) => ({ dims: t.dims, data: Float32Array.from(t.data, fn) });
function strides(dims) {
  const s = new Array(dims.length).fill(1);
  for (let d = dims.length - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}
// y[idx] = fn(idx) over the shape `dims`.
function build(dims, fn) {
  const n = dims.reduce((a, b) => a * b, 1), y = new Float32Array(n), st = strides(dims);
  for (let k = 0; k < n; ++k) y[k] = fn(dims.map((d, i) => Math.floor(k / st[i]) % d));
  return { dims, data: y };
}
const at = (t, idx) => t.data[idx.reduce((acc, v, i) => acc + v * strides(t.dims)[i], 0)];
// Reduction of `t` over `axes` with keep_dims.
function reduce(t, axes, init, fn, finish = (v) => v) {
  const dims = t.dims.map((d, i) => (axes.includes(i) ? 1 : d));
  return build(dims, (idx) => {
    let acc = init, count = 0;
    const walk = (i, cur) => {
      if (i === t.dims.length) { acc = fn(acc, at(t, cur)); ++count; return; }
      if (axes.includes(i)) for (let k = 0; k < t.dims[i]; ++k) walk(i + 1, cur.concat([k]));
      else walk(i + 1, cur.concat([idx[i]]));
    };
    walk(0, []);
    return finish(acc, count);
  });
}
const squeeze = (t, axes) => ({ dims: t.dims.filter((d, i) => !axes.includes(i)), data: t.data });
// Softmax over the last axis.
function softmax(t) {
  const n = t.dims[t.dims.length - 1], y = new Float32Array(t.data.length);
  for (let r = 0; r < t.data.length; r += n) {
    let m = -Infinity, sum = 0;
    for (let k = 0; k < n; ++k) m = Math.max(m, t.data[r + k]);
    for (let k = 0; k < n; ++k) sum += (y[r + k] = Math.exp(t.data[r + k] - m));
    for (let k = 0; k < n; ++k) y[r + k] /= sum;
  }
  return { dims: t.dims, data: y };
}
// The generator of tests/data/tf/handbuilt's weights: ((i * a) % m - floor(m / 2)) * s.
const vals = (n, a, m, s) => Array.from({ length: n }, (_, i) => (((i * a) % m) - Math.floor(m / 2)) * s);
// FusedBatchNorm with is_training false: scale * (x - mean) / sqrt(var + epsilon) + offset per channel.
function batchNorm(x, eps) {
  const scale = [1.5, 0.5, -1.0, 2.0], offset = [0.25, -0.5, 0.0, 1.0], mean = [0.1, -0.2, 0.3, 0.0], vr = [0.5, 1.0, 2.0, 0.25];
  const C = x.dims[x.dims.length - 1];
  return { dims: x.dims, data: Float32Array.from(x.data, (v, i) => {
    const c = i % C;
    return scale[c] * (v - mean[c]) / Math.sqrt(vr[c] + eps) + offset[c];
  }) };
}

const W9 = [0.5, -0.25, 1.0, 0.75, -1.0, 0.125, 0.25, 0.5, -0.5, 1.5, 0.375, -0.75, 0.625, -0.125, 1.25, 0.0625, -0.375, 0.875];
const HANDBUILT = {
  dilated_same_conv: {
    shapes: { x: [1, 9, 8, 2], x2: [2, 7, 10, 2] },
    expect: (ins) => {
      const x = ins.find((t) => t.name === 'x'), x2 = ins.find((t) => t.name === 'x2');
      return {
        atrous: convNhwc(x.data, x.dims, W9, [3, 3, 2, 1], [1, 1], [2, 2], false),
        atrous_strided: convNhwc(x.data, x.dims, W9, [3, 3, 2, 1], [2, 2], [2, 2], false),
        atrous_dw: convNhwc(x2.data, x2.dims, W9, [3, 3, 2, 1], [1, 1], [2, 3], true),
      };
    },
  },
  matmul_transpose_b: {
    shapes: { x: [2, 4] },
    expect: ([x]) => {
      const w = [1, 2, 3, 4, -1, 0.5, 0, 2, 0.25, -0.5, 1.5, -2], b = [0.5, -1, 2];
      const y = new Float32Array(6);
      for (let i = 0; i < 2; ++i)
        for (let j = 0; j < 3; ++j) {
          let acc = b[j];
          for (let k = 0; k < 4; ++k) acc += x.data[i * 4 + k] * w[j * 4 + k];
          y[i * 3 + j] = acc;
        }
      return { y: { dims: [2, 3], data: y } };
    },
  },
  const_only_sinks: {
    shapes: {},
    expect: ([x]) => ({ y: { dims: [2, 3], data: Float32Array.from(x.data, (v, i) => Math.max(v * [2, -1, 0.5][i % 3], 0)) } }),
  },
  conv_stride2: {
    shapes: {},
    expect: ([x]) => {
      const w = vals(108, 7, 11, 0.125), b = [0.5, -0.25, 0.125, 1.0];
      const same = convNhwc(x.data, x.dims, w, [3, 3, 3, 4], [2, 2], [1, 1], false, 'SAME');
      return {
        conv_valid: convNhwc(x.data, x.dims, w, [3, 3, 3, 4], [2, 2], [1, 1], false, 'VALID'),
        conv_relu6: mapT(same, (v, i) => Math.min(Math.max(v + b[i % 4], 0), 6)),
        dw_same: convNhwc(x.data, x.dims, vals(54, 5, 9, 0.25), [3, 3, 3, 2], [2, 2], [1, 1], true, 'SAME'),
      };
    },
  },
  bn_pool: {
    shapes: {},
    expect: ([x]) => {
      const bn = batchNorm(x, 0.001), bn3 = batchNorm(x, 0.01);
      const maxSame = poolNhwc(bn.data, bn.dims, [3, 3], [2, 2], 'SAME', 'max');
      const gap = reduce(maxSame, [1, 2], 0, (a, v) => a + v, (a, n) => a / n);
      return {
        avg_valid: poolNhwc(bn3.data, bn3.dims, [2, 2], [2, 2], 'VALID', 'avg'),
        avg_same: poolNhwc(bn3.data, bn3.dims, [3, 3], [2, 2], 'SAME', 'avg'),
        max_valid: poolNhwc(x.data, x.dims, [2, 2], [1, 1], 'VALID', 'max'),
        probs: softmax(squeeze(gap, [1, 2])),
      };
    },
  },
  shape_ops: {
    shapes: {},
    expect: ([x]) => {
      // r = reshape(x, [6, 4]), t = r^T [4, 6], cat = concat([t, t], 1) [4, 12]
      const cat = build([4, 12], ([i, j]) => x.data[(j % 6) * 4 + i]);
      return {
        sl_cat: build([3, 4], ([i, j]) => at(cat, [i + 1, 3 * j])),  // cat[1:, ::3]
        sl_shrink: build([2, 2], ([i, k]) => at(x, [i, 1, 2 * k])),  // x[:, 1, ::2]
        sl_ellipsis: build([2, 3, 1, 2], ([i, j, , k]) => at(x, [i, j, k + 1])),  // x[..., newaxis, 1:3]
        sl_reverse: build([3], ([j]) => at(x, [1, 2 - j, 1])),  // x[-1, ::-1, 1]
        padded: build([2, 4, 6], ([i, j, k]) => (j >= 1 && k < 4 ? at(x, [i, j - 1, k]) : 0)),
        cast_i: { dims: x.dims, data: Int32Array.from(x.data, (v) => Math.trunc(Math.fround(v * 3))) },
      };
    },
  },
  dynamic_nhwc: {
    shapes: {},
    feed: { x: [2, 9, 7, 3] },  // fed, not given to --inputShape: the written model keeps ? dims
    expect: ([x]) => {
      const w = vals(108, 7, 11, 0.125), b = [0.5, -0.25, 0.125, 1.0];
      const c1 = mapT(convNhwc(x.data, x.dims, w, [3, 3, 3, 4], [2, 2], [1, 1], false, 'SAME'), (v, i) => Math.min(Math.max(v + b[i % 4], 0), 6));
      const avg = poolNhwc(x.data, x.dims, [3, 3], [2, 2], 'SAME', 'avg');
      const [N, H, W] = x.dims;
      return {
        c2: convNhwc(x.data, x.dims, w, [3, 3, 3, 4], [2, 2], [1, 1], false, 'VALID'),
        p1: poolNhwc(x.data, x.dims, [3, 3], [2, 2], 'SAME', 'max'),
        cc: build([...c1.dims.slice(0, 3), 7], ([n, i, j, k]) => (k < 4 ? at(c1, [n, i, j, k]) : at(avg, [n, i, j, k - 4]))),
        sl: build([N, H - 1, W - 1], ([n, i, j]) => at(x, [n, i + 1, j, 0])),  // x[:, 1:, :-1, 0]
        flat: { dims: [x.data.length / 3, 3], data: x.data },
        gap_id: squeeze(reduce(c1, [1, 2], 0, (a, v) => a + v, (a, n) => a / n), [1, 2]),
      };
    },
  },
  misc_ops: {
    shapes: {},
    feed: { x: [2, 4, 6, 2] },
    expect: ([x]) => {
      const [N, H, W, C] = x.dims, per = H * W * C;
      // ResizeBilinear / ResizeNearestNeighbor to 7x9 (tensorflow/core/kernels/image/resize_*_op.cc):
      // scale in/out; legacy source dst * scale, half-pixel (dst + 0.5) * scale - 0.5; bilinear
      // lerps between max(floor(src), 0) and min(ceil(src), in - 1); nearest takes min(floor(src), in - 1).
      const weights = (o, inSize, outSize, half) => {
        const scale = inSize / outSize, src = half ? (o + 0.5) * scale - 0.5 : o * scale, f = Math.floor(src);
        return [Math.max(f, 0), Math.min(Math.ceil(src), inSize - 1), src - f];
      };
      const bilinear = (half) => build([N, 7, 9, C], ([n, i, j, c]) => {
        const [t, b, ly] = weights(i, H, 7, half), [l, r, lx] = weights(j, W, 9, half);
        const top = at(x, [n, t, l, c]) + (at(x, [n, t, r, c]) - at(x, [n, t, l, c])) * lx;
        const bot = at(x, [n, b, l, c]) + (at(x, [n, b, r, c]) - at(x, [n, b, l, c])) * lx;
        return top + (bot - top) * ly;
      });
      const argmax = new Int32Array(N);
      for (let n = 0; n < N; ++n)
        for (let k = 1; k < per; ++k) if (x.data[n * per + k] > x.data[n * per + argmax[n]]) argmax[n] = k;
      return {
        argmax: { dims: [N], data: argmax },
        sliced: build([N, 2, 3, 1], ([n, i, j]) => at(x, [n, i + 1, j + 2, 0])),
        lrelu: build([N, H, 3, C], ([n, i, j, c]) => { const v = at(x, [n, i, j + 1, c]); return v < 0 ? 0.2 * v : v; }),
        tiled: build([N, H, 4, C], ([n, i, j, c]) => at(x, [n, i, 4 + (j % 2), c])),
        bilinear: bilinear(false),
        bilinear_hp: bilinear(true),
        nearest: build([N, 7, 9, C], ([n, i, j, c]) => at(x, [n, Math.min(Math.floor(i * H / 7), H - 1), Math.min(Math.floor(j * W / 9), W - 1), c])),
        first: build([N, H, 1, C], ([n, i, , c]) => at(x, [n, i, 0, c])),
      };
    },
  },
  reduce_math: {
    shapes: {},
    expect: ([x]) => {
      const mean = reduce(x, [1], 0, (a, v) => a + v, (a, n) => a / n);
      const d = build(x.dims, ([i, j, k]) => at(x, [i, j, k]) - at(mean, [i, 0, k]));
      const vr = reduce(mapT(d, (v) => v * v), [1], 0, (a, v) => a + v, (a, n) => a / n);
      return {
        norm: build(x.dims, ([i, j, k]) => at(d, [i, j, k]) / Math.sqrt(at(vr, [i, 0, k]) + 0.001)),
        sum: squeeze(reduce(x, [0, 2], 0, (a, v) => a + v), [0, 2]),
        max: reduce(x, [2], -Infinity, Math.max),
        div: mapT(x, (v) => v / (Math.abs(v) + 0.5)),
        clip: mapT(x, (v) => Math.max(Math.min(v, 0.25), -0.25)),
        out_soft: softmax(x),
      };
    },
  },
};

// ---- the cases: { name, source, write(onnx), step?, expect? } -------------------------------------
function cases() {
  const out = [];
  const tfShapes = JSON.parse(fs.readFileSync(path.join(tfData, 'inputs.json'), 'utf8'));
  for (const f of fs.readdirSync(tfData).filter((f) => f.endsWith('.pb')).sort()) {
    const src = path.join(tfData, f);
    // gru/lstm (not in inputs.json): MNIST rows, X reshaped to [batch, 28, 28] inside the graph;
    // keep_prob, a Placeholder of unknown rank, fed as a scalar
    const shapes = tfShapes[f] ? { X: tfShapes[f].shape } : { X: [1, 784], keep_prob: [] };
    // --inputShape: ONNX's checker wants a shape on graph inputs, which TF1's unshaped Placeholders
    // lack ("keep_prob:[]": a scalar).
    const fix = Object.entries(shapes).map(([n, d]) => `${n}:[${d.join(',')}]`).join(';');
    out.push({ name: `tf/${f}`, source: src, shapes,
               write: (o) => ms_(['convert', '--fmk', 'TF', '--modelFile', src, '--outputFile', o, '--saveType', 'ONNX', '--inputShape', fix]),
               // gru/lstm: dropout's RandomUniform differs between runtimes unless keep_prob is 1
               fixInputs: (ins) => ins.forEach((t) => { if (t.name === 'keep_prob') t.data.fill(1); }) });
  }
  const hb = path.join(tfData, 'handbuilt');
  for (const f of fs.readdirSync(hb).filter((f) => f.endsWith('.pbtxt')).sort()) {
    const name = f.slice(0, -'.pbtxt'.length);
    const src = path.join(work, name + '.pb');
    fs.writeFileSync(src, execFileSync(process.env.PROTOC || 'protoc',
      ['--encode=ms_tf.GraphDef', '-I', path.join(root, 'src', 'formats', 'tf'), 'tf_graph.proto'],
      { input: fs.readFileSync(path.join(hb, f)) }));
    const fix = Object.entries(HANDBUILT[name].shapes).map(([n, d]) => `${n}:${d.join(',')}`).join(';');
    const args = ['convert', '--fmk', 'TF', '--modelFile', src, '--saveType', 'ONNX'].concat(fix ? ['--inputShape', fix] : []);
    // `feed`: dims fed to both runtimes beyond those --inputShape fixes
    const shapes = Object.assign({}, HANDBUILT[name].shapes, HANDBUILT[name].feed || {});
    out.push({ name: `tf/handbuilt/${name}`, source: src, shapes, expect: HANDBUILT[name].expect,
               write: (o) => ms_(args.concat(['--outputFile', o])) });
  }
  // ONNX in, ONNX out: convert, optimize, quant (QDQ) on libonnx-testdata models.
  for (const m of ['pytorch-converted/test_Conv2d_dilated', 'pytorch-converted/test_Conv2d_depthwise_strided',
                   'pytorch-converted/test_Linear', 'pytorch-converted/test_AvgPool2d_stride']) {
    const src = path.join(onnxData, m, 'model.onnx');
    if (!fs.existsSync(src)) throw new Error(`${src} is missing (libonnx-testdata)`);
    const base = m.split('/')[1];
    out.push({ name: `onnx/${base}/convert`, source: src, shapes: {},
               write: (o) => ms_(['convert', '--fmk', 'ONNX', '--modelFile', src, '--outputFile', o, '--saveType', 'ONNX']) });
    // The half-precision compute form: float16 activations and weights, float32 at the interface.
    out.push({ name: `onnx/${base}/convert_fp16`, source: src, shapes: {}, step: 0.01,
               write: (o) => ms_(['convert', '--fmk', 'ONNX', '--modelFile', src, '--outputFile', o, '--saveType', 'ONNX',
                                  '--precision', 'fp16']) });
    out.push({ name: `onnx/${base}/optimize`, source: src, shapes: {},
               write: (o) => ms_(['optimize', '--modelFile', src, '--outputFile', o]) });
    // FULL_QUANT needs calibration files (not written here yet): WEIGHT_QUANT only.
    out.push({ name: `onnx/${base}/quant_WEIGHT_QUANT`, source: null, shapes: {}, step: 0.05,
               write: (o) => ms_(['quant', '--modelFile', src, '--outputFile', o, '--quantType', 'WEIGHT_QUANT']) });
    // Mixed precision: the layers kept float (here every Gemm/MatMul) compute in float16.
    out.push({ name: `onnx/${base}/quant_mixed_fp16`, source: null, shapes: {}, step: 0.05,
               write: (o) => ms_(['quant', '--modelFile', src, '--outputFile', o, '--quantType', 'WEIGHT_QUANT',
                                  '--skipOpTypes', 'Gemm,MatMul', '--mixedPrecision', 'fp16']) });
  }
  // TFLite models built from FlatBuffers JSON (tests/tflite/models).
  const fbs = path.join(root, 'src', 'formats', 'tflite', 'tflite_schema.fbs');
  const tfl = path.join(root, 'tests', 'tflite', 'models');
  for (const f of fs.readdirSync(tfl).filter((f) => f.endsWith('.json')).sort()) {
    const name = f.slice(0, -'.json'.length);
    const dir = path.join(work, 'tflite');
    fs.mkdirSync(dir, { recursive: true });
    run(process.env.FLATC || 'flatc', ['-b', '-o', dir, fbs, path.join(tfl, f)]);
    const src = path.join(dir, name + '.tflite');
    fs.renameSync(path.join(dir, name + '.bin'), src);
    // TFLite_Detection_PostProcess becomes com.mstools:DetectionPostProcess, which has no ONNX form:
    // the writer refuses it (exit 3, naming the node and the op) and writes nothing.
    const refuse = name.startsWith('ssd_postprocess') ? { status: 3, says: ['DetectionPostProcess', 'no standard ONNX form'] } : null;
    out.push({ name: `tflite/${name}`, source: src, shapes: {}, step: name.includes('int8') || name.includes('uint8') ? 0.05 : 0, refuse,
               write: (o) => ms_(['convert', '--fmk', 'TFLITE', '--modelFile', src, '--outputFile', o, '--saveType', 'ONNX']) });
  }
  // MindIR (hand-written fixtures).
  for (const name of ['lite_cnn', 'lite_same_global']) {
    const src = path.join(work, name + '.mindir');
    fs.writeFileSync(src, execFileSync(process.env.PROTOC || 'protoc',
      ['--encode=mind_ir.ModelProto', '-I', path.join(root, 'src', 'formats', 'mindir'), 'mind_ir.proto'],
      { input: fs.readFileSync(path.join(root, 'tests', 'data', 'mindir_outside', name + '.txtpb')) }));
    out.push({ name: `mindir/${name}`, source: src, shapes: {},
               write: (o) => ms_(['convert', '--fmk', 'MINDIR', '--modelFile', src, '--outputFile', o, '--saveType', 'ONNX']) });
  }
  return out;
}

async function check(c, k) {
  const dir = path.join(work, 'case_' + k);
  fs.mkdirSync(dir, { recursive: true });
  const onnx = path.join(dir, 'model.onnx');
  if (c.refuse) {
    let status = 0, stderr = '';
    try {
      c.write(onnx);
    } catch (e) {
      status = e.status;
      stderr = (e.stderr || '').toString();
    }
    const problems = [];
    if (status !== c.refuse.status) problems.push(`exit ${status}, expected ${c.refuse.status} (refused)`);
    for (const w of c.refuse.says) if (!stderr.includes(w)) problems.push(`the refusal does not say '${w}': ${stderr.trim()}`);
    if (fs.existsSync(onnx)) problems.push('a refused model was written');
    return problems;
  }
  c.write(onnx);
  try {
    run(checker, [onnx]);
  } catch (e) {
    return [`ONNX checker: ${(e.stderr || e.message).toString().trim()}`];
  }
  // The reference: `ms run` on the source model (the written file itself for quant, whose QDQ
  // arithmetic is what both runtimes should compute).
  const ref = c.source || onnx;
  const inputs = makeInputs(ref, c.shapes, 7 + k);
  if (c.fixInputs) c.fixInputs(inputs);
  const want = msRun(ref, inputs, path.join(dir, 'ms'));
  const got = await ortRun(onnx, inputs);
  const problems = [];
  if (got.length !== want.length) problems.push(`ONNX Runtime gives ${got.length} outputs, ms run ${want.length}`);
  got.forEach((g, i) => {
    if (i >= want.length) return;
    const p = compare(`output ${i} (${g.name}) vs ms run`, g, want[i], c.step);
    if (p) problems.push(p);
  });
  if (c.expect) {
    const exp = c.expect(inputs);
    const names = got.map((g) => g.name).sort().join(',');
    if (names !== Object.keys(exp).sort().join(',')) problems.push(`outputs [${names}], expected [${Object.keys(exp)}]`);
    for (const g of got) {
      if (!exp[g.name]) continue;
      const p = compare(`output ${g.name} vs TF semantics`, g, exp[g.name], 0);
      if (p) problems.push(p);
    }
  }
  return problems;
}

(async () => {
  const all = cases();
  let failed = 0;
  for (let k = 0; k < all.length; ++k) {
    const c = all[k];
    let problems;
    try {
      problems = await check(c, k);
    } catch (e) {
      problems = [((e.stderr ? e.stderr.toString() : '') || e.message).trim()];
    }
    if (problems.length) {
      ++failed;
      console.log(`FAIL ${c.name}: ${problems.join('; ')}`);
    } else {
      console.log(`ok   ${c.name}`);
    }
  }
  console.log(`${all.length - failed}/${all.length} written ONNX files pass the full ONNX check and run in ONNX Runtime to ms run's values`);
  process.exit(failed ? 1 : 0);
})();
