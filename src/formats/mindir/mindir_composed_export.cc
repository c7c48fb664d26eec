#include "formats/mindir/mindir_composed_export.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

DType dtype_of(WriteCtx& c, const std::string& ir) {
  if (const Tensor* t = c.constant(ir)) return t->dtype();
  return c.abstract(ir).dtype;
}

// Static length of the 1-D axes tensor (input 1); the output rank depends on it.
int64_t axes_count(WriteCtx& c) {
  auto d = dims_of(c, 1);
  if (d.size() != 1 || d[0] < 0) fail_unsupported("{}: run-time axes need a 1-D axes tensor of known length for MindIR", label(c));
  return d[0];
}

// Which of R positions the axes name: m[p] = #{k : axes[k] mod R == p}, an int64 [R] tensor.
std::string axis_hits(Emit& e, const std::string& axes, int64_t n, int64_t R) {
  std::vector<int64_t> pos(R);
  std::iota(pos.begin(), pos.end(), 0);
  std::string ax = e.op("FloorMod", {e.op("Reshape", {axes, e.ints({n, 1})}), e.i64(R)});
  std::string hit = e.cast(e.op("Equal", {ax, e.int_tensor(pos, {1, R})}), DType::Int64);
  return e.reduce("ReduceSum", hit, {0}, false);
}

}  // namespace

// squeeze(x, axes) = reshape(x, shape(x)[kept]), kept = positions not named by axes. With
// keep = 1 - hits and c = cumsum(keep), the q-th kept position is #{p : c[p] <= q}.
void export_squeeze_runtime_axes(WriteCtx& c) {
  Emit e{c};
  int64_t r = rank_of(c, 0), n = axes_count(c);
  if (r < 0 || n > r) fail_unsupported("{}: Squeeze with run-time axes needs an input of known rank for MindIR", label(c));
  int64_t R = r - n;
  std::string shape;
  if (R == 0) {
    shape = e.ints({});
  } else {
    std::string keep = e.op("Sub", {e.i64(1), axis_hits(e, c.in(1), n, r)});
    std::string cum = e.op("CumSum", {keep, c.constant_node(MsValue::of_int(0))},
                           {{"exclusive", MsValue::of_bool(false)}, {"reverse", MsValue::of_bool(false)}});
    std::vector<int64_t> q(R);
    std::iota(q.begin(), q.end(), 0);
    std::string le = e.cast(e.op("LessEqual", {e.op("Reshape", {cum, e.ints({r, 1})}), e.int_tensor(q, {1, R})}), DType::Int64);
    shape = e.gather(e.op("TensorShape", {c.in(0)}), e.reduce("ReduceSum", le, {0}, false));
  }
  c.bind(out0(c), c.call("Reshape", {}, {c.in(0), shape}, out_abs(c)));
}

// unsqueeze(x, axes) = reshape(x, s) with s[p] = 1 where axes name p, else the next dim of x:
// s = concat(shape(x), [1])[idx], idx = (cumsum(keep) - 1) * keep + r * hits.
void export_unsqueeze_runtime_axes(WriteCtx& c) {
  Emit e{c};
  int64_t r = rank_of(c, 0), n = axes_count(c);
  if (r < 0) fail_unsupported("{}: Unsqueeze with run-time axes needs an input of known rank for MindIR", label(c));
  int64_t R = r + n;
  std::string hits = axis_hits(e, c.in(1), n, R);
  std::string keep = e.op("Sub", {e.i64(1), hits});
  std::string cum = e.op("CumSum", {keep, c.constant_node(MsValue::of_int(0))},
                         {{"exclusive", MsValue::of_bool(false)}, {"reverse", MsValue::of_bool(false)}});
  std::string src = e.op("Mul", {e.op("Sub", {cum, e.i64(1)}), keep});
  std::string idx = e.op("Add", {src, e.op("Mul", {hits, e.i64(r)})});
  std::string dims = e.concat({e.op("TensorShape", {c.in(0)}), e.int_tensor({1}, {1})});
  c.bind(out0(c), c.call("Reshape", {}, {c.in(0), e.gather(dims, idx)}, out_abs(c)));
}

