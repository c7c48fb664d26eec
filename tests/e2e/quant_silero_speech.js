#!/usr/bin/env node
// Silero VAD v5 WEIGHT_QUANT at 8 bits on speech-like audio (tests/real_models/speech_like.js), fed
// as in streaming with LSTM states carried by ONNX Runtime's float32 model: calibrated on 16 steps
// of 8 utterances, and without data; scored on 32 steps of 8 other utterances against ONNX
// Runtime's float32 outputs, a batch of 8 chunks at a time (the way the manifest's batch is scored):
// the speech probabilities and the state carried to the next chunk must both keep mean cosine
// >= 0.999 and worst >= 0.998. The float model must hear speech (median probability >= 0.3), or
// the scores say nothing about the outputs users threshold. Usage: quant_silero_speech.js MS WORK
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { makeRng, readNpy, npyBytes } = require('../real_models/seeded_data.js');
const { speechChunks } = require('../real_models/speech_like.js');

const [ms, work] = process.argv.slice(2);
const root = path.resolve(__dirname, '..', '..');
const model = path.join(root, 'tests', 'real_models', 'node_modules', '@jjhbw', 'silero-vad', 'weights', 'silero_vad.onnx');
let ort;
try {
  ort = require(path.join(root, 'tests', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('FAIL: onnxruntime-node is missing (tests/real_models/reference/node_modules): run scripts/fetch_models.sh');
  process.exit(1);
}
if (!fs.existsSync(model)) {
  console.error(`FAIL: ${model} is missing: run scripts/fetch_models.sh`);
  process.exit(1);
}
const B = 8;

function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return aa === 0 && bb === 0 ? 1 : ab / Math.sqrt(aa * bb);
}

async function main() {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const session = await ort.InferenceSession.create(model);

  // Calibration: one sample per step, a batch of the 8 utterances' chunks with their states.
  const cal = await speechChunks(ort, session, 1, B, 16, makeRng);
  const steps = cal.rows / B, calState = new Float32Array(cal.state.length);
  for (let s = 0; s < steps; ++s)
    for (let d = 0; d < 2; ++d)
      calState.set(cal.state.subarray((d * cal.rows + s * B) * 128, (d * cal.rows + s * B + B) * 128), ((s * 2 + d) * B) * 128);
  const calib = ['x', 'state', 'sr'].map((k) => path.join(work, `calib_${k}.npy`));
  fs.writeFileSync(calib[0], npyBytes('float32', [steps, B, cal.width], cal.x));
  fs.writeFileSync(calib[1], npyBytes('float32', [steps, 2, B, 128], calState));
  fs.writeFileSync(calib[2], npyBytes('int64', [steps], new BigInt64Array(steps).fill(16000n)));

  // Evaluation: all 32 steps x 8 utterances as one batch of 256 chunks (rows are independent).
  const ev = await speechChunks(ort, session, 7, B, 32, makeRng);
  const sorted = Array.from(ev.prob).sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  console.log(`fp32 speech probability on the held-out chunks: 10% ${sorted[Math.floor(0.1 * ev.rows)].toFixed(3)}, ` +
    `median ${median.toFixed(3)}, 90% ${sorted[Math.floor(0.9 * ev.rows)].toFixed(3)}`);
  const feeds = {
    input: new ort.Tensor('float32', ev.x, [ev.rows, ev.width]),
    state: new ort.Tensor('float32', ev.state, [2, ev.rows, 128]),
    sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
  };
  const ref = await session.run(feeds);
  const evalFiles = ['x', 'state', 'sr'].map((k) => path.join(work, `eval_${k}.npy`));
  fs.writeFileSync(evalFiles[0], npyBytes('float32', [ev.rows, ev.width], ev.x));
  fs.writeFileSync(evalFiles[1], npyBytes('float32', [2, ev.rows, 128], ev.state));
  fs.writeFileSync(evalFiles[2], npyBytes('int64', [], BigInt64Array.from([16000n])));

  const failures = [];
  if (!(median >= 0.3)) failures.push(`the float model hears no speech (median probability ${median})`);
  for (const [label, data] of [['calibrated', calib], ['no data', null]]) {
    const q = path.join(work, `silero_w8_${data ? 'calib' : 'nodata'}.mindir`);
    execFileSync(ms, ['quant', '--modelFile', model, '--quantType', 'WEIGHT_QUANT', ...(data ? ['--inputFile', data.join(',')] : []),
      '--outputFile', q], { stdio: ['ignore', 'ignore', 'inherit'] });
    const out = `${q}.out`;
    execFileSync(ms, ['run', '--modelFile', q, '--inDataFile', evalFiles.join(','), '--outputDir', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    const names = JSON.parse(execFileSync(ms, ['info', '--modelFile', q, '--json'], { encoding: 'utf8' })).outputs.map((o) => o.name);
    for (const name of ['output', 'stateN']) {
      const ours = readNpy(path.join(out, `output_${names.indexOf(name)}.npy`)).data, theirs = ref[name].data;
      // Batch s: rows s*8 .. s*8+7 (of each state direction for stateN).
      const per = [];
      for (let s = 0; s < ev.rows / B; ++s) {
        const a = [], b = [];
        const width = name === 'output' ? 1 : 128;
        for (let d = 0; d < (name === 'output' ? 1 : 2); ++d) {
          const off = (d * ev.rows + s * B) * width;
          a.push(...ours.subarray(off, off + B * width));
          b.push(...theirs.subarray(off, off + B * width));
        }
        per.push(cosine(a, b));
      }
      const mean = per.reduce((x, y) => x + y, 0) / per.length, min = Math.min(...per);
      console.log(`${label}: ${name} cosine vs ONNX Runtime fp32 over ${per.length} batches of ${B} chunks: mean ${mean.toFixed(6)}, min ${min.toFixed(6)}`);
      if (!(mean >= 0.999)) failures.push(`${label}: ${name} mean cosine ${mean} < 0.999`);
      if (!(min >= 0.998)) failures.push(`${label}: ${name} worst cosine ${min} < 0.998`);
    }
  }
  if (failures.length) {
    console.error('FAIL:\n  ' + failures.join('\n  '));
    process.exit(1);
  }
  fs.rmSync(work, { recursive: true, force: true });
  console.log('PASS');
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e}`);
  process.exit(1);
});
