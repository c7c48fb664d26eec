#!/usr/bin/env node
// Every ONNX file that `ms` wrote while the test suite ran (the suite sets MS_COLLECT_ONNX_DIR, and
// `ms` copies each ONNX file it writes there): each must pass ONNX's checker with its full check
// (ms_onnx_check) and load in ONNX Runtime. Runs last (a ctest fixture cleanup).
//   node collected_onnx_ort.js COLLECT_DIR MS_ONNX_CHECK
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const ort = require(path.join(__dirname, '..', 'real_models', 'reference', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [dir, checker] = process.argv.slice(2);
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.onnx')).sort() : [];
  const failures = [];
  for (const f of files) {
    const file = path.join(dir, f);
    try {
      execFileSync(checker, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      failures.push(`${f}: ONNX checker: ${String(e.stderr || e.stdout || e.message).trim()}`);
      continue;
    }
    try {
      await ort.InferenceSession.create(file);
    } catch (e) {
      failures.push(`${f}: ONNX Runtime: ${e.message}`);
    }
  }
  console.log(`${files.length} ONNX files written by ms during the tests; ${files.length - failures.length} pass the checker and load in ONNX Runtime`);
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.error(`FAIL: ${e.message}`); process.exit(1); });
