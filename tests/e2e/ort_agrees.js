#!/usr/bin/env node
// ONNX Runtime as the oracle for one output that mstools computed:
//   node ort_agrees.js MODEL.onnx OUTPUT_INDEX GOT.npy MIN_COSINE IN0.npy [IN1.npy ...]
// runs MODEL.onnx in ONNX Runtime on the inputs (bound to the graph inputs in order), and checks
// that GOT.npy has the same shape as output OUTPUT_INDEX and a cosine similarity >= MIN_COSINE with
// it. Prints both and exits 1 when they disagree. ONNX Runtime comes from
// tests/real_models/reference (scripts/fetch_models.sh installs it).
'use strict';

const path = require('path');
const { readNpy } = require('../real_models/seeded_data.js');

const ort = require(path.join(__dirname, '..', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, outputIndex, gotFile, minCosine, ...inputFiles] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  inputFiles.forEach((f, k) => {
    const t = readNpy(f);
    feeds[session.inputNames[k]] = new ort.Tensor(t.type, t.data, t.dims);
  });
  const want = (await session.run(feeds))[session.outputNames[Number(outputIndex)]];
  const got = readNpy(gotFile);
  const sameShape = want.dims.length === got.dims.length && want.dims.every((d, i) => d === got.dims[i]);
  let dot = 0, ww = 0, gg = 0, maxAbs = 0;
  for (let i = 0; sameShape && i < want.data.length; ++i) {
    const w = Number(want.data[i]), g = Number(got.data[i]);
    dot += w * g; ww += w * w; gg += g * g;
    maxAbs = Math.max(maxAbs, Math.abs(w - g));
  }
  const cosine = ww === 0 && gg === 0 ? 1 : dot / Math.sqrt(ww * gg);
  console.log(`${path.basename(gotFile)} vs ONNX Runtime on ${path.basename(model)}: shape ${got.dims} / ${want.dims}, ` +
              `cosine ${cosine.toFixed(6)}, max |diff| ${maxAbs.toExponential(3)}`);
  if (!sameShape || !(cosine >= Number(minCosine))) {
    console.error(`FAIL: want cosine >= ${minCosine} and equal shapes`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(`FAIL: ${e.message}`); process.exit(1); });
