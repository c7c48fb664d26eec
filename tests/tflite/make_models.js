#!/usr/bin/env node
// Writes the quantized TFLite test models of tflite_quant_test.cc as FlatBuffers JSON (models/*.json,
// field names of TFLite's schema; the build turns them into .tflite with `flatc -b`), and their
// references: a seeded input and the outputs of TFLite's own runtime (tfjs-tflite, WebAssembly) on
// it, in data/<model>/, listed by data/manifest.json.
//
// The models are quantized the way TFLite's converter does it (post-training, full integer):
//   * each network is first built in float32 with every intermediate tensor as a graph output, run
//     in TFLite on calibration images, and each tensor's min/max becomes its quantization range;
//   * int8: weights symmetric per channel (CONV_2D axis 0, DEPTHWISE_CONV_2D axis 3), FULLY_CONNECTED
//     weights symmetric per tensor, int32 biases with scale input_scale * weight_scale, activations
//     asymmetric per tensor; ops whose int8 kernels require it keep their input's scale (pooling,
//     RESHAPE, PAD, RESIZE_BILINEAR, CONCATENATION, the latter after QUANTIZE requantizing its
//     inputs); LOGISTIC and SOFTMAX write scale 1/256, zero point -128; float I/O through
//     QUANTIZE/DEQUANTIZE, one int8 output left quantized;
//   * uint8 (the old quantized-MobileNet style): everything per tensor and asymmetric, weights
//     included, uint8 input and outputs.
//
// Developers only; CI never runs this (it uses the committed JSON and .npy files). Usage, from the
// repository root, with flatc on PATH and tfjs-tflite installed (npm ci --prefix tests/real_models/reference):
//   node tests/tflite/make_models.js
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { loadRuntime, makeRng, npyBytes, image } = require('../real_models/tflite_runtime.js');

const HERE = __dirname;
const SCHEMA = path.join(HERE, '..', '..', 'src', 'formats', 'tflite', 'tflite_schema.fbs');
const MODELS_DIR = path.join(HERE, 'models');
const DATA = path.join(HERE, 'data');

// TFLite's builtin operator codes (schema.fbs BuiltinOperator).
const CODES = {
  ADD: 0, AVERAGE_POOL_2D: 1, CONCATENATION: 2, CONV_2D: 3, DEPTHWISE_CONV_2D: 4, DEQUANTIZE: 6,
  FULLY_CONNECTED: 9, LOGISTIC: 14, MAX_POOL_2D: 17, MUL: 18, RESHAPE: 22, RESIZE_BILINEAR: 23,
  SOFTMAX: 25, PAD: 34, MEAN: 40, QUANTIZE: 114,
};

const roundAway = (x) => Math.sign(x) * Math.floor(Math.abs(x) + 0.5);  // TF's std::round
const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
const LIMITS = { INT8: [-128, 127], UINT8: [0, 255] };

// Asymmetric per-tensor parameters covering [lo, hi] (and 0, so that zero is exact).
function asymmetric(lo, hi, type) {
  const [qmin, qmax] = LIMITS[type];
  lo = Math.min(lo, 0);
  hi = Math.max(hi, 0);
  if (hi - lo < 1e-6) hi = lo + 1e-6;
  const scale = (hi - lo) / (qmax - qmin);
  return { scale, zero_point: clamp(roundAway(qmin - lo / scale), qmin, qmax) };
}

// One network description, built either in float32 (calibration: every tensor is an output) or
// quantized (`type` INT8 or UINT8, `ranges` from calibration).
class Builder {
  constructor(seed, type, ranges) {
    this.rng = makeRng(seed);
    this.type = type;  // 'FLOAT32' | 'INT8' | 'UINT8'
    this.ranges = ranges;
    this.buffers = [{}];
    this.tensors = [];
    this.operators = [];
    this.opcodes = [];
    this.inputs = [];
    this.outputs = [];
    this.calibrated = [];  // float build: [name, tensor index] of every activation
  }
  get quant() { return this.type !== 'FLOAT32'; }

  buffer(bytes) {
    this.buffers.push({ data: Array.from(bytes) });
    return this.buffers.length - 1;
  }
  tensor(name, shape, type, extra = {}) {
    this.tensors.push({ shape, type, buffer: 0, name, ...extra });
    return { index: this.tensors.length - 1, name, shape, type, q: extra.quantization };
  }
  constInt32(name, shape, values) {
    return this.tensor(name, shape, 'INT32', { buffer: this.buffer(new Uint8Array(Int32Array.from(values).buffer)) });
  }
  op(code, inputs, outputs, optionsType, options) {
    let k = this.opcodes.findIndex((c) => c.builtin_code === code);
    if (k < 0) {
      this.opcodes.push({ deprecated_builtin_code: CODES[code], builtin_code: code, version: 1 });
      k = this.opcodes.length - 1;
    }
    const o = { opcode_index: k, inputs: inputs.map((t) => (t ? t.index : -1)), outputs: outputs.map((t) => t.index) };
    if (optionsType) Object.assign(o, { builtin_options_type: optionsType, builtin_options: options || {} });
    this.operators.push(o);
  }

