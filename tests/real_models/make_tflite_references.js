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
const { loadRuntime, makeRng, npyBytes, image } = require('./tflite_runtime.js');

const HERE = __dirname;
const MODELS = path.join(HERE, 'node_modules');
const DATA = path.join(HERE, 'data', 'tflite');

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
  // Shipped inside the solutions' packed assets; assemble_models.js cuts them out into .assembled/.
  { name: 'palm_detection_full', model: '.assembled/palm_detection_full.tflite', range: [0, 1] },
  { name: 'palm_detection_lite', model: '.assembled/palm_detection_lite.tflite', range: [0, 1] },
  { name: 'pose_detection', model: '.assembled/pose_detection.tflite', range: [-1, 1] },
  { name: 'ssd_mobilenetv2_oidv4_fp16', model: '.assembled/object_detection_ssd_mobilenetv2_oidv4_fp16.tflite', range: [-1, 1] },
  { name: 'face_landmark', model: '.assembled/face_landmark.tflite', range: [0, 1] },
];

async function main() {
  const { tf, tflite } = await loadRuntime();
  fs.mkdirSync(DATA, { recursive: true });
  const manifest = { generator: 'tfjs-tflite 0.0.1-alpha.10 (TFLite WebAssembly runtime)', models: [] };
  const only = process.argv.slice(2);
  // Regenerating some cases keeps the manifest entries of the others.
  const previous = only.length && fs.existsSync(path.join(DATA, 'manifest.json'))
    ? JSON.parse(fs.readFileSync(path.join(DATA, 'manifest.json'), 'utf8')).models : [];
  for (const [k, c] of CASES.entries()) {
    if (only.length && !only.includes(c.name)) {
      const kept = previous.find((e) => e.name === c.name);
      if (kept) manifest.models.push(kept);
      continue;
    }
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
