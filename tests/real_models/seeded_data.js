// The helpers every test-data generator shares: a seeded PRNG (mulberry32, with Box-Muller normals)
// and .npy writing and reading (format 1.0/2.0, little endian, C order). Used by make_references.js,
// tflite_runtime.js, scripts/make_quant_data.js and the e2e scripts that compare with ONNX Runtime.
'use strict';

function makeRng(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    const u1 = Math.max(uniform(), 1e-12);
    const u2 = uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  };
  return { uniform, normal };
}

// dtype -> [.npy descr, typed array]
const NPY = {
  float32: ['<f4', Float32Array], float64: ['<f8', Float64Array], int32: ['<i4', Int32Array],
  int64: ['<i8', BigInt64Array], bool: ['|b1', Uint8Array], uint8: ['|u1', Uint8Array], int8: ['|i1', Int8Array],
};

function npyBytes(dtype, dims, data) {
  const descr = NPY[dtype] && NPY[dtype][0];
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

// { type, dims, data } of a .npy file (data a typed array over a copy of the file's bytes).
function readNpy(file) {
  const b = require('fs').readFileSync(file);
  const hlen = b[6] === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const off = b[6] === 1 ? 10 : 12;
  const header = b.toString('latin1', off, off + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not supported`);
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const type = Object.keys(NPY).find((t) => NPY[t][0] === descr);
  if (!type) throw new Error(`${file}: unsupported dtype ${descr}`);
  const body = b.subarray(off + hlen);
  const copy = new Uint8Array(body.length);
  copy.set(body);
  const C = NPY[type][1];
  return { type, dims, data: new C(copy.buffer, 0, body.length / C.BYTES_PER_ELEMENT) };
}

module.exports = { makeRng, npyBytes, readNpy, NPY };