  // The activation tensor `name` writes: float, or quantized with its calibrated range (or `fixed`).
  activation(name, shape, fixed) {
    if (!this.quant) {
      const t = this.tensor(name, shape, 'FLOAT32');
      this.calibrated.push([name, t.index]);
      return t;
    }
    let q = fixed;
    if (!q) {
      const r = this.ranges[name];
      if (!r) throw new Error(`no calibration range for ${name}`);
      q = asymmetric(r[0], r[1], this.type);
    }
    return this.tensor(name, shape, this.type, { quantization: { scale: [q.scale], zero_point: [q.zero_point] } });
  }
  // Same quantization as `x` (the int8 kernels of pooling, reshape, pad, resize require it).
  like(x, name, shape) {
    if (!this.quant) return this.activation(name, shape);
    return this.tensor(name, shape, this.type, { quantization: x.q });
  }

  uniform(n, a) {
    const v = new Float32Array(n);
    for (let i = 0; i < n; ++i) v[i] = (2 * this.rng() - 1) * a;
    return v;
  }

  // Weights [channels, ...] in float, quantized per channel along `axis` (int8, symmetric) or per
  // tensor (perTensor; asymmetric for uint8).
  weights(name, shape, values, axis, perTensor) {
    if (!this.quant) return this.tensor(name, shape, 'FLOAT32', { buffer: this.buffer(new Uint8Array(values.buffer)) });
    perTensor = perTensor || this.type === 'UINT8';  // uint8 kernels take per-tensor weights only
    const n = values.length, channels = perTensor ? 1 : shape[axis];
    const inner = perTensor ? 1 : shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const scales = [], zps = [];
    for (let c = 0; c < channels; ++c) {
      let lo = 0, hi = 0;
      for (let i = 0; i < n; ++i)
        if (perTensor || Math.floor(i / inner) % shape[axis] === c) lo = Math.min(lo, values[i]), hi = Math.max(hi, values[i]);
      if (this.type === 'INT8') {
        scales.push(Math.max(-lo, hi, 1e-8) / 127);
        zps.push(0);
      } else {
        const q = asymmetric(lo, hi, 'UINT8');
        scales.push(q.scale);
        zps.push(q.zero_point);
      }
    }
    const [qmin, qmax] = this.type === 'INT8' ? [-127, 127] : [0, 255];
    const data = this.type === 'INT8' ? new Int8Array(n) : new Uint8Array(n);
    for (let i = 0; i < n; ++i) {
      const c = perTensor ? 0 : Math.floor(i / inner) % shape[axis];
      data[i] = clamp(roundAway(values[i] / scales[c]) + zps[c], qmin, qmax);
    }
    const quantization = { scale: scales, zero_point: zps, quantized_dimension: perTensor ? 0 : axis };
    return this.tensor(name, shape, this.type, { buffer: this.buffer(new Uint8Array(data.buffer)), quantization });
  }
  // int32 bias with scale input_scale * weight_scale[c].
  bias(name, values, x, w) {
    if (!this.quant) return this.tensor(name, [values.length], 'FLOAT32', { buffer: this.buffer(new Uint8Array(values.buffer)) });
    const ws = w.q.scale, scales = [];
    const data = new Int32Array(values.length);
    for (let c = 0; c < values.length; ++c) {
      const s = x.q.scale[0] * ws[ws.length === 1 ? 0 : c];
      scales.push(s);
      data[c] = roundAway(values[c] / s);
    }
    const perTensor = ws.length === 1;
    const quantization = { scale: perTensor ? [scales[0]] : scales, zero_point: perTensor ? [0] : scales.map(() => 0), quantized_dimension: 0 };
    return this.tensor(name, [values.length], 'INT32', { buffer: this.buffer(new Uint8Array(data.buffer)), quantization });
  }

