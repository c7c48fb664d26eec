// Seeded speech-like audio for Silero VAD: a glottal pulse train (Rosenberg-like flow derivative,
// pitch with vibrato and jitter) through three moving formant resonators of five vowels, in
// syllables of 120-270 ms with fricative onsets and one pause, plus faint noise. Silero v5 reads it
// as speech (fp32 speech probability from near 0 in pauses to near 1), unlike cases.js's tones, on
// which it answers 1e-4 everywhere: far down its output sigmoid, where any error is a relative one.
'use strict';

const SR = 16000;
const VOWELS = [[730, 1090, 2440], [270, 2290, 3010], [300, 870, 2240], [530, 1840, 2480], [570, 840, 2410]];

function utterance(rng, n) {
  const y = new Float32Array(n);
  const res = [0, 1, 2].map(() => ({ y1: 0, y2: 0 }));
  let phase = 0, syl = -1, vowel = VOWELS[0], sylLen = 0, sylPos = 0, fric = false;
  const f0base = 100 + 120 * rng.uniform(), gain = 0.05 + 0.4 * rng.uniform();
  const pauseAt = rng.uniform();
  for (let i = 0; i < n; ++i) {
    if (sylPos >= sylLen) {
      syl++;
      sylPos = 0;
      sylLen = Math.floor(SR * (0.12 + 0.15 * rng.uniform()));
      vowel = VOWELS[Math.floor(rng.uniform() * 5)];
      fric = rng.uniform() < 0.3;
    }
    const t = sylPos / sylLen;
    sylPos++;
    const silent = Math.abs(i / n - pauseAt) < 0.08;
    const env = silent ? 0 : Math.sin(Math.PI * t) ** 0.7;
    const f0 = f0base * (1 + 0.15 * Math.sin(2 * Math.PI * 2 * i / SR + syl));
    phase += f0 * (1 + 0.01 * rng.normal()) / SR;
    if (phase >= 1) phase -= 1;
    let v = (phase < 0.6 ? Math.sin(Math.PI * phase / 0.6) * (phase < 0.4 ? 1 : -2) : 0) + 0.02 * rng.normal();
    for (let k = 0; k < 3; ++k) {  // a two-pole resonator per formant
      const f = vowel[k] * (1 + 0.05 * Math.sin(syl + k)), bw = 80 + 40 * k;
      const r = Math.exp(-Math.PI * bw / SR), a1 = 2 * r * Math.cos(2 * Math.PI * f / SR), a2 = -r * r;
      const o = v * (1 - r) * 4 + a1 * res[k].y1 + a2 * res[k].y2;
      res[k].y2 = res[k].y1;
      res[k].y1 = o;
      v = o;
    }
    let s = 3 * v * env;
    if (fric && t < 0.25 && !silent) s += 0.15 * rng.normal() * (1 - t / 0.25);
    y[i] = gain * s + 0.002 * rng.normal();
  }
  let peak = 0;
  for (const v of y) peak = Math.max(peak, Math.abs(v));
  for (let i = 0; i < n; ++i) y[i] *= gain / Math.max(peak, 1e-6);
  return y;
}

// Chunks of `utterances` utterances (seeds seed*100 + u) the way Silero v5 is fed in streaming
// (64 samples of context + 512 new ones, the LSTM state carried from chunk to chunk by ONNX Runtime
// running the float model): after 4 warm-up chunks, `steps` chunks of each. Returns { x: [steps *
// utterances, 576], state: [2, steps * utterances, 128] } (chunk-major: step s of utterance u is row
// s * utterances + u) and the float model's speech probability per row.
async function speechChunks(ort, session, seed, utterances, steps, makeRng) {
  const N = 512, C = 64, rows = steps * utterances;
  const x = new Float32Array(rows * (N + C)), state = new Float32Array(2 * rows * 128), prob = new Float32Array(rows);
  for (let u = 0; u < utterances; ++u) {
    const audio = utterance(makeRng(seed * 100 + u), (steps + 4) * N + C);
    let h = new Float32Array(2 * 128);
    for (let k = 0; k < steps + 4; ++k) {
      const chunk = audio.slice(k * N, k * N + N + C);
      const row = (k - 4) * utterances + u;
      if (k >= 4) {
        x.set(chunk, row * (N + C));
        for (let d = 0; d < 2; ++d) state.set(h.subarray(d * 128, d * 128 + 128), (d * rows + row) * 128);
      }
      const r = await session.run({
        input: new ort.Tensor('float32', chunk, [1, N + C]),
        state: new ort.Tensor('float32', h, [2, 1, 128]),
        sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
      });
      h = Float32Array.from(r.stateN.data);
      if (k >= 4) prob[row] = r.output.data[0];
    }
  }
  return { x, state, prob, rows, width: N + C };
}

module.exports = { utterance, speechChunks };
