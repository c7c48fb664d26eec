#!/usr/bin/env node
// Every way `ms` writes ONNX, on the small models the repository holds: `convert --saveType ONNX`
// from TF (tests/data/tf: the tf2onnx frozen graphs and the hand-built GraphDefs of
// tests/data/tf/handbuilt), ONNX (libonnx-testdata models), TFLite (tests/tflite/models, compiled
// with flatc) and MindIR (tests/data/mindir_outside), `optimize` to .onnx and `quant` to .onnx
// (QDQ). Each written file must pass ONNX's checker with its full check (ms_onnx_check), load in
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
// max((out - 1) * s + (k - 1) * d + 1 - in, 0), the smaller half before.
function convNhwc(x, [N, H, W, C], f, [kh, kw, , M], [sh, sw], [dh, dw], depthwise) {
  const same = (n, k, s, d) => {
    const out = Math.ceil(n / s);
    return [out, Math.floor(Math.max((out - 1) * s + (k - 1) * d + 1 - n, 0) / 2)];
  };
  const [OH, pt] = same(H, kh, sh, dh), [OW, pl] = same(W, kw, sw, dw);
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
};

// ---- the cases: { name, source, write(onnx), step?, expect? } -------------------------------------
function cases() {
  const out = [];
  const tfShapes = JSON.parse(fs.readFileSync(path.join(tfData, 'inputs.json'), 'utf8'));
  for (const f of fs.readdirSync(tfData).filter((f) => f.endsWith('.pb')).sort()) {
    const src = path.join(tfData, f);
    // gru/lstm (not in inputs.json): MNIST rows, X reshaped to [batch, 28, 28] inside the graph
    const shapes = { X: tfShapes[f] ? tfShapes[f].shape : [1, 784] };
    // --inputShape: ONNX's checker wants a shape on graph inputs, which TF1's unshaped Placeholders lack.
    const fix = Object.entries(shapes).map(([n, d]) => `${n}:${d.join(',')}`).join(';');
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
    out.push({ name: `tf/handbuilt/${name}`, source: src, shapes: HANDBUILT[name].shapes, expect: HANDBUILT[name].expect,
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
    out.push({ name: `onnx/${base}/optimize`, source: src, shapes: {},
               write: (o) => ms_(['optimize', '--modelFile', src, '--outputFile', o]) });
    // FULL_QUANT needs calibration files (not written here yet): WEIGHT_QUANT only.
    out.push({ name: `onnx/${base}/quant_WEIGHT_QUANT`, source: null, shapes: {}, step: 0.05,
               write: (o) => ms_(['quant', '--modelFile', src, '--outputFile', o, '--quantType', 'WEIGHT_QUANT']) });
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
    out.push({ name: `tflite/${name}`, source: src, shapes: {}, step: name.includes('int8') || name.includes('uint8') ? 0.05 : 0,
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