  // ---- layers -----------------------------------------------------------------------------------
  input(name, shape) {
    if (this.type === 'UINT8') {
      const t = this.activation(name, shape, { scale: 1 / 128, zero_point: 128 });
      this.inputs.push(t.index);
      return t;
    }
    const t = this.tensor(name, shape, 'FLOAT32');
    this.inputs.push(t.index);
    if (!this.quant) return t;
    const q = this.activation(name + '_int8', shape, asymmetric(-1, 1, 'INT8'));
    this.op('QUANTIZE', [t], [q]);
    return q;
  }
  output(x, keepQuantized) {
    if (!this.quant || keepQuantized || this.type === 'UINT8') {
      this.outputs.push(x.index);
      return;
    }
    const f = this.tensor(x.name + '_float', x.shape, 'FLOAT32');
    this.op('DEQUANTIZE', [x], [f]);
    this.outputs.push(f.index);
  }
  conv(x, name, { cout, k, stride = 1, padding = 'SAME', act = 'NONE' }) {
    const [n, h, w, cin] = x.shape;
    const oh = padding === 'SAME' ? Math.ceil(h / stride) : Math.floor((h - k) / stride) + 1;
    const ow = padding === 'SAME' ? Math.ceil(w / stride) : Math.floor((w - k) / stride) + 1;
    const wt = this.weights(name + '/weights', [cout, k, k, cin], this.uniform(cout * k * k * cin, Math.sqrt(6 / (k * k * cin))), 0, false);
    const b = this.bias(name + '/bias', this.uniform(cout, 0.2), x, wt);
    const y = this.activation(name, [n, oh, ow, cout]);
    this.op('CONV_2D', [x, wt, b], [y], 'Conv2DOptions',
      { padding, stride_w: stride, stride_h: stride, fused_activation_function: act, dilation_w_factor: 1, dilation_h_factor: 1 });
    return y;
  }
  depthwise(x, name, { k, stride = 1, padding = 'SAME', act = 'NONE' }) {
    const [n, h, w, c] = x.shape;
    const oh = padding === 'SAME' ? Math.ceil(h / stride) : Math.floor((h - k) / stride) + 1;
    const ow = padding === 'SAME' ? Math.ceil(w / stride) : Math.floor((w - k) / stride) + 1;
    const wt = this.weights(name + '/depthwise_weights', [1, k, k, c], this.uniform(k * k * c, Math.sqrt(6 / (k * k))), 3, false);
    const b = this.bias(name + '/bias', this.uniform(c, 0.2), x, wt);
    const y = this.activation(name, [n, oh, ow, c]);
    this.op('DEPTHWISE_CONV_2D', [x, wt, b], [y], 'DepthwiseConv2DOptions',
      { padding, stride_w: stride, stride_h: stride, depth_multiplier: 1, fused_activation_function: act, dilation_w_factor: 1, dilation_h_factor: 1 });
    return y;
  }
  fullyConnected(x, name, { units, act = 'NONE' }) {
    const cin = x.shape[x.shape.length - 1];
    const wt = this.weights(name + '/weights', [units, cin], this.uniform(units * cin, Math.sqrt(6 / cin)), 0, true);
    const b = this.bias(name + '/bias', this.uniform(units, 0.2), x, wt);
    const y = this.activation(name, [x.shape[0], units]);
    this.op('FULLY_CONNECTED', [x, wt, b], [y], 'FullyConnectedOptions', { fused_activation_function: act });
    return y;
  }
  binary(code, a, b, name, act = 'NONE') {
    const y = this.activation(name, a.shape);
    this.op(code, [a, b], [y], code === 'ADD' ? 'AddOptions' : 'MulOptions', { fused_activation_function: act });
    return y;
  }
  // LOGISTIC and SOFTMAX: TFLite's quantized kernels require output scale 1/256 and the lowest zero point.
  probability(code, x, name) {
    const y = this.activation(name, x.shape, { scale: 1 / 256, zero_point: this.type === 'INT8' ? -128 : 0 });
    if (code === 'SOFTMAX') this.op(code, [x], [y], 'SoftmaxOptions', { beta: 1 });
    else this.op(code, [x], [y]);
    return y;
  }
  pool(code, x, name, { k, stride, padding = 'VALID' }) {
    const [n, h, w, c] = x.shape;
    const oh = padding === 'SAME' ? Math.ceil(h / stride) : Math.floor((h - k) / stride) + 1;
    const ow = padding === 'SAME' ? Math.ceil(w / stride) : Math.floor((w - k) / stride) + 1;
    const y = this.like(x, name, [n, oh, ow, c]);
    this.op(code, [x], [y], 'Pool2DOptions',
      { padding, stride_w: stride, stride_h: stride, filter_width: k, filter_height: k, fused_activation_function: 'NONE' });
    return y;
  }
  pad(x, name, [top, bottom, left, right]) {
    const [n, h, w, c] = x.shape;
    const p = this.constInt32(name + '/paddings', [4, 2], [0, 0, top, bottom, left, right, 0, 0]);
    const y = this.like(x, name, [n, h + top + bottom, w + left + right, c]);
    this.op('PAD', [x, p], [y]);
    return y;
  }
  reshape(x, name, shape) {
    const s = this.constInt32(name + '/shape', [shape.length], shape);
    const y = this.like(x, name, shape);
    this.op('RESHAPE', [x, s], [y], 'ReshapeOptions', { new_shape: shape });
    return y;
  }
  resizeBilinear(x, name, [oh, ow], { align_corners = false, half_pixel_centers = false } = {}) {
    const s = this.constInt32(name + '/size', [2], [oh, ow]);
    const y = this.like(x, name, [x.shape[0], oh, ow, x.shape[3]]);
    this.op('RESIZE_BILINEAR', [x, s], [y], 'ResizeBilinearOptions', { align_corners, half_pixel_centers });
    return y;
  }
  mean(x, name, axes) {
    const a = this.constInt32(name + '/axes', [axes.length], axes);
    const y = this.activation(name, x.shape.filter((_, i) => !axes.includes(i)));
    this.op('MEAN', [x, a], [y], 'ReducerOptions', { keep_dims: false });
    return y;
  }
  // CONCATENATION: the int8 kernel wants one scale for all; inputs with another are requantized by a
  // QUANTIZE first, as the converter does.
  concat(xs, name, axis) {
    const shape = xs[0].shape.slice();
    shape[axis] = xs.reduce((s, x) => s + x.shape[axis], 0);
    const y = this.activation(name, shape);
    const ins = xs.map((x, i) => {
      if (!this.quant || (x.q.scale[0] === y.q.scale[0] && x.q.zero_point[0] === y.q.zero_point[0])) return x;
      const r = this.like(y, `${name}/requantized_${i}`, x.shape);
      this.op('QUANTIZE', [x], [r]);
      return r;
    });
    this.op('CONCATENATION', ins, [y], 'ConcatenationOptions', { axis, fused_activation_function: 'NONE' });
    return y;
  }

