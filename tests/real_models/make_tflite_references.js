#!/usr/bin/env node
// Regenerates the TFLite reference data of tflite_models_test.cc: for each model, a deterministic
// input (seeded PRNG, image-like), the outputs of TFLite's own runtime on it (@tensorflow/tfjs-tflite,
// TFLite compiled to WebAssembly), as .npy files in data/tflite/<case>/, and
// data/tflite/manifest.json that lists them.
//
// Developers only; CI never runs this. Usage, from the repository root:
//   npm ci --prefix tests/real_models                 # the models (scripts/fetch_models.sh)
//   npm ci --prefix tests/real_models/reference       # tfjs-tflite, tfjs-core, tfjs-backend-cpu
//   node tests/real_models/make_tflite_references.js
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');

const HERE = __dirname;
const MODELS = path.join(HERE, 'node_modules');
const DATA = path.join(HERE, 'data', 'tflite');
const REF = path.join(HERE, 'reference', 'node_modules');
const WASM_DIR = path.join(REF, '@tensorflow', 'tfjs-tflite', 'wasm');

// tfjs-tflite's loader is written for browsers: it adds a <script> tag for the Emscripten module
// and fetch()es the .wasm. Under node, run the script with vm and serve fetch() from local files;
// without SharedArrayBuffer it picks the single-threaded build.
function installBrowserShims() {
  delete global.SharedArrayBuffer;
  global.window = global;
  global.self = global;
  global.location = { origin: 'file://', href: 'file:///' };
  global.fetch = async (url) => {
    let p = String(url).replace(/^file:\/\//, '');
    if (!fs.existsSync(p)) p = path.join(WASM_DIR, p);
    return new Response(fs.readFileSync(p), { headers: { 'Content-Type': 'application/wasm' } });
  };
  global.document = {
    head: { appendChild() {}, removeChild() {} },
    createElement() {
      const el = {
        setAttribute(k, v) {
          if (k !== 'src') return;
          const file = String(v).replace(/^file:\/\//, '');
          setImmediate(() => {
            try {
              vm.runInThisContext(fs.readFileSync(file, 'utf8'), { filename: file });
              el.onload();
            } catch (e) {
              el.onerror(e);
            }
          });
        },
      };
      return el;
    },
  };
}

// ---- deterministic random numbers (mulberry32) ------------------------------------------------------
function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- .npy (format 1.0, little endian, C order) ------------------------------------------------------
const NPY_DESCR = { float32: '<f4', int32: '<i4' };

function npyBytes(dtype, dims, data) {
  const descr = NPY_DESCR[dtype];
  if (!descr) throw new Error(`no .npy mapping for ${dtype}`);
  const shape = dims.length === 0 ? '()' : dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

// An NHWC "image" in [lo, hi]: smooth blobs plus noise, so that detectors see some structure.
function image(rng, dims, lo, hi) {
  const [n, h, w, c] = dims;
  const blobs = [];
  for (let k = 0; k < 5; ++k) blobs.push([rng() * h, rng() * w, 0.05 + 0.2 * rng(), [rng(), rng(), rng()]]);
  const d = new Float32Array(n * h * w * c);
  for (let y = 0; y < h; ++y)
    for (let x = 0; x < w; ++x)
      for (let ch = 0; ch < c; ++ch) {
        let v = 0.3;
        for (const [by, bx, r, col] of blobs) {
          const dy = (y - by) / h, dx = (x - bx) / w;
          v += col[ch % 3] * Math.exp(-(dy * dy + dx * dx) / (r * r));
        }
        v = Math.min(1, Math.max(0, 0.7 * v + 0.1 * rng()));
        for (let b = 0; b < n; ++b) d[((b * h + y) * w + x) * c + ch] = lo + (hi - lo) * v;
      }
  return d;
}

// MediaPipe's models take float images scaled to [-1, 1] or [0, 1].
const CASES = [
  { name: 'face_detection_short_range', model: '@mediapipe/face_detection/face_detection_short_range.tflite', range: [-1, 1] },
  { name: 'face_detection_full_range', model: '@mediapipe/face_detection/face_detection_full_range.tflite', range: [-1, 1] },
  { name: 'face_detection_full_range_sparse', model: '@mediapipe/face_detection/face_detection_full_range_sparse.tflite', range: [-1, 1] },
  { name: 'hand_landmark_lite', model: '@mediapipe/hands/hand_landmark_lite.tflite', range: [0, 1] },
  { name: 'hand_landmark_full', model: '@mediapipe/hands/hand_landmark_full.tflite', range: [0, 1] },
  { name: 'pose_landmark_lite', model: '@mediapipe/pose/pose_landmark_lite.tflite', range: [0, 1] },
  { name: 'pose_landmark_full', model: '@mediapipe/pose/pose_landmark_full.tflite', range: [0, 1] },
  { name: 'selfie_segmentation', model: '@mediapipe/selfie_segmentation/selfie_segmentation.tflite', range: [0, 1] },
  { name: 'selfie_segmentation_landscape', model: '@mediapipe/selfie_segmentation/selfie_segmentation_landscape.tflite', range: [0, 1] },
  { name: 'objectron_camera', model: '@mediapipe/objectron/object_detection_3d_camera.tflite', range: [-1, 1] },
];

async function main() {
  installBrowserShims();
  const tf = require(path.join(REF, '@tensorflow/tfjs-core'));
  require(path.join(REF, '@tensorflow/tfjs-backend-cpu'));
  const tflite = require(path.join(REF, '@tensorflow/tfjs-tflite'));
  await tf.setBackend('cpu');
  tflite.setWasmPath(WASM_DIR + '/');
  fs.mkdirSync(DATA, { recursive: true });
  const manifest = { generator: 'tfjs-tflite 0.0.1-alpha.10 (TFLite WebAssembly runtime)', models: [] };
  const only = process.argv.slice(2);
  for (const [k, c] of CASES.entries()) {
    if (only.length && !only.includes(c.name)) continue;
    const bytes = fs.readFileSync(path.join(MODELS, c.model));
    let model;
    try {
      model = await tflite.loadTFLiteModel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), { numThreads: 1 });
    } catch (e) {
      console.error(`${c.name}: TFLite's runtime cannot load it (${e.message || e}); skipped`);
      continue;
    }
    const rng = makeRng(1000 + k);
    const dir = path.join(DATA, c.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const entry = { name: c.name, model: c.model, inputs: [], outputs: [], output_names: model.outputs.map((o) => o.name) };
    const feeds = model.inputs.map((inp, i) => {
      if (inp.dtype !== 'float32') throw new Error(`${c.name}: input ${inp.name} is ${inp.dtype}`);
      const data = image(rng, inp.shape, c.range[0], c.range[1]);
      fs.writeFileSync(path.join(dir, `input_${i}.npy`), npyBytes('float32', inp.shape, data));
      entry.inputs.push(`${c.name}/input_${i}.npy`);
      return tf.tensor(data, inp.shape, 'float32');
    });
    const result = model.predict(feeds.length === 1 ? feeds[0] : feeds);
    const outs = result instanceof tf.Tensor ? [result] : Array.isArray(result) ? result : model.outputs.map((o) => result[o.name]);
    outs.forEach((t, i) => {
      fs.writeFileSync(path.join(dir, `output_${i}.npy`), npyBytes(t.dtype, t.shape, t.dataSync()));
      entry.outputs.push(`${c.name}/output_${i}.npy`);
    });
    manifest.models.push(entry);
    console.log(`${c.name}: ${entry.outputs.length} outputs`);
  }
  fs.writeFileSync(path.join(DATA, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
