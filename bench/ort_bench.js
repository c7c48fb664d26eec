#!/usr/bin/env node
// ONNX Runtime's CPU provider on one model, timed like `ms benchmark`: the same input files
// (.npy, float32/int64/int32), the same thread count, warm-up runs, then timed runs. Prints one
// JSON object with the keys `ms benchmark --format json` uses (min_ms, median_ms, mean_ms, p99_ms,
// peak_rss_mb, threads, loops).
//   node ort_bench.js --ort DIR --model M.onnx --inputs a.npy,b.npy --threads 2 --loops 50 --warmup 10
'use strict';
const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const a = {threads: 1, loops: 50, warmup: 10, inputs: ''};
  for (let i = 2; i < argv.length; i += 2) a[argv[i].replace(/^--/, '')] = argv[i + 1];
  a.threads = Number(a.threads);
  a.loops = Number(a.loops);
  a.warmup = Number(a.warmup);
  return a;
}

// Minimal .npy reader: version 1/2 headers, little-endian float32/int64/int32, C order.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not supported`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const body = buf.subarray(start);
  const copy = (Ctor) => new Ctor(body.buffer.slice(body.byteOffset, body.byteOffset + body.length));
  const types = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array]};
  if (!types[descr]) throw new Error(`${file}: dtype ${descr} is not supported`);
  return {type: types[descr][0], data: copy(types[descr][1]), shape};
}

async function main() {
  const a = parseArgs(process.argv);
  const ort = require(path.resolve(a.ort, 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = {};
  const files = a.inputs ? a.inputs.split(',') : [];
  session.inputNames.forEach((name, i) => {
    if (i >= files.length) return;
    const t = readNpy(files[i]);
    feeds[name] = new ort.Tensor(t.type, t.data, t.shape);
  });
  for (let i = 0; i < a.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < a.loops; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((x, y) => x - y);
  const n = times.length;
  const median = n % 2 ? times[(n - 1) / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  const mean = times.reduce((s, v) => s + v, 0) / n;
  const p99 = times[Math.ceil(0.99 * n) - 1];
  console.log(JSON.stringify({
    model: a.model, threads: a.threads, loops: n, min_ms: times[0], median_ms: median, mean_ms: mean, p99_ms: p99,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  }));
}

main().catch((e) => {
  console.error(e.message);
  process.exit(2);
});
