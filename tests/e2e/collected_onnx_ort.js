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
  const newerThanChecker = [];
  for (const f of files) {
    const file = path.join(dir, f);
    try {
      execFileSync(checker, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const said = String(e.stderr || e.stdout || e.message).trim();
      // Debian 12's libonnx (1.12) knows IR versions up to 8; opset-21 files (int4 weights) are IR 10,
      // so for them ONNX Runtime, which knows IR 10, is the only consumer that can judge.
      if (said.includes("ir_version is higher than the checker's")) {
        newerThanChecker.push(f);
      } else {
        failures.push(`${f}: ONNX checker: ${said}`);
        continue;
      }
    }
    try {
      await ort.InferenceSession.create(file, { logSeverityLevel: 3 });
    } catch (e) {
      failures.push(`${f}: ONNX Runtime: ${e.message}`);
    }
  }
  console.log(`${files.length} ONNX files written by ms during the tests; ${files.length - failures.length} load in ONNX Runtime ` +
              `and pass ONNX's checker (${newerThanChecker.length} of them IR versions newer than the checker knows, ` +
              `judged by ONNX Runtime alone: ${newerThanChecker.join(', ') || 'none'})`);
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.error(`FAIL: ${e.message}`); process.exit(1); });