// Output i = x[start_i : end_i] along axis, end = cumsum(split), start = end - split.
void export_split_runtime_sizes(WriteCtx& c, int64_t axis) {
  Emit e{c};
  std::string sizes = c.in(1);
  std::string ends = e.op("CumSum", {sizes, c.constant_node(MsValue::of_int(0))},
                          {{"exclusive", MsValue::of_bool(false)}, {"reverse", MsValue::of_bool(false)}});
  std::string starts = e.op("Sub", {ends, sizes});
  const Node& n = c.node();
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (n.outputs[i].empty()) continue;
    std::string at = e.int_tensor({static_cast<int64_t>(i)}, {1});
    // Lite form StridedSlice(x, starts, ends, axes, steps), as for a Slice with run-time bounds.
    c.bind(n.outputs[i], c.call("StridedSlice", {{"fmk_type", MsValue::of_int(2)}},
                                {c.in(0), e.gather(starts, at), e.gather(ends, at), e.ints({axis}), e.ints({1})},
                                c.abstract(n.outputs[i])));
  }
}

// Training-mode batch norm over the axes other than 1 (population variance, as ONNX):
//   y = (x - mean) / sqrt(var + eps) * scale + B
//   running_mean = input_mean * momentum + mean * (1 - momentum), likewise running_var.
void export_batch_norm_training(WriteCtx& c) {
  Emit e{c};
  int64_t r = rank_of(c, 0);
  if (r < 2) fail_unsupported("{}: training-mode BatchNormalization needs an input of known rank for MindIR", label(c));
  DType dt = dtype_of(c, c.node().inputs[0]);
  std::vector<int64_t> axes{0};
  for (int64_t k = 2; k < r; ++k) axes.push_back(k);
  float eps = float_attr(c, "epsilon", 1e-5f), momentum = float_attr(c, "momentum", 0.9f);
  std::string mean = e.reduce("ReduceMean", c.in(0), axes, true);
  std::string d = e.op("Sub", {c.in(0), mean});
  std::string var = e.reduce("ReduceMean", e.op("Mul", {d, d}), axes, true);
  std::vector<int64_t> per_channel(static_cast<size_t>(r - 1), 1);
  per_channel[0] = -1;
  std::string norm = e.op("Div", {d, e.op("Sqrt", {e.op("Add", {var, e.scalar(dt, eps)})})});
  std::string y = c.call("Add", {}, {e.op("Mul", {norm, e.op("Reshape", {c.in(1), e.ints(per_channel)})}),
                                     e.op("Reshape", {c.in(2), e.ints(per_channel)})}, out_abs(c));
  c.bind(out0(c), y);
  std::string stats[2] = {mean, var};
  for (size_t k = 1; k <= 2; ++k) {
    if (!has_out(c, k)) continue;
    std::string batch = e.op("Reshape", {stats[k - 1], e.ints({-1})});
    DType sdt = dtype_of(c, c.node().inputs[2 + k]);
    if (sdt != dt) batch = e.cast(batch, sdt);
    std::string run = e.op("Mul", {c.in(2 + k), e.scalar(sdt, momentum)});
    c.bind(c.node().outputs[k], c.call("Add", {}, {run, e.op("Mul", {batch, e.scalar(sdt, 1.0 - momentum)})}, out_abs(c, k)));
  }
}

