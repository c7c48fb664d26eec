// RNN and GRU written as MindSpore's nn.RNN / nn.GRU write them on CPU (_DynamicRNNBase in
// mindspore/nn/layer/rnns.py): a `while t < T` loop over the cell, in primitives, one loop per
// direction, with sequence lengths applied by masking the new state and the output (the
// variable_recurrent form). MindSpore's fused GRU kernels (CudnnGRU, DynamicGRUV2) compute only
// the linear_before_reset = 1 cell and take their weights as flat parameters; the loop holds both
// ONNX cells and weights computed at run time, and reads back through the same Loop reader.
//   RNN: h' = f(x W^T + h R^T + Wb + Rb)
//   GRU (ONNX gate order z, r, h): z = f(x Wz^T + h Rz^T + Wbz + Rbz), r likewise,
//        n = g(x Wh^T + (r h) Rh^T + Rbh + Wbh)   or, linear_before_reset, g(x Wh^T + Wbh + r (h Rh^T + Rbh)),
//        h' = (1 - z) n + z h
// ONNX clip bounds the activations' inputs; activations other than Sigmoid, Tanh and Relu are refused.
#include <cstring>

#include "formats/mindir/mindir_recurrence.h"
#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;
using Attrs = std::map<std::string, MsValue>;

struct Cell {
  DType dt = DType::Float32;
  int64_t H = 0;
  bool clip = false, linear_before_reset = false;
  float clip_value = 0;
  std::vector<std::string> acts;                  // this direction's activations (RNN: f; GRU: f, g)
  std::vector<std::string> W, R, Wb, Rb;          // per gate: [H, I], [H, H], [H] (biases empty without B)
};

std::string matmul_t(WriteCtx& c, const std::string& a, const std::string& w) {  // a w^T
  Attrs at{{"transpose_a", MsValue::of_bool(false)}, {"transpose_b", MsValue::of_bool(true)},
           {"transpose_x1", MsValue::of_bool(false)}, {"transpose_x2", MsValue::of_bool(true)},
           {"input_names", strs({"x1", "x2"})}, {"output_names", strs({"output"})}};
  return c.call("MatMul", at, {a, w}, Abstract{});
}

std::string activate(WriteCtx& c, const Cell& cell, size_t k, std::string v) {
  Emit e{c};
  if (cell.clip) v = e.op("Minimum", {e.op("Maximum", {v, e.scalar(cell.dt, -cell.clip_value)}), e.scalar(cell.dt, cell.clip_value)});
  const std::string& f = cell.acts.at(k);
  if (f == "Sigmoid") return e.op("Sigmoid", {v});
  if (f == "Tanh") return e.op("Tanh", {v});
  return e.op("ReLU", {v});
}

std::string add_opt(Emit& e, const std::string& a, const std::string& b) { return b.empty() ? a : e.op("Add", {a, b}); }

// The new state of one step.
std::string rnn_step(WriteCtx& c, const Cell& cell, bool gru, const std::string& x, const std::string& h) {
  Emit e{c};
  auto bias = [&](size_t g) { return cell.Wb.empty() ? std::string() : e.op("Add", {cell.Wb[g], cell.Rb[g]}); };
  if (!gru) return activate(c, cell, 0, add_opt(e, e.op("Add", {matmul_t(c, x, cell.W[0]), matmul_t(c, h, cell.R[0])}), bias(0)));
  auto gate = [&](size_t g) { return activate(c, cell, 0, add_opt(e, e.op("Add", {matmul_t(c, x, cell.W[g]), matmul_t(c, h, cell.R[g])}), bias(g))); };
  std::string z = gate(0), r = gate(1), pre;
  if (cell.linear_before_reset) {
    std::string rh = e.op("Mul", {r, add_opt(e, matmul_t(c, h, cell.R[2]), cell.Wb.empty() ? "" : cell.Rb[2])});
    pre = e.op("Add", {add_opt(e, matmul_t(c, x, cell.W[2]), cell.Wb.empty() ? "" : cell.Wb[2]), rh});
  } else {
    pre = add_opt(e, e.op("Add", {matmul_t(c, x, cell.W[2]), matmul_t(c, e.op("Mul", {r, h}), cell.R[2])}), bias(2));
  }
  std::string n = activate(c, cell, 1, pre);
  return e.op("Add", {e.op("Mul", {e.op("Sub", {e.scalar(cell.dt, 1.0), z}), n}), e.op("Mul", {z, h})});
}