  json(description) {
    const outputs = this.quant ? this.outputs : this.outputs.concat(this.calibrated.map(([, i]) => i));
    return {
      version: 3,
      operator_codes: this.opcodes,
      subgraphs: [{ tensors: this.tensors, inputs: this.inputs, outputs, operators: this.operators, name: 'main' }],
      description,
      buffers: this.buffers,
    };
  }
}

// ---- the networks --------------------------------------------------------------------------------
// A small int8 image network: every op of a mobile CNN that TFLite quantizes, float I/O.
function int8Net(b) {
  const x = b.input('image', [1, 16, 16, 3]);
  const c1 = b.conv(x, 'conv1', { cout: 16, k: 3, stride: 2, act: 'RELU6' });
  const d1 = b.depthwise(c1, 'depthwise1', { k: 3, act: 'RELU' });
  const c2 = b.conv(d1, 'project1', { cout: 16, k: 1 });
  const r = b.binary('ADD', c1, c2, 'residual1');
  const g = b.probability('LOGISTIC', r, 'gate1');
  const s = b.binary('MUL', r, g, 'swish1');
  const up = b.resizeBilinear(s, 'upsample', [16, 16], { half_pixel_centers: true });
  const cat = b.concat([up, x], 'concat', 3);
  const mp = b.pool('MAX_POOL_2D', cat, 'maxpool', { k: 2, stride: 2 });
  const p = b.pad(mp, 'pad', [1, 1, 1, 1]);
  const c3 = b.conv(p, 'conv3', { cout: 24, k: 3, stride: 2, padding: 'VALID', act: 'RELU' });
  const ap = b.pool('AVERAGE_POOL_2D', c3, 'avgpool', { k: 2, stride: 1, padding: 'SAME' });
  const m = b.mean(ap, 'global_mean', [1, 2]);
  const fc = b.fullyConnected(m, 'logits', { units: 10 });
  b.output(b.probability('SOFTMAX', fc, 'probabilities'));
  const flat = b.reshape(ap, 'flatten', [1, 4 * 4 * 24]);
  b.output(b.fullyConnected(flat, 'embedding', { units: 8, act: 'RELU' }), true);
  // Feature maps as outputs too, so that many values are compared.
  b.output(cat);
  b.output(ap, true);
}

// Old-style uint8 MobileNet: per-tensor asymmetric weights, uint8 in and out.
function uint8Net(b) {
  const x = b.input('image', [1, 16, 16, 3]);
  const c1 = b.conv(x, 'conv1', { cout: 8, k: 3, stride: 2, act: 'RELU6' });
  const d1 = b.depthwise(c1, 'depthwise1', { k: 3, act: 'RELU6' });
  const c2 = b.conv(d1, 'pointwise1', { cout: 16, k: 1, act: 'RELU6' });
  const d2 = b.depthwise(c2, 'depthwise2', { k: 3, stride: 2, act: 'RELU6' });
  const c3 = b.conv(d2, 'pointwise2', { cout: 16, k: 1 });
  const c4 = b.conv(c2, 'shortcut', { cout: 16, k: 1, stride: 2 });
  const r = b.binary('ADD', c3, c4, 'residual', 'RELU6');
  const ap = b.pool('AVERAGE_POOL_2D', r, 'global_pool', { k: 4, stride: 4 });
  const logits = b.conv(ap, 'logits', { cout: 10, k: 1 });
  const flat = b.reshape(logits, 'flatten', [1, 10]);
  b.output(flat);
  b.output(b.probability('SOFTMAX', flat, 'probabilities'));
  b.output(r);
}