// Dropout: mask = not training or u >= ratio with u ~ U[0,1), y = x * mask * (training ? 1/(1-ratio) : 1).
// Without a training_mode input (or with a constant false one) it is y = x, mask = all true.
void export_dropout_general(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  std::optional<std::vector<int64_t>> training = has_in(c, 2) ? const_ints(c, 2) : std::vector<int64_t>{0};
  if (const Tensor* t = has_in(c, 2) ? c.constant(n.inputs[2]) : nullptr; t && t->dtype() == DType::Bool)
    training = std::vector<int64_t>{t->data<bool>()[0] ? 1 : 0};
  std::string shape = e.op("TensorShape", {c.in(0)});
  if (training && !training->empty() && (*training)[0] == 0) {
    c.bind(out0(c), c.call("Identity", {}, {c.in(0)}, out_abs(c)));
    if (has_out(c, 1)) {
      Tensor yes(DType::Bool, {});
      yes.data<bool>()[0] = true;
      c.bind(n.outputs[1], c.call("FillV2", {}, {shape, c.constant_node(MsValue::of_tensor(yes))}, out_abs(c, 1)));
    }
    return;
  }
  DType dt = dtype_of(c, n.inputs[0]);
  std::string ratio = has_in(c, 1) ? c.in(1) : e.scalar(DType::Float32, float_attr(c, "ratio", 0.5f));
  DType rdt = has_in(c, 1) ? dtype_of(c, n.inputs[1]) : DType::Float32;
  std::string ratio32 = rdt == DType::Float32 ? ratio : e.cast(ratio, DType::Float32);
  std::string ratio_x = rdt == dt ? ratio : e.cast(ratio, dt);
  std::string t = c.in(2);
  std::string u = e.op("UniformReal", {shape}, {{"seed", MsValue::of_int(0)}, {"seed2", MsValue::of_int(0)}});
  std::string mask = e.op("LogicalOr", {e.op("LogicalNot", {t}), e.op("GreaterEqual", {u, ratio32})});
  std::string scale = e.op("Select", {t, e.op("Div", {e.scalar(dt, 1.0), e.op("Sub", {e.scalar(dt, 1.0), ratio_x})}), e.scalar(dt, 1.0)});
  c.bind(out0(c), c.call("Mul", {}, {e.op("Mul", {c.in(0), e.cast(mask, dt)}), scale}, out_abs(c)));
  if (has_out(c, 1)) c.bind(n.outputs[1], mask);
}

// MindSpore's LayerNorm returns (y, mean, variance); ONNX's InvStdDev = 1 / sqrt(variance + eps).
void export_layer_norm_with_stats(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  int64_t axis = int_attr(c, "axis", -1);
  float eps = float_attr(c, "epsilon", 1e-5f);
  Attrs a{{"begin_norm_axis", MsValue::of_int(axis)}, {"begin_params_axis", MsValue::of_int(axis)},
          {"epsilon", MsValue::of_float(eps)}};
  if (c.attr("stash_type")) a["stash_type"] = MsValue::of_int(int_attr(c, "stash_type", 1));
  std::vector<std::string> ins{c.in(0), c.in(1), has_in(c, 2) ? c.in(2) : c.constant_node(MsValue::none())};
  std::vector<Abstract> abs{out_abs(c), has_out(c, 1) ? out_abs(c, 1) : Abstract{}, has_out(c, 2) ? out_abs(c, 2) : Abstract{}};
  std::string t = c.call("LayerNorm", a, ins, tuple_abs(abs));
  c.bind(out0(c), c.get_item(t, 0, abs[0]));
  if (has_out(c, 1)) c.bind(n.outputs[1], c.get_item(t, 1, abs[1]));
  if (has_out(c, 2)) {
    DType sdt = abs[2].dtype != DType::Undefined ? abs[2].dtype : DType::Float32;
    std::string var = c.get_item(t, 2, Abstract{});
    std::string root = e.op("Sqrt", {e.op("Add", {var, e.scalar(sdt, eps)})});
    c.bind(n.outputs[2], c.call("Reciprocal", {}, {root}, abs[2]));
  }
}