std::string concat_on(WriteCtx& c, const std::vector<std::string>& parts, int64_t axis, const Abstract& out) {
  std::string t = c.call("MakeTuple", {}, parts, tuple_abs(std::vector<Abstract>(parts.size())));
  return c.call("Concat", {{"axis", MsValue::of_int(axis)}, {"inputNums", MsValue::of_int(static_cast<int64_t>(parts.size()))}}, {t}, out);
}

std::string transpose(WriteCtx& c, const std::string& v, const std::vector<int64_t>& perm, const Abstract& out) {
  return c.call("Transpose", {}, {v, c.constant_node(MsValue::of_ints(perm))}, out);
}

void export_recurrent(WriteCtx& c, bool gru) {
  Emit e{c};
  const Node& n = c.node();
  const char* op = gru ? "GRU" : "RNN";
  const int G = gru ? 3 : 1;
  const std::string direction = str_attr(c, "direction", "forward");
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    fail("{}: unknown {} direction '{}'", label(c), op, direction);
  const bool batch_first = int_attr(c, "layout", 0) != 0;
  Abstract xt = c.abstract(n.inputs[0]);
  if (!xt.rank_known || xt.dims.size() != 3) fail_unsupported("{}: {} needs an input X of known rank 3 for MindIR", label(c), op);
  if (batch_first) std::swap(xt.dims[0], xt.dims[1]);
  const DType dt = xt.dtype;
  int64_t H = int_attr(c, "hidden_size", -1);
  if (H <= 0 && rank_of(c, 2) == 3 && dims_of(c, 2)[2] >= 0) H = dims_of(c, 2)[2];
  if (H <= 0) fail_unsupported("{}: {} without hidden_size and with R of unknown shape cannot be written to MindIR", label(c), op);

  std::vector<std::string> acts;
  if (const Attribute* a = c.attr("activations"); a && !a->strings.empty()) acts = a->strings;
  const size_t per_dir = gru ? 2 : 1;
  if (acts.empty())
    for (int64_t d = 0; d < D; ++d) {
      acts.push_back(gru ? "Sigmoid" : "Tanh");
      if (gru) acts.push_back("Tanh");
    }
  if (acts.size() != per_dir * static_cast<size_t>(D))
    fail("{}: {} activations given, {} {} expects {}", label(c), acts.size(), direction, op, per_dir * D);
  for (const auto& a : acts)
    if (a != "Sigmoid" && a != "Tanh" && a != "Relu")
      fail_unsupported("{}: {} activation {} is not written to MindIR (nn.RNN / nn.GRU cells use Sigmoid, Tanh and Relu only)", label(c),
                       op, a);

  std::string x = batch_first ? transpose(c, c.in(0), {1, 0, 2}, xt) : c.in(0);
  std::string T = dim_as_scalar(c, x, xt, 0);
  std::string last = D == 2 || direction == "reverse" ? e.op("Sub", {T, e.i64(1)}) : "";
  std::string h0 = has_in(c, 5) ? (batch_first ? transpose(c, c.in(5), {1, 0, 2}, Abstract{}) : c.in(5)) : "";
  std::string lens = has_in(c, 4) ? e.cast(c.in(4), DType::Int64) : "";
  // [B, H] zeros: the initial state when none is given, and the empty output stack [0, B, H].
  std::string batch = e.gather(e.op("TensorShape", {x}), e.int_tensor({1}, {1}));
  Tensor zero(dt, {});
  std::memset(zero.raw(), 0, zero.nbytes());
  auto zeros = [&](std::vector<std::string> dims) { return e.op("FillV2", {e.concat(dims), c.constant_node(MsValue::of_tensor(zero))}); };
  std::string W4 = e.op("Reshape", {c.in(1), e.ints({D, G, H, -1})});
  std::string R4 = e.op("Reshape", {c.in(2), e.ints({D, G, H, H})});
  std::string B5 = has_in(c, 3) ? e.op("Reshape", {c.in(3), e.ints({D, 2, G, H})}) : "";
  Abstract state_type;
  state_type.kind = Abstract::Kind::Tensor;
  state_type.dtype = dt;
  state_type.rank_known = true;
  state_type.dims = {xt.dims[1], H};

  std::vector<std::string> Ys, Yhs;
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    Cell cell;
    cell.dt = dt;
    cell.H = H;
    cell.linear_before_reset = int_attr(c, "linear_before_reset", 0) != 0;
    if (const Attribute* a = c.attr("clip"); a && a->type == AttrType::Float) {
      cell.clip = true;
      cell.clip_value = a->f;
    }
    cell.acts.assign(acts.begin() + static_cast<int64_t>(d * per_dir), acts.begin() + static_cast<int64_t>((d + 1) * per_dir));
    std::string Wd = e.gather(W4, e.i64(d)), Rd = e.gather(R4, e.i64(d));
    std::string Bd = B5.empty() ? "" : e.gather(B5, e.i64(d));
    for (int g = 0; g < G; ++g) {
      cell.W.push_back(e.gather(Wd, e.i64(g)));
      cell.R.push_back(e.gather(Rd, e.i64(g)));
      if (!Bd.empty()) {
        cell.Wb.push_back(e.gather(e.gather(Bd, e.i64(0)), e.i64(g)));
        cell.Rb.push_back(e.gather(e.gather(Bd, e.i64(1)), e.i64(g)));
      }
    }
    Recurrence r;
    r.base = n.name.empty() ? std::string(op) : n.name;
    r.length = T;
    r.init = {h0.empty() ? zeros({batch, e.int_tensor({H}, {1})}) : e.gather(h0, e.i64(d))};
    r.init_types = {state_type};
    r.empty = {zeros({e.int_tensor({0}, {1}), batch, e.int_tensor({H}, {1})})};
    r.prepend = {reverse};
    r.step = [&](const std::string& t, const std::vector<std::string>& st) {
      std::string idx = reverse ? e.op("Sub", {last, t}) : t;
      std::string h = st[0];
      std::string hn = rnn_step(c, cell, gru, e.gather(x, idx), h), y = hn;
      if (!lens.empty()) {
        // m = (idx < len) per batch row: the state moves and the output shows only inside the sequence.
        std::string m = e.op("ExpandDims", {e.cast(e.op("Less", {idx, lens}), dt), c.constant_node(MsValue::of_int(1))});
        y = e.op("Mul", {m, hn});
        hn = e.op("Add", {y, e.op("Mul", {e.op("Sub", {e.scalar(dt, 1.0), m}), h})});
      }
      return RecurrenceStep{{hn}, {y}, {state_type}};
    };
    std::vector<std::string> outs = write_recurrence(c, r);
    Yhs.push_back(outs[0]);
    Ys.push_back(outs[1]);
  }

  // Y [T, D, B, H] and Y_h [D, B, H] (layout 1: [B, T, D, H] and [B, D, H]); the last op of each
  // carries the node's output type.
  auto finish = [&](std::vector<std::string> parts, int64_t axis, size_t out, const std::vector<int64_t>& perm) {
    if (!has_out(c, out)) return;
    Abstract mid = batch_first ? Abstract{} : out_abs(c, out);
    for (auto& p : parts) p = c.call("ExpandDims", {}, {p, c.constant_node(MsValue::of_int(axis))}, parts.size() == 1 ? mid : Abstract{});
    std::string v = parts.size() == 1 ? parts[0] : concat_on(c, parts, axis, mid);
    if (batch_first) v = transpose(c, v, perm, out_abs(c, out));
    c.bind(n.outputs[out], v);
  };
  finish(Ys, 1, 0, {2, 0, 1, 3});
  finish(Yhs, 0, 1, {1, 0, 2});
}

}  // namespace