// tolerance_steps: how many quantization steps each output may differ from TFLite's. One, except
// where TFLite's runtime (XNNPACK's int8 kernels, which tfjs-tflite and TFLite's Python interpreter
// apply by default) rounds differently from the QDQ IR's float arithmetic before the output:
// RESIZE_BILINEAR rounds exact ties (interpolation weights are multiples of 1/16 here) up where
// QuantizeLinear rounds them to even, and the int8->int8 QUANTIZE in front of CONCATENATION
// requantizes with an 8-bit fixed-point multiplier (input/output scale 0.3862 becomes 99/256), one
// step off where the exact product is within 0.01 of a rounding boundary. A value that is one step
// off twice is two off (concat); a FULLY_CONNECTED over 384 such values five (embedding): mstools
// computes a float bilinear Resize in ONNX Runtime's float32 arithmetic (src/ops/resize_util.cc),
// whose coordinates and weights are rounded, so the exact ties above become near-ties that fall
// either way, and more of the 384 inputs are a step off.
const NETS = [
  { name: 'int8_cnn', type: 'INT8', net: int8Net, seed: 7, tolerance_steps: [1, 5, 2, 1] },
  { name: 'uint8_mobilenet', type: 'UINT8', net: uint8Net, seed: 11, tolerance_steps: [1, 1, 1] },
];

// ---- control flow (float) -------------------------------------------------------------------------
// main:  (i, y) = WHILE(cond, body)(0, x);  s = SUM(y);  out = IF(s > 0, then, else)(y)
// cond:  i < 5                      body: (i + 1, y * a + b)
// then:  y * 2                      else: y - 1
// Outputs: out (float [1,4]) and i reshaped to [1] (int32, 5 after the loop).
function controlFlowModel() {
  const buffers = [{}];
  const f32 = (v) => { buffers.push({ data: Array.from(new Uint8Array(Float32Array.from(v).buffer)) }); return buffers.length - 1; };
  const i32 = (v) => { buffers.push({ data: Array.from(new Uint8Array(Int32Array.from(v).buffer)) }); return buffers.length - 1; };
  const codes = ['WHILE', 'LESS', 'ADD', 'MUL', 'SUM', 'GREATER', 'IF', 'SUB', 'RESHAPE'];
  const CF = { WHILE: 119, LESS: 58, ADD: 0, MUL: 18, SUM: 74, GREATER: 61, IF: 118, SUB: 41, RESHAPE: 22 };
  const opcode = (name) => codes.indexOf(name);
  const T = (name, shape, type, buffer = 0) => ({ shape, type, buffer, name });
  const add = (a, b, out) => ({ opcode_index: opcode('ADD'), inputs: [a, b], outputs: [out], builtin_options_type: 'AddOptions', builtin_options: {} });
  const main = {
    name: 'main',
    tensors: [T('x', [1, 4], 'FLOAT32'), T('i0', [], 'INT32', i32([0])), T('i', [], 'INT32'), T('y', [1, 4], 'FLOAT32'),
      T('sum_axes', [2], 'INT32', i32([0, 1])), T('s', [], 'FLOAT32'), T('zero', [], 'FLOAT32', f32([0])), T('positive', [], 'BOOL'),
      T('out', [1, 4], 'FLOAT32'), T('shape_1', [1], 'INT32', i32([1])), T('iterations', [1], 'INT32')],
    inputs: [0], outputs: [8, 10],
    operators: [
      { opcode_index: opcode('WHILE'), inputs: [1, 0], outputs: [2, 3], builtin_options_type: 'WhileOptions',
        builtin_options: { cond_subgraph_index: 1, body_subgraph_index: 2 } },
      { opcode_index: opcode('SUM'), inputs: [3, 4], outputs: [5], builtin_options_type: 'ReducerOptions', builtin_options: { keep_dims: false } },
      { opcode_index: opcode('GREATER'), inputs: [5, 6], outputs: [7] },
      { opcode_index: opcode('IF'), inputs: [7, 3], outputs: [8], builtin_options_type: 'IfOptions',
        builtin_options: { then_subgraph_index: 3, else_subgraph_index: 4 } },
      // tfjs-tflite cannot hand back a rank-0 output.
      { opcode_index: opcode('RESHAPE'), inputs: [2, 9], outputs: [10], builtin_options_type: 'ReshapeOptions', builtin_options: { new_shape: [1] } },
    ],
  };
  const cond = {
    name: 'cond',
    tensors: [T('cond_i', [], 'INT32'), T('cond_y', [1, 4], 'FLOAT32'), T('limit', [], 'INT32', i32([5])), T('more', [], 'BOOL')],
    inputs: [0, 1], outputs: [3],
    operators: [{ opcode_index: opcode('LESS'), inputs: [0, 2], outputs: [3] }],
  };
  const body = {
    name: 'body',
    tensors: [T('body_i', [], 'INT32'), T('body_y', [1, 4], 'FLOAT32'), T('one', [], 'INT32', i32([1])), T('next_i', [], 'INT32'),
      T('a', [4], 'FLOAT32', f32([1.1, 0.5, -0.9, 1.0])), T('scaled', [1, 4], 'FLOAT32'), T('b', [4], 'FLOAT32', f32([0.1, -0.2, 0.3, 0.05])),
      T('next_y', [1, 4], 'FLOAT32')],
    inputs: [0, 1], outputs: [3, 7],
    operators: [add(0, 2, 3),
      { opcode_index: opcode('MUL'), inputs: [1, 4], outputs: [5], builtin_options_type: 'MulOptions', builtin_options: {} },
      add(5, 6, 7)],
  };
  const thenG = {
    name: 'then',
    tensors: [T('then_y', [1, 4], 'FLOAT32'), T('two', [], 'FLOAT32', f32([2])), T('doubled', [1, 4], 'FLOAT32')],
    inputs: [0], outputs: [2],
    operators: [{ opcode_index: opcode('MUL'), inputs: [0, 1], outputs: [2], builtin_options_type: 'MulOptions', builtin_options: {} }],
  };
  const elseG = {
    name: 'else',
    tensors: [T('else_y', [1, 4], 'FLOAT32'), T('else_one', [], 'FLOAT32', f32([1])), T('lowered', [1, 4], 'FLOAT32')],
    inputs: [0], outputs: [2],
    operators: [{ opcode_index: opcode('SUB'), inputs: [0, 1], outputs: [2], builtin_options_type: 'SubOptions', builtin_options: {} }],
  };
  return {
    version: 3,
    operator_codes: codes.map((c) => ({ deprecated_builtin_code: CF[c], builtin_code: c, version: 1 })),
    subgraphs: [main, cond, body, thenG, elseG],
    description: 'mstools test model control_flow: WHILE and IF (make_models.js)',
    buffers,
  };
}