// MaxPoolWithArgmaxV2 returns the argmax within each (n, c) plane, row-major: a = h * W + w.
// ONNX Indices are flat over the whole input: (n * C + c) * H * W + a, or with storage_order = 1
// the plane part is column-major: w * H + h.
void export_max_pool_with_indices(WriteCtx& c) {
  Emit e{c};
  auto k = ints_attr(c, "kernel_shape");
  auto dims = dims_of(c, 0);
  if (!k || k->size() != 2 || dims.size() != 4 || std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; }))
    fail_unsupported("{}: MaxPool with Indices needs a 2-D kernel and an input of known shape for MindIR", label(c));
  if (str_attr(c, "auto_pad", "NOTSET") != "NOTSET")
    fail_unsupported("{}: MaxPool with Indices and auto_pad is not supported in MindIR", label(c));
  int64_t N = dims[0], C = dims[1], H = dims[2], W = dims[3];
  std::vector<int64_t> pads = ints_attr(c, "pads").value_or(std::vector<int64_t>(4, 0));
  if (pads[0] != pads[2] || pads[1] != pads[3])
    fail_unsupported("{}: MaxPoolWithArgmaxV2 takes symmetric pads; {} are not", label(c), fmt::join(pads, ","));
  Attrs a{{"kernel_size", MsValue::of_ints(*k)},
          {"strides", MsValue::of_ints(ints_attr(c, "strides").value_or(std::vector<int64_t>{1, 1}))},
          {"pads", MsValue::of_ints({pads[0], pads[1]})},
          {"dilation", MsValue::of_ints(ints_attr(c, "dilations").value_or(std::vector<int64_t>{1, 1}))},
          {"ceil_mode", MsValue::of_bool(int_attr(c, "ceil_mode", 0) != 0)},
          {"argmax_type", MsValue::of_dtype(DType::Int64)}};
  Abstract ya = out_abs(c), ia = out_abs(c, 1);
  std::string t = c.call("MaxPoolWithArgmaxV2", a, {c.in(0)}, tuple_abs({ya, ia}));
  c.bind(out0(c), c.get_item(t, 0, ya));
  std::string plane = c.get_item(t, 1, Abstract{});
  if (int_attr(c, "storage_order", 0)) {
    std::string h = e.op("FloorDiv", {plane, e.i64(W)}), w = e.op("FloorMod", {plane, e.i64(W)});
    plane = e.op("Add", {e.op("Mul", {w, e.i64(H)}), h});
  }
  std::vector<int64_t> base(static_cast<size_t>(N * C));
  for (int64_t i = 0; i < N * C; ++i) base[i] = i * H * W;
  c.bind(c.node().outputs[1], c.call("Add", {}, {plane, e.int_tensor(base, {N, C, 1, 1})}, ia));
}

namespace {

// loss[n, d...] = -logp[n, t, d...] * w[t] with t = target[n, d...], 0 where t == ignore_index;
// sum: the sum of the losses; mean: that sum divided by the sum of the weights applied.
std::string nll(WriteCtx& c, const std::string& logp, DType dt) {
  Emit e{c};
  const Node& n = c.node();
  std::string t = c.in(1);
  DType tdt = dtype_of(c, n.inputs[1]);
  std::string keep;  // 1 where the target counts, in dt
  if (const Attribute* ii = c.node().attr("ignore_index")) {
    Tensor v(tdt, {});
    if (tdt == DType::Int32) v.data<int32_t>()[0] = static_cast<int32_t>(ii->i);
    else if (tdt == DType::Int64) v.data<int64_t>()[0] = ii->i;
    else fail_unsupported("{}: targets of {} are not supported in MindIR", label(c), dtype_name(tdt));
    std::string counts = e.op("LogicalNot", {e.op("Equal", {t, c.constant_node(MsValue::of_tensor(v))})});
    keep = e.cast(counts, dt);
    t = e.op("Mul", {t, e.cast(counts, tdt)});  // ignored targets read class 0, then weigh 0
  }
  std::string picked = e.op("Squeeze", {e.op("GatherD", {logp, c.constant_node(MsValue::of_int(1)),
                                                         e.op("ExpandDims", {t, c.constant_node(MsValue::of_int(1))})})},
                            {{"axis", MsValue::of_ints({1})}});
  std::string w = keep;
  if (has_in(c, 2)) {
    std::string wt = e.gather(c.in(2), t);
    w = keep.empty() ? wt : e.op("Mul", {wt, keep});
  }
  std::string loss = e.op("Neg", {picked});
  if (!w.empty()) loss = e.op("Mul", {loss, w});
  std::string reduction = str_attr(c, "reduction", "mean");
  if (reduction == "none") return loss;
  std::string total = e.reduce("ReduceSum", loss, {}, false);
  if (reduction == "sum") return total;
  if (reduction != "mean") fail("{}: reduction must be none, sum or mean, got '{}'", label(c), reduction);
  std::string weight_sum = w.empty() ? e.cast(e.op("Size", {t}), dt) : e.reduce("ReduceSum", w, {}, false);
  return e.op("Div", {total, weight_sum});
}

}  // namespace

