#!/usr/bin/env node
// Writes a seeded random float32 .npy (uniform in [0, 1)) of the given shape, so that `ms benchmark`
// and ONNX Runtime time the same input.   node make_input.js out.npy 1,3,224,224 [seed]
// With kind "mask" instead: an int64 attention mask of that shape, 1 except the last quarter of
// each row (padding), as a tokenizer pads a batch.   node make_input.js m.npy 1,128 0 mask
'use strict';
const fs = require('fs');
const [out, shapeArg, seedArg, kind] = process.argv.slice(2);
const shape = shapeArg.split(',').map(Number);
let state = Number(seedArg || 1) >>> 0;
const next = () => {  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const n = shape.reduce((a, b) => a * b, 1);
let data = new Float32Array(n);
for (let i = 0; i < n; ++i) data[i] = next();
if (kind === 'mask') {
  const row = shape[shape.length - 1];
  data = new BigInt64Array(n);
  for (let i = 0; i < n; ++i) data[i] = (i % row) < row - Math.floor(row / 4) ? 1n : 0n;
}
let header = `{'descr': '${kind === 'mask' ? '<i8' : '<f4'}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
const pre = Buffer.alloc(10);
pre.write('\x93NUMPY', 0, 'latin1');
pre[6] = 1;
pre[7] = 0;
pre.writeUInt16LE(header.length, 8);
fs.writeFileSync(out, Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]));