// ---- SSD post-processing (float) ----------------------------------------------------------------
// LOGISTIC on the class logits, then the custom op TFLite_Detection_PostProcess with a constant
// anchor grid; its options are a flexbuffer map (encoded by `flatc --flexbuffers`), with the keys
// and the scales TF's object detection API exports.
const SSD_ANCHORS = 96, SSD_CLASSES = 3;

function flexbufferMap(map, tmp) {
  const j = path.join(tmp, 'options.json');
  fs.writeFileSync(j, JSON.stringify(map));
  execFileSync('flatc', ['-b', '--flexbuffers', '-o', tmp, j]);
  return Array.from(fs.readFileSync(path.join(tmp, 'options.bin')));
}

function ssdModel(regularNms, tmp) {
  const anchors = [];
  for (let k = 0; k < SSD_ANCHORS; ++k) {
    const cell = k >> 1, y = Math.floor(cell / 8), x = cell % 8, size = k & 1 ? 0.35 : 0.2;
    anchors.push((y + 0.5) / 6, (x + 0.5) / 8, size, size * (k & 1 ? 0.5 : 1));  // ycenter, xcenter, h, w
  }
  const options = flexbufferMap({
    max_detections: 20, max_classes_per_detection: 1, detections_per_class: 8, use_regular_nms: regularNms,
    nms_score_threshold: 0.6, nms_iou_threshold: 0.5, num_classes: SSD_CLASSES,
    y_scale: 10.0, x_scale: 10.0, h_scale: 5.0, w_scale: 5.0,
  }, tmp);
  const T = (name, shape, type, buffer = 0) => ({ shape, type, buffer, name });
  return {
    version: 3,
    operator_codes: [{ deprecated_builtin_code: 14, builtin_code: 'LOGISTIC', version: 1 },
      { deprecated_builtin_code: 32, builtin_code: 'CUSTOM', custom_code: 'TFLite_Detection_PostProcess', version: 1 }],
    subgraphs: [{
      name: 'main',
      tensors: [T('raw_outputs/box_encodings', [1, SSD_ANCHORS, 4], 'FLOAT32'),
        T('raw_outputs/class_logits', [1, SSD_ANCHORS, SSD_CLASSES + 1], 'FLOAT32'),
        T('raw_outputs/class_predictions', [1, SSD_ANCHORS, SSD_CLASSES + 1], 'FLOAT32'),
        T('anchors', [SSD_ANCHORS, 4], 'FLOAT32', 1),
        T('TFLite_Detection_PostProcess', [], 'FLOAT32'), T('TFLite_Detection_PostProcess:1', [], 'FLOAT32'),
        T('TFLite_Detection_PostProcess:2', [], 'FLOAT32'), T('TFLite_Detection_PostProcess:3', [], 'FLOAT32')],
      inputs: [0, 1], outputs: [4, 5, 6, 7],
      operators: [{ opcode_index: 0, inputs: [1], outputs: [2] },
        { opcode_index: 1, inputs: [0, 2, 3], outputs: [4, 5, 6, 7], custom_options: options, custom_options_format: 'FLEXBUFFERS' }],
    }],
    description: `mstools test model: SSD post-processing, ${regularNms ? 'regular' : 'fast'} NMS (make_models.js)`,
    buffers: [{}, { data: Array.from(new Uint8Array(Float32Array.from(anchors).buffer)) }],
  };
}

