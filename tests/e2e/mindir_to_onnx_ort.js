#!/usr/bin/env node
// `ms convert --fmk MINDIR --saveType ONNX` on MindIR files written outside the project (the
// hand-written fixtures in tests/data/mindir_outside and MindSpore's own files in
// tests/data/mindir): ONNX Runtime runs the ONNX file to the values `ms run` computes on the
// MindIR file, on the same inputs. Usage: node mindir_to_onnx_ort.js MS_BINARY WORK_DIR
// ONNX Runtime comes from tests/real_models/reference (scripts/fetch_models.sh installs it); when it
// is missing the test fails.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { npyBytes, readNpy, NPY } = require('../real_models/seeded_data.js');

const [ms, work] = process.argv.slice(2);
const root = path.resolve(__dirname, '..', '..');
const fixtures = path.join(root, 'tests', 'data', 'mindir_outside');
const shared = path.join(root, 'tests', 'data', 'mindir');  // real MindSpore files (SOURCES.md there)
const sharedInputs = shared;  // their tests' inputs lie beside them

let ort;
try {
  ort = require(path.join(root, 'tests', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('FAIL: onnxruntime-node is missing (tests/real_models/reference/node_modules): run scripts/fetch_models.sh\n' + e.message);
  process.exit(1);
}

// ---- .npy --------------------------------------------------------------------------------------
function writeNpy(file, type, dims, data) {
  fs.writeFileSync(file, npyBytes(type, dims, data));
}

// ---- deterministic inputs ---------------------------------------------------------------------
function makeInput(info, k) {
  const dims = (info.shape || []).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
  const n = dims.reduce((a, b) => a * b, 1);
  const C = NPY[info.dtype] && NPY[info.dtype][1];
  if (!C) throw new Error(`input ${info.name}: no generator for ${info.dtype}`);
  const data = new C(n);
  for (let i = 0; i < n; ++i) {
    const v = Math.sin(1.7 * (i + 1) + 0.9 * (k + 1)) * 1.5;  // in [-1.5, 1.5], varied, reproducible
    if (info.dtype === 'bool') data[i] = 1;
    else if (info.dtype === 'int64') data[i] = BigInt(Math.abs(Math.round(v)));
    else if (info.dtype.startsWith('int') || info.dtype.startsWith('uint')) data[i] = Math.abs(Math.round(v));
    else data[i] = v;
  }
  return { type: info.dtype, dims, data };
}

function ms_(args) { return execFileSync(ms, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); }

// ---- the cases ------------------------------------------------------------------------------------
function encodeFixtures() {
  const out = [];
  for (const f of fs.readdirSync(fixtures).sort()) {
    if (!f.endsWith('.txtpb') || f.startsWith('unsupported_')) continue;
    const name = f.slice(0, -'.txtpb'.length);
    const dir = path.join(work, name);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name + '.mindir');
    const bytes = execFileSync(process.env.PROTOC || 'protoc',
      ['--encode=mind_ir.ModelProto', '-I', path.join(root, 'src', 'formats', 'mindir'), 'mind_ir.proto'],
      { input: fs.readFileSync(path.join(fixtures, f)) });
    fs.writeFileSync(file, bytes);
    const sidecar = path.join(fixtures, name + '.variables.json');
    if (fs.existsSync(sidecar)) writeVariables(dir, JSON.parse(fs.readFileSync(sidecar, 'utf8')));
    out.push({ name, file });
  }
  return out;
}

// Split weights (MindSpore's `_variables/data_N`): a 64-byte header whose byte 0 says little endian,
// then each tensor at its offset; the sidecar lists {file, size, tensors: [{offset, float32: [...]}]}.
function writeVariables(dir, spec) {
  for (const f of spec.files) {
    const buf = Buffer.alloc(f.size);
    buf[0] = 1;
    for (const t of f.tensors) Buffer.from(new Float32Array(t.float32).buffer).copy(buf, t.offset);
    fs.mkdirSync(path.dirname(path.join(dir, f.file)), { recursive: true });
    fs.writeFileSync(path.join(dir, f.file), buf);
  }
}

function sharedCases() {
  return fs.readdirSync(shared).sort()
    .filter((f) => f.endsWith('.mindir') && !f.includes('aesgcm'))
    .map((f) => ({ name: f.slice(0, -'.mindir'.length), file: path.join(shared, f) }));
}

async function check(c) {
  const dir = path.join(work, c.name + '.out');
  fs.mkdirSync(dir, { recursive: true });
  const info = JSON.parse(ms_(['info', '--modelFile', c.file, '--json']));
  const feeds = {};
  const files = [];
  info.inputs.forEach((inp, k) => {
    const given = path.join(sharedInputs, `${c.name}.input_${k}.npy`);
    const t = fs.existsSync(given) ? readNpy(given) : makeInput(inp, k);
    const file = path.join(dir, `input_${k}.npy`);
    writeNpy(file, t.type, t.dims, t.data);
    files.push(file);
    feeds[inp.name] = t;
  });
  const onnx = path.join(dir, c.name + '.onnx');
  ms_(['convert', '--fmk', 'MINDIR', '--modelFile', c.file, '--outputFile', onnx, '--saveType', 'ONNX']);
  const runArgs = ['run', '--modelFile', c.file, '--outputDir', path.join(dir, 'ms')];
  if (files.length) runArgs.push('--inDataFile', files.join(','));
  ms_(runArgs);

  // 'basic': ORT's extended level fuses DequantizeLinear + MatMul into a MatMul that quantizes the
  // activation on the fly (weight_quant_params: 4.008 where the model computes 4.0), not the model's arithmetic.
  const session = await ort.InferenceSession.create(onnx, { graphOptimizationLevel: 'basic' });
  const ortFeeds = {};
  session.inputNames.forEach((n, k) => {
    const t = feeds[n] || Object.values(feeds)[k];
    ortFeeds[n] = new ort.Tensor(t.type, t.type === 'bool' ? Uint8Array.from(t.data) : t.data, t.dims);
  });
  const results = await session.run(ortFeeds);
  const problems = [];
  session.outputNames.forEach((n, k) => {
    const want = readNpy(path.join(dir, 'ms', `output_${k}.npy`));
    const got = results[n];
    if (got.dims.join(',') !== want.dims.join(',')) {
      problems.push(`output ${k} (${n}): ONNX Runtime shape [${got.dims}] vs ms [${want.dims}]`);
      return;
    }
    for (let i = 0; i < want.data.length; ++i) {
      const a = Number(got.data[i]), b = Number(want.data[i]);
      if (!(Math.abs(a - b) <= 1e-5 + 1e-4 * Math.abs(b)) && !(Number.isNaN(a) && Number.isNaN(b)) && a !== b) {
        problems.push(`output ${k} (${n})[${i}]: ONNX Runtime ${a} vs ms ${b}`);
        break;
      }
    }
  });
  return { outputs: session.outputNames.length, problems };
}

(async () => {
  const cases = [...encodeFixtures(), ...sharedCases()];
  let failed = 0;
  for (const c of cases) {
    try {
      const r = await check(c);
      if (r.problems.length) {
        ++failed;
        console.log(`FAIL ${c.name}: ${r.problems.join('; ')}`);
      } else {
        console.log(`ok   ${c.name} (${r.outputs} outputs)`);
      }
    } catch (e) {
      ++failed;
      console.log(`FAIL ${c.name}: ${(e.stderr ? e.stderr.toString() : '') || e.message}`);
    }
  }
  console.log(`${cases.length - failed}/${cases.length} MindIR files: ONNX Runtime on the converted ONNX matches ms run`);
  process.exit(failed ? 1 : 0);
})();
