// TFLite's own runtime (@tensorflow/tfjs-tflite, TFLite compiled to WebAssembly) under node, plus the
// small helpers the reference generators share: a seeded PRNG and .npy writing.
// Used by make_tflite_references.js and tests/tflite/make_models.js (developers only).
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const seeded = require('./seeded_data.js');

const REF = path.join(__dirname, 'reference', 'node_modules');
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

// { tf, tflite } ready to load models (tfjs cpu backend for the tensors around the model).
async function loadRuntime() {
  installBrowserShims();
  const tf = require(path.join(REF, '@tensorflow/tfjs-core'));
  require(path.join(REF, '@tensorflow/tfjs-backend-cpu'));
  const tflite = require(path.join(REF, '@tensorflow/tfjs-tflite'));
  await tf.setBackend('cpu');
  tflite.setWasmPath(WASM_DIR + '/');
  return { tf, tflite };
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

// The generators here draw uniform numbers only: a function of no arguments.
const makeRng = (seed) => seeded.makeRng(seed).uniform;
const { npyBytes } = seeded;

module.exports = { loadRuntime, makeRng, npyBytes, image };