// Box encodings near the anchors; class logits mostly below the score threshold (fewer detections
// than max_detections, so the padding of the outputs is compared too).
function ssdInputs(seed) {
  const rng = makeRng(seed);
  const boxes = Float32Array.from({ length: SSD_ANCHORS * 4 }, () => (2 * rng() - 1) * 2);
  const logits = Float32Array.from({ length: SSD_ANCHORS * (SSD_CLASSES + 1) }, () => (2 * rng() - 1) * 3 - 2.3);
  return [boxes, logits];
}

// Float models, each run on its inputs: the control-flow model twice (the IF takes its then branch
// for one input, its else branch for the other), the SSD post-processing with both NMS flavours.
const FLOAT_CASES = [
  { name: 'control_flow_then', model: 'control_flow', json: controlFlowModel, inputs: () => [[0.5, 1.0, 0.25, 2.0]] },
  { name: 'control_flow_else', model: 'control_flow', json: controlFlowModel, inputs: () => [[-3.0, -1.0, 0.5, -2.0]] },
  { name: 'ssd_postprocess_fast_nms', model: 'ssd_postprocess_fast_nms', json: (tmp) => ssdModel(false, tmp), inputs: () => ssdInputs(21) },
  { name: 'ssd_postprocess_regular_nms', model: 'ssd_postprocess_regular_nms', json: (tmp) => ssdModel(true, tmp), inputs: () => ssdInputs(22) },
];

// ---- running them --------------------------------------------------------------------------------
function flatcBinary(json, dir, name) {
  const j = path.join(dir, name + '.json');
  fs.writeFileSync(j, JSON.stringify(json));
  execFileSync('flatc', ['-b', '-o', dir, SCHEMA, j]);
  return fs.readFileSync(path.join(dir, name + '.bin'));
}

async function load(tflite, bytes) {
  return tflite.loadTFLiteModel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), { numThreads: 1 });
}

function run(tf, model, feeds) {
  const result = model.predict(feeds.length === 1 ? feeds[0] : feeds);
  return result instanceof tf.Tensor ? [result] : Array.isArray(result) ? result : model.outputs.map((o) => result[o.name]);
}

// Readable, diff-friendly JSON: objects one field per line, arrays of numbers or strings on one line.
function pretty(v, indent = '') {
  if (Array.isArray(v)) {
    if (v.every((e) => typeof e !== 'object')) return JSON.stringify(v);
    const inner = indent + ' ';
    return '[\n' + v.map((e) => inner + pretty(e, inner)).join(',\n') + '\n' + indent + ']';
  }
  if (v && typeof v === 'object') {
    const inner = indent + ' ';
    return '{\n' + Object.entries(v).map(([k, e]) => `${inner}${JSON.stringify(k)}: ${pretty(e, inner)}`).join(',\n') + '\n' + indent + '}';
  }
  return JSON.stringify(v);
}

