#!/usr/bin/env node
// `ms quant --quantType WEIGHT_QUANT` on one real model of tests/real_models/data/manifest.json,
// judged against ONNX Runtime's float32 outputs stored beside the manifest (not against anything
// ms computed):
//   --bitNum 8, written as ONNX QDQ and as MindIR (the default output):
//               each file is at most 30% of the float model's and every output of `ms run` on it has
//               cosine >= 0.999 with ONNX Runtime's float32 output on the manifest's inputs (INT8_FLOORS
//               lists the exceptions and why);
//   --bitNum 4: the file is at most INT4_LIMITS' share of the float model's (blocked int4, opset
//               21), ONNX Runtime loads and runs it to the values `ms run` computes on it (cosine
//               >= 0.99999), and its outputs keep INT4_LIMITS' cosine with the float32 reference.
// Prints the size ratio and cosines (the README's figures). Usage:
//   node quant_weight_real_models.js MS_BINARY WORK_DIR MODEL_NAME BITS
// A model that scripts/fetch_models.sh has not installed fails the test (it is in the manifest).
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { readNpy, npyBytes, NPY } = require('../real_models/seeded_data.js');
const { cases } = require('../real_models/cases.js');

const [ms, work, name, bitsArg] = process.argv.slice(2);
// 4-bit floors: the figures measured with the default --groupSize and GPTQ rounding calibrated on
// CALIB_SAMPLES held-out draws (README), less a margin. A model missing here fails: measure it and
// add it. Measured (G = 32): det 17.8% / 0.520, rec 16.8% / 0.996, Silero 18.5% / 0.926 (output;
// stateN 0.985), openWakeWord mel 16.1% / 0.99993, embedding 17.9% / 0.985, IS-Net 15.7% / 0.9986.
// PaddleOCR det's 4-bit map is chaotic on this one image: rounding variants that all beat nearest
// on 16 other images (mean 0.64 against 0.49) score 0.48-0.71 here.
const INT4_LIMITS = {
  paddleocr_v4_det: { max4: 0.20, min4: 0.40 },
  paddleocr_v4_rec: { max4: 0.19, min4: 0.98 },
  silero_vad_v5: { max4: 0.23, min4: 0.90 },
  openwakeword_melspectrogram: { max4: 0.18, min4: 0.9998 },
  openwakeword_embedding: { max4: 0.20, min4: 0.97 },
  isnet_fp32: { max4: 0.17, min4: 0.99 },
};
// 8-bit exceptions to the 0.999 floor, each with its measurement (none at present: PaddleOCR det's
// map, mostly far down its sigmoid on the manifest's sparse bars, reaches 0.99969 since its
// re-parameterized identities stay float; 0.99884 before).
const INT8_FLOORS = {
};
// The same without calibration data (rounding that keeps channel sums, bias correction at the
// all-zeros input): exceptions to the 0.999 floor, each with its measurement. Both inputs are
// synthetic ones the models answer far down their output sigmoid. PaddleOCR det's sparse bars give
// 0.99849 (on rendered text pages the map keeps 0.9998: e2e_ocr_int8_accuracy holds it to 0.999).
// Silero's manifest batch (tones, random LSTM states; speech probability 1e-4) gives output
// 0.99867 and stateN 0.99104 (0.99920 and 0.99842 rounded to nearest); on speech-like audio with
// streamed states both keep 0.9997 or more (quant_weight8_silero_speech holds them to 0.999).
const INT8_NO_DATA_FLOORS = {
  'paddleocr_v4_det/sigmoid_0.tmp_0': 0.998,
  'silero_vad_v5/output': 0.998,
  'silero_vad_v5/stateN': 0.985,
};
const bits = Number(bitsArg);
let ort;
try {
  ort = require(path.join(__dirname, '..', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('FAIL: onnxruntime-node is missing (tests/real_models/reference/node_modules): run scripts/fetch_models.sh');
  process.exit(1);
}
const root = path.resolve(__dirname, '..', '..');
const data = path.join(root, 'tests', 'real_models', 'data');
const models = path.join(root, 'tests', 'real_models', 'node_modules');
const manifest = JSON.parse(fs.readFileSync(path.join(data, 'manifest.json'), 'utf8'));
const entry = manifest.models.find((m) => m.name === name);
if (!entry) throw new Error(`${name} is not in the manifest`);
const modelFile = path.join(models, entry.model);
if (!fs.existsSync(modelFile)) {
  console.error(`FAIL: ${modelFile} is missing: run scripts/fetch_models.sh`);
  process.exit(1);
}


function cosine(a, b) {
  if (a.length !== b.length) throw new Error(`output sizes differ: ${a.length} vs ${b.length}`);
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  if (aa === 0 && bb === 0) return 1;
  return ab / Math.sqrt(aa * bb);
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const inputs = entry.inputs.map((f) => path.join(data, f));
// Calibration is held out from the scored inputs (GPTQ fits each layer to the inputs it calibrates
// on): other draws of the same generator (tests/real_models/cases.js, seeds 1..N), stacked into one
// .npy per model input with a leading sample axis. IS-Net's 1024x1024 inference costs about 40 s a
// sample, so it calibrates on one.
const CALIB_SAMPLES = {
  paddleocr_v4_det: 16, paddleocr_v4_rec: 16, silero_vad_v5: 32, openwakeword_melspectrogram: 8,
  openwakeword_embedding: 8, isnet_fp32: 1,
};
async function writeCalibration() {
  const c = cases(ort).find((x) => x.name === name);
  const draws = [];
  for (let k = 1; k <= (CALIB_SAMPLES[name] || 8); ++k) draws.push(await c.feeds(k));
  return draws[0].map((t0, i) => {
    const data = new NPY[t0.type][1](draws.length * t0.data.length);
    draws.forEach((d, k) => data.set(d[i].data, k * t0.data.length));
    const out = path.join(work, `calib_${i}.npy`);
    fs.writeFileSync(out, npyBytes(t0.type, [draws.length, ...t0.dims], data));
    return out;
  });
}
// The manifest keeps some outputs only: data/<name>/output_<k>.npy holds output_names[k].
const refNames = entry.outputs.map((f) => entry.output_names[Number(/output_(\d+)\.npy$/.exec(f)[1])]);
const refs = entry.outputs.map((f) => readNpy(path.join(data, f)));
// Quantizes to `file` (ONNX QDQ or MindIR by its extension), runs it, and returns its size ratio to
// the float model and the cosine of each manifest output with ONNX Runtime's float32 one.
// Without `calib`, ms quant gets no --inputFile (its data-free rounding and bias correction).
function quantizeAndRun(file, calib) {
  const data = calib ? ['--inputFile', calib.join(',')] : [];
  const log = execFileSync(ms, ['quant', '--modelFile', modelFile, '--quantType', 'WEIGHT_QUANT', '--bitNum', String(bits),
    ...data, '--outputFile', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ratio = fs.statSync(file).size / fs.statSync(modelFile).size;
  const outDir = `${file}.out`;
  execFileSync(ms, ['run', '--modelFile', file, '--inDataFile', inputs.join(','), '--outputDir', outDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  // `ms run` writes the graph's outputs in graph order; the manifest lists them in ONNX Runtime's.
  const graphOutputs = JSON.parse(execFileSync(ms, ['info', '--modelFile', file, '--json'], { encoding: 'utf8' })).outputs.map((o) => o.name);
  const ours = refNames.map((n) => {
    const k = graphOutputs.indexOf(n);
    if (k < 0) throw new Error(`${file} has no output ${n}`);
    return readNpy(path.join(outDir, `output_${k}.npy`));
  });
  const cos = refs.map((r, i) => cosine(ours[i].data, r.data));
  console.log(`${name} --bitNum ${bits} (${path.extname(file)}${calib ? '' : ', no data'}): file ${(100 * ratio).toFixed(1)}% of fp32, output cosine vs ONNX Runtime fp32: ` +
    cos.map((c, i) => `${refNames[i]} ${c.toFixed(6)}`).join(', '));
  return { log, ratio, ours, cos };
}

const failures = [];
let log = '';
const q = path.join(work, `${name}.w${bits}.onnx`);

async function main() {
  const calib = await writeCalibration();
  if (bits === 8) {
    // Both output formats: ONNX QDQ, and MindIR (the default), whose per-channel parameters cost
    // more per channel than ONNX's (src/quant/channel_scales.h); and MindIR without data.
    const runs = [[q, calib], [path.join(work, `${name}.w8.mindir`), calib], [path.join(work, `${name}.w8.nodata.mindir`), null]];
    for (const [file, data] of runs) {
      const r = quantizeAndRun(file, data);
      log += r.log;
      const what = path.extname(file) + (data ? '' : ' without data');
      if (!(r.ratio <= 0.30)) failures.push(`${what}: file is ${(100 * r.ratio).toFixed(1)}% of the float model (> 30%)`);
      r.cos.forEach((c, i) => {
        const floor = (data ? INT8_FLOORS : INT8_NO_DATA_FLOORS)[`${name}/${refNames[i]}`] ?? 0.999;
        if (!(c >= floor)) failures.push(`${what}: output ${refNames[i]} cosine ${c} < ${floor}`);
      });
    }
    return;
  }
  const r4 = quantizeAndRun(q, calib);
  log = r4.log;
  const { ratio, ours, cos } = r4;
  if (!INT4_LIMITS[name]) failures.push(`no 4-bit limits for ${name} in INT4_LIMITS`);
  const { max4, min4 } = INT4_LIMITS[name] || { max4: 0, min4: 1 };
  if (!(ratio <= max4)) failures.push(`file is ${(100 * ratio).toFixed(1)}% of the float model (> ${100 * max4}%)`);
  cos.forEach((c, i) => { if (!(c >= min4)) failures.push(`output ${refNames[i]} cosine ${c} < ${min4}`); });
  let session;
  try {
    session = await ort.InferenceSession.create(q, { graphOptimizationLevel: 'disabled' });
  } catch (e) {
    failures.push(`ONNX Runtime cannot load the int4 file ${q}: ${e.message}`);
    return;
  }
  const feeds = {};
  inputs.forEach((f, i) => {
    const t = readNpy(f);
    feeds[entry.input_names[i]] = new ort.Tensor(t.type, t.data, t.dims);
  });
  const res = await session.run(feeds);
  refNames.forEach((n, i) => {
    const c = cosine(res[n].data, ours[i].data);
    console.log(`  ONNX Runtime on the int4 file vs ms run on it: ${n} cosine ${c.toFixed(8)}`);
    if (!(c >= 0.99999)) failures.push(`ONNX Runtime and ms run disagree on the int4 file: ${n} cosine ${c}`);
  });
}

main().then(() => {
  if (failures.length) {
    console.error(`FAIL: ${name} --bitNum ${bits}:\n  ` + failures.join('\n  ') + '\n' + log);
    process.exit(1);
  }
  fs.rmSync(work, { recursive: true, force: true });
  console.log('PASS');
}).catch((e) => {
  console.error(`FAIL: ${name} --bitNum ${bits}: ${e.stack || e}`);
  process.exit(1);
});
