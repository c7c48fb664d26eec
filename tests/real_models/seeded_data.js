// The helpers every test-data generator shares: a seeded PRNG (mulberry32, with Box-Muller normals)
// and .npy writing (format 1.0, little endian, C order). Used by make_references.js,
// tflite_runtime.js and scripts/make_quant_data.js.
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

const NPY_DESCR = { float32: '<f4', int64: '<i8', int32: '<i4', int8: '|i1', uint8: '|u1' };

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

module.exports = { makeRng, npyBytes };