async function main() {
  const { tf, tflite } = await loadRuntime();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-quant-'));
  fs.mkdirSync(MODELS_DIR, { recursive: true });
  const manifest = { generator: 'tests/tflite/make_models.js; outputs by tfjs-tflite 0.0.1-alpha.10 (TFLite WebAssembly runtime)', models: [] };
  for (const spec of NETS) {
    // 1. calibration: the float network on a few images, min/max of every activation.
    const fb = new Builder(spec.seed, 'FLOAT32');
    spec.net(fb);
    const floatModel = await load(tflite, flatcBinary(fb.json('float calibration model'), tmp, spec.name + '_float'));
    const ranges = {};
    const rng = makeRng(spec.seed * 100);
    for (let k = 0; k < 8; ++k) {
      const inp = floatModel.inputs[0];
      const outs = run(tf, floatModel, [tf.tensor(image(rng, inp.shape, -1, 1), inp.shape, 'float32')]);
      const tail = outs.slice(outs.length - fb.calibrated.length);
      fb.calibrated.forEach(([name], i) => {
        const d = tail[i].dataSync();
        let lo = Infinity, hi = -Infinity;
        for (const v of d) lo = Math.min(lo, v), hi = Math.max(hi, v);
        const r = ranges[name] || [Infinity, -Infinity];
        ranges[name] = [Math.min(r[0], lo), Math.max(r[1], hi)];
      });
    }
    // 2. the quantized network, its JSON committed.
    const qb = new Builder(spec.seed, spec.type, ranges);
    spec.net(qb);
    const json = qb.json(`mstools test model ${spec.name}: ${spec.type} post-training quantized (make_models.js)`);
    fs.writeFileSync(path.join(MODELS_DIR, spec.name + '.json'), pretty(json) + '\n');
    const model = await load(tflite, flatcBinary(json, tmp, spec.name));

    // 3. references: a fresh image through TFLite's runtime.
    const dir = path.join(DATA, spec.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const entry = { name: spec.name, model: spec.name + '.tflite', inputs: [], outputs: [], output_steps: [],
      tolerance_steps: spec.tolerance_steps };
    const feeds = model.inputs.map((inp, i) => {
      const img = image(makeRng(spec.seed * 1000 + i), inp.shape, -1, 1);
      if (inp.dtype === 'float32') {
        fs.writeFileSync(path.join(dir, `input_${i}.npy`), npyBytes('float32', inp.shape, img));
        entry.inputs.push(`${spec.name}/input_${i}.npy`);
        return tf.tensor(img, inp.shape, 'float32');
      }
      const t = qb.tensors[qb.inputs[i]], q = t.quantization;
      const raw = Uint8Array.from(img, (v) => clamp(roundAway(v / q.scale[0]) + q.zero_point[0], 0, 255));
      fs.writeFileSync(path.join(dir, `input_${i}.npy`), npyBytes('uint8', inp.shape, raw));
      entry.inputs.push(`${spec.name}/input_${i}.npy`);
      return tf.tensor(Int32Array.from(raw), inp.shape, 'int32');
    });
    const outs = run(tf, model, feeds);
    outs.forEach((t, i) => {
      const ft = qb.tensors[qb.outputs[i]];
      // One quantization step of the output: its scale when float (the DEQUANTIZE's input), 1 when integer.
      let step = 1, dtype = 'float32', data = t.dataSync();
      if (ft.type === 'FLOAT32') {
        const producer = qb.operators.find((o) => o.outputs[0] === qb.outputs[i]);
        step = qb.tensors[producer.inputs[0]].quantization.scale[0];
      } else {
        dtype = ft.type === 'INT8' ? 'int8' : 'uint8';
        data = dtype === 'int8' ? Int8Array.from(data) : Uint8Array.from(data);
      }
      fs.writeFileSync(path.join(dir, `output_${i}.npy`), npyBytes(dtype, t.shape, data));
      entry.outputs.push(`${spec.name}/output_${i}.npy`);
      entry.output_steps.push(step);
    });
    manifest.models.push(entry);
    console.log(`${spec.name}: ${qb.operators.length} operators, ${entry.outputs.length} outputs`);
  }
  for (const spec of FLOAT_CASES) {
    const json = spec.json(tmp);
    fs.writeFileSync(path.join(MODELS_DIR, spec.model + '.json'), pretty(json) + '\n');
    const model = await load(tflite, flatcBinary(json, tmp, spec.model));
    const dir = path.join(DATA, spec.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const entry = { name: spec.name, model: spec.model + '.tflite', inputs: [], outputs: [], output_steps: [], tolerance_steps: [] };
    const feeds = spec.inputs().map((values, i) => {
      const shape = model.inputs[i].shape;
      fs.writeFileSync(path.join(dir, `input_${i}.npy`), npyBytes('float32', shape, Float32Array.from(values)));
      entry.inputs.push(`${spec.name}/input_${i}.npy`);
      return tf.tensor(Float32Array.from(values), shape, 'float32');
    });
    run(tf, model, feeds).forEach((t, i) => {
      const data = t.dataSync();
      fs.writeFileSync(path.join(dir, `output_${i}.npy`), npyBytes(t.dtype, t.shape, t.dtype === 'int32' ? Int32Array.from(data) : data));
      entry.outputs.push(`${spec.name}/output_${i}.npy`);
      // Float outputs: 1e-5 of their largest magnitude (as "steps" of 1), integers exactly.
      entry.output_steps.push(t.dtype === 'float32' ? 1e-5 * Math.max(1, ...Array.from(data, Math.abs)) : 1e-9);
      entry.tolerance_steps.push(1);
      console.log(`${spec.name}: output ${i} [${t.shape}] = [${Array.from(data).slice(0, 12).map((v) => v.toFixed(5)).join(', ')}]`);
    });
    manifest.models.push(entry);
  }
  fs.writeFileSync(path.join(DATA, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