void export_nll_loss(WriteCtx& c) {
  DType dt = dtype_of(c, c.node().inputs[0]);
  c.bind(out0(c), nll(c, c.in(0), dt));
}

void export_softmax_cross_entropy(WriteCtx& c) {
  DType dt = dtype_of(c, c.node().inputs[0]);
  std::string logp = c.call("LogSoftmax", {{"axis", MsValue::of_int(1)}}, {c.in(0)}, has_out(c, 1) ? out_abs(c, 1) : Abstract{});
  c.bind(out0(c), nll(c, logp, dt));
  if (has_out(c, 1)) c.bind(c.node().outputs[1], logp);
}

// hardmax(x)[..., j, ...] = 1 where j is the first index of the maximum along axis, else 0.
void export_hardmax(WriteCtx& c) {
  Emit e{c};
  int64_t axis = int_attr(c, "axis", -1);
  DType dt = dtype_of(c, c.node().inputs[0]);
  std::string t = c.call("ArgMaxWithValue", {{"axis", MsValue::of_int(axis)}, {"keep_dims", MsValue::of_bool(false)}}, {c.in(0)},
                         tuple_abs({Abstract{}, Abstract{}}));
  std::string depth = e.gather(e.op("TensorShape", {c.in(0)}), c.constant_node(MsValue::of_tensor(Tensor::scalar<int64_t>(axis))));
  c.bind(out0(c), c.call("OneHot", {{"axis", MsValue::of_int(axis)}},
                         {c.get_item(t, 0, Abstract{}), depth, e.scalar(dt, 1.0), e.scalar(dt, 0.0)}, out_abs(c)));
}

// shrink(x) = x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
void export_shrink(WriteCtx& c) {
  Emit e{c};
  DType dt = dtype_of(c, c.node().inputs[0]);
  float lambd = float_attr(c, "lambd", 0.5f), bias = float_attr(c, "bias", 0.0f);
  std::string x = c.in(0);
  std::string upper = e.op("Select", {e.op("Greater", {x, e.scalar(dt, lambd)}), e.op("Sub", {x, e.scalar(dt, bias)}), e.op("ZerosLike", {x})});
  c.bind(out0(c), c.call("Select", {}, {e.op("Less", {x, e.scalar(dt, -lambd)}), e.op("Add", {x, e.scalar(dt, bias)}), upper}, out_abs(c)));
}

// compress(x, cond, axis) = gather(x, nonzero(cond), axis); without axis over the flattened x.
void export_compress(WriteCtx& c) {
  Emit e{c};
  const Attribute* a = c.node().attr("axis");
  std::string x = a ? c.in(0) : e.op("Reshape", {c.in(0), e.ints({-1})});
  std::string idx = e.op("Reshape", {e.op("NonZero", {c.in(1)}), e.ints({-1})});
  c.bind(out0(c), c.call("Gather", {}, {x, idx, c.constant_node(MsValue::of_int(a ? a->i : 0))}, out_abs(c)));
}