void export_rnn(WriteCtx& c) { export_recurrent(c, false); }
void export_gru(WriteCtx& c) { export_recurrent(c, true); }

// MindSpore's fused GRU (nn.GRU on GPU: CudnnGRU(x, h, w); GRUV2(x, h, w, seq_lengths)) is cuDNN's
// GRU: the linear_before_reset cell, the flat weight [W_ih; W_hh; b_ih; b_hh] with the gates in the
// order r, z, n (ONNX: z, r, h), outputs (y [T, B, D*H], h_n, reserve, state).
RVal import_ms_gru(ReadCtx& c) {
  auto geti = [&](const char* n, int64_t d) { return c.attr(n) ? c.attr(n)->as_int() : d; };
  if (!c.attr("input_size") || !c.attr("hidden_size")) fail("{}: {} without input_size / hidden_size", c.what(), c.prim());
  if (c.inputs().size() < 3) fail("{}: {} takes (x, h, w{})", c.what(), c.prim(), c.prim() == "GRUV2" ? ", seq_lengths" : "");
  const int64_t I = geti("input_size", 0), H = geti("hidden_size", 0), L = geti("num_layers", 1);
  const bool bias = geti("has_bias", 1) != 0, bidir = geti("bidirectional", 0) != 0;
  if (L != 1 || bidir)
    fail_unsupported("{}: {} with {} layers{} is not supported (one forward layer is)", c.what(), c.prim(), L, bidir ? ", bidirectional" : "");
  auto i64 = [](std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); };
  std::string w = c.tensor(2);
  auto slice = [&](int64_t b, int64_t e) {
    return c.add1("Slice", {w, c.add_const(i64({b}), "starts"), c.add_const(i64({e}), "ends"), c.add_const(i64({0}), "axes")});
  };
  auto reorder = [&](const std::string& flat, int64_t cols) {  // r, z, n -> z, r, h
    std::string g = c.add1("Reshape", {flat, c.add_const(i64({3, H, cols}), "shape")});
    auto parts = c.add("Split", {g}, {{"axis", Attribute::of_int(0)}}, 3);
    std::string cat = c.add1("Concat", {parts[1], parts[0], parts[2]}, {{"axis", Attribute::of_int(0)}});
    return c.add1("Reshape", {cat, c.add_const(i64({1, 3 * H, cols}), "shape")});
  };
  int64_t off = 0;
  std::string W = reorder(slice(off, off + 3 * H * I), I);
  off += 3 * H * I;
  std::string R = reorder(slice(off, off + 3 * H * H), H);
  off += 3 * H * H;
  std::string B;
  if (bias) {
    std::string cat = c.add1("Concat", {reorder(slice(off, off + 3 * H), 1), reorder(slice(off + 3 * H, off + 6 * H), 1)},
                             {{"axis", Attribute::of_int(1)}});
    B = c.add1("Reshape", {cat, c.add_const(i64({1, 6 * H}), "shape")});
  }
  std::string lens = c.inputs().size() > 3 ? c.tensor(3) : "";
  auto outs = c.add("GRU", {c.tensor(0), W, R, B, lens, c.tensor(1)},
                    {{"hidden_size", Attribute::of_int(H)}, {"linear_before_reset", Attribute::of_int(1)}}, 2);
  std::string y = c.add1("Squeeze", {outs[0], c.add_const(i64({1}), "axes")});
  const Abstract& oa = c.out_abstract();
  auto ab = [&](size_t i) { return oa.kind == Abstract::Kind::Tuple && i < oa.elems.size() ? oa.elems[i] : Abstract{}; };
  return RVal::tuple({RVal::tensor(y, ab(0)), RVal::tensor(outs[1], ab(1)), RVal{}, RVal{}});
}

}  // namespace ms::mindir
