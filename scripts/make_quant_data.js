#!/usr/bin/env node
// Calibration and evaluation data for `ms quant` on the real models, with no images needed: seeded
// synthetic inputs of the kinds tests/real_models/make_references.js feeds (text-like lines for
// PaddleOCR, photo-like scenes for IS-Net), written as raw float32 samples back to back (.bin, the
// layout `np.stack(imgs).tofile()` writes). Different seeds give disjoint calibration/eval sets.
//
//   node scripts/make_quant_data.js ocr   N H W SEED out.bin   # PaddleOCR: (x/255 - 0.5)/0.5, NCHW
//   node scripts/make_quant_data.js photo N H W SEED out.bin   # IS-Net: (v - 128)/256, NCHW
'use strict';
const fs = require('fs');
const { makeRng } = require('../tests/real_models/seeded_data.js');

// Light paper, dark strokes in a few horizontal lines of varying height, stroke rhythm and contrast.
function ocrImage(rng, h, w) {
  const img = new Float32Array(3 * h * w);
  const paper = [0, 0, 0].map(() => 180 + 60 * rng.uniform());
  const ink = [0, 0, 0].map(() => 10 + 70 * rng.uniform());
  const bars = [];
  const lines = 2 + Math.floor(rng.uniform() * 6);
  for (let k = 0; k < lines; ++k) {
    const hgt = Math.min(h, 6 + Math.floor(rng.uniform() * 12));
    const y0 = Math.floor(rng.uniform() * Math.max(1, h - hgt));
    const x0 = Math.floor(rng.uniform() * w * 0.3);
    bars.push([y0, y0 + hgt, x0, x0 + Math.floor(w * (0.2 + 0.7 * rng.uniform())), 2 + Math.floor(rng.uniform() * 2)]);
  }
  const noise = 5 + 25 * rng.uniform();
  for (let y = 0; y < h; ++y)
    for (let x = 0; x < w; ++x) {
      let on = false;
      for (const [y0, y1, x0, x1, p] of bars)
        if (y >= y0 && y < y1 && x >= x0 && x < x1 && ((x >> p) & 1) === 0) on = true;
      for (let c = 0; c < 3; ++c) {
        const v = Math.min(255, Math.max(0, (on ? ink[c] : paper[c]) + noise * rng.normal()));
        img[(c * h + y) * w + x] = (v / 255 - 0.5) / 0.5;
      }
    }
  return img;
}

// A gradient background with texture, an ellipse "subject" and a box in front of it, pixel noise.
function photo(rng, h, w) {
  const img = new Float32Array(3 * h * w);
  const col = (lo, span) => [0, 0, 0].map(() => lo + span * rng.uniform());
  const bg0 = col(60, 150), bg1 = col(60, 150), fg = col(30, 200), box = col(30, 200);
  const cy = h * (0.4 + 0.2 * rng.uniform()), cx = w * (0.3 + 0.4 * rng.uniform());
  const ry = h * (0.2 + 0.2 * rng.uniform()), rx = w * (0.1 + 0.2 * rng.uniform());
  const by0 = Math.floor(h * (0.4 + 0.3 * rng.uniform())), bx0 = Math.floor(w * (0.4 + 0.3 * rng.uniform()));
  const by1 = Math.min(h, by0 + Math.floor(h * 0.3)), bx1 = Math.min(w, bx0 + Math.floor(w * 0.25));
  for (let y = 0; y < h; ++y)
    for (let x = 0; x < w; ++x) {
      const t = y / (h - 1);
      const inE = ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2 <= 1;
      const inB = y >= by0 && y < by1 && x >= bx0 && x < bx1;
      const shade = 1 - 0.3 * Math.hypot((y - cy) / ry, (x - cx) / rx);
      for (let c = 0; c < 3; ++c) {
        let v = inB ? box[c] : inE ? fg[c] * shade : (1 - t) * bg0[c] + t * bg1[c] + 12 * Math.sin(x / 37 + c) * Math.sin(y / 53);
        v = Math.round(Math.min(255, Math.max(0, v + 6 * rng.normal())));
        img[(c * h + y) * w + x] = (v - 128) / 256;
      }
    }
  return img;
}

const [kind, n, h, w, seed, out] = process.argv.slice(2);
if (!out || !['ocr', 'photo'].includes(kind)) {
  console.error('usage: make_quant_data.js ocr|photo N H W SEED out.bin');
  process.exit(2);
}
const rng = makeRng(Number(seed));
const make = kind === 'ocr' ? ocrImage : photo;
const tmp = out + '.tmp';
const fd = fs.openSync(tmp, 'w');
for (let i = 0; i < Number(n); ++i) {
  const img = make(rng, Number(h), Number(w));
  fs.writeSync(fd, Buffer.from(img.buffer));
}
fs.closeSync(fd);
fs.renameSync(tmp, out);