RVal import_arg_max_with_value(ReadCtx& c) {
  int64_t axis = c.has_const_arg(1, "axis") ? c.const_arg(1, "axis").as_int() : 0;
  bool keep = c.has_const_arg(2, "keep_dims") && c.const_arg(2, "keep_dims").as_int() != 0;
  std::string x = c.tensor(0);
  std::string arg = c.add1("ArgMax", {x}, {{"axis", Attribute::of_int(axis)}, {"keepdims", Attribute::of_int(keep)}});
  std::string idx = c.add1("Cast", {arg}, {{"to", Attribute::of_int(static_cast<int64_t>(DType::Int32))}});
  std::string val = c.add1("ReduceMax", {x}, {{"axes", Attribute::of_ints({axis})}, {"keepdims", Attribute::of_int(keep)}});
  c.optional(val);
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  return RVal::tuple({RVal::tensor(idx, ab(0)), RVal::tensor(val, ab(1))});
}

void export_loop(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  const Attribute* ba = n.attr("body");
  if (!ba || !ba->g) fail("{}: Loop without a body", label(c));
  const Graph& body = *ba->g;
  const size_t N = n.inputs.size() - 2;
  if (body.inputs.size() != N + 2 || body.outputs.size() < N + 1) fail("{}: Loop body does not match its inputs", label(c));
  const size_t K = body.outputs.size() - 1 - N;
  const bool has_m = has_in(c, 0), has_cond = has_in(c, 1);
  if (!has_m && !has_cond) fail_unsupported("{}: a Loop without trip count and condition cannot be written to MindIR", label(c));

  // State of the recursion: i, c, v..., acc...
  std::vector<std::string> names{"i", "cond"};
  std::vector<Abstract> types{abstract_of(TypeInfo::tensor(DType::Int64, Shape{})), abstract_of(TypeInfo::tensor(DType::Bool, Shape{}))};
  for (size_t j = 0; j < N; ++j) {
    names.push_back("v" + std::to_string(j));
    types.push_back(c.abstract(n.inputs[2 + j]));
  }
  for (size_t k = 0; k < K; ++k) names.push_back("acc" + std::to_string(k));
  std::string base = n.name.empty() ? "loop" : n.name;
  std::string header = c.function_name(base + "_header");
  std::vector<std::string> state;
  for (const auto& nm : names) state.push_back(header + ":" + nm);  // the header's inputs, as open_function names them

  // body: the ONNX body with its inputs bound to the state, then the recursive call
  std::string body_fn = c.function_name(base + "_body");
  c.open_function(body_fn, {}, {});
  std::map<std::string, std::string> bound{{body.inputs[0].name, state[0]}, {body.inputs[1].name, state[1]}};
  std::map<std::string, TypeInfo> bound_types{{body.inputs[0].name, TypeInfo::tensor(DType::Int64, Shape{})},
                                               {body.inputs[1].name, TypeInfo::tensor(DType::Bool, Shape{})}};
  for (size_t j = 0; j < N; ++j) {
    bound[body.inputs[2 + j].name] = state[2 + j];
    if (const TypeInfo* t = c.type(n.inputs[2 + j])) bound_types[body.inputs[2 + j].name] = *t;
  }
  c.write_nodes(body, bound, bound_types);
  std::vector<Tensor> empty_acc;  // initial accumulators [0, element shape...], known once the body is typed
  for (size_t k = 0; k < K; ++k) {
    const ValueInfo& vi = body.outputs[1 + N + k];
    Abstract a = vi.type.kind == TypeInfo::Kind::Tensor && vi.type.shape ? abstract_of(vi.type) : c.abstract(vi.name);
    if (!a.rank_known || a.dtype == DType::Undefined || std::any_of(a.dims.begin(), a.dims.end(), [](int64_t d) { return d < 0; }))
      fail_unsupported("{}: scan output '{}' needs a static element shape for MindIR", label(c), vi.name);
    Shape acc{0};
    acc.insert(acc.end(), a.dims.begin(), a.dims.end());
    empty_acc.emplace_back(a.dtype, acc);
    a.dims.insert(a.dims.begin(), -1);
    types.push_back(a);
  }
  std::vector<std::string> next{e.op("Add", {state[0], e.i64(1)}), c.ref(body.outputs[0].name)};
  for (size_t j = 0; j < N; ++j) next.push_back(c.ref(body.outputs[1 + j].name));
  for (size_t k = 0; k < K; ++k)
    next.push_back(e.concat({state[2 + N + k], e.op("ExpandDims", {c.ref(body.outputs[1 + N + k].name), c.constant_node(MsValue::of_int(0))})}));
  c.close_function({c.call_value(header, next, Abstract{})}, {Abstract{}});

  // exit: the loop's results
  std::string exit_fn = c.function_name(base + "_exit");
  c.open_function(exit_fn, {}, {});
  std::vector<std::string> results(state.begin() + 2, state.end());
  c.close_function(results, std::vector<Abstract>(types.begin() + 2, types.end()));

  // header: go on while cond and i < M
  c.open_function(header, names, types);
  std::string go;
  if (has_m) go = e.op("Less", {state[0], c.in(0)});
  if (has_cond) go = go.empty() ? state[1] : e.op("LogicalAnd", {state[1], go});
  std::string sw = c.call("Switch", {}, {go, body_fn, exit_fn}, Abstract{});
  c.close_function({c.call_value(sw, {}, Abstract{})}, {Abstract{}});

  Tensor yes(DType::Bool, {});
  yes.data<bool>()[0] = true;
  std::vector<std::string> start{e.i64(0), has_cond ? c.in(1) : c.constant_node(MsValue::of_tensor(yes))};
  for (size_t j = 0; j < N; ++j) start.push_back(c.in(2 + j));
  for (auto& t : empty_acc) start.push_back(c.constant_node(MsValue::of_tensor(std::move(t))));
  std::vector<Abstract> out_types;
  for (size_t i = 0; i < n.outputs.size(); ++i) out_types.push_back(has_out(c, i) ? out_abs(c, i) : Abstract{});
  if (n.outputs.size() == 1) {
    c.bind(out0(c), c.call_value(header, start, out_types[0]));
    return;
  }
  std::string r = c.call_value(header, start, tuple_abs(out_types));
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (has_out(c, i)) c.bind(n.outputs[i], c.get_item(r, static_cast<int64_t>(i), out_types[i]));
}

void export_if(WriteCtx& c) {
  const Node& n = c.node();
  const Attribute* then_g = n.attr("then_branch");
  const Attribute* else_g = n.attr("else_branch");
  if (!then_g || !else_g || !then_g->g || !else_g->g) fail("{}: If without its branches", label(c));
  std::string base = n.name.empty() ? "if" : n.name;
  std::string then_fn = c.write_function(*then_g->g, base + "_then");
  std::string else_fn = c.write_function(*else_g->g, base + "_else");
  std::string sw = c.call("Switch", {}, {c.in(0), then_fn, else_fn}, Abstract{});
  if (n.outputs.size() == 1) {
    c.bind(out0(c), c.call_value(sw, {}, out_abs(c)));
    return;
  }
  std::vector<Abstract> abs;
  for (size_t i = 0; i < n.outputs.size(); ++i) abs.push_back(has_out(c, i) ? out_abs(c, i) : Abstract{});
  std::string r = c.call_value(sw, {}, tuple_abs(abs));
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (has_out(c, i)) c.bind(n.outputs[i], c.get_item(r, static_cast<int64_t>(i), abs[i]));
}

}  // namespace ms::mindir
