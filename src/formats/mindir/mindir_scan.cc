// Scan as a MindSpore loop (mindir_recurrence.h): each step takes element t of every scan input
// with Gather on its scan axis (index n-1-t for a reverse input), runs the ONNX body inline, and
// stacks the per-step outputs along a new axis 0 (from the front for a reverse output), moved to
// the output's scan axis with Transpose afterwards. Opset-8 Scan (batch on axis 0) is an outer loop
// over the batch rows around that. Why not unroll when the length is static: the recursion is the
// form MindSpore itself gives a loop over a tensor's length, it works for run-time lengths too, and
// the file stays the size of one body.
#include <algorithm>

#include "formats/mindir/mindir_recurrence.h"
#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

namespace {

using namespace wu;

struct ScanAxes {
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
};

struct Typed {
  std::vector<std::string> refs;
  std::vector<Abstract> types;
};

int64_t nth(const std::vector<int64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

Abstract drop_axis(Abstract a, int64_t axis) {
  if (a.rank_known && axis >= 0 && axis < static_cast<int64_t>(a.dims.size())) a.dims.erase(a.dims.begin() + axis);
  return a;
}

TypeInfo type_of(const Abstract& a) {
  if (!a.rank_known) return TypeInfo::tensor_unknown_shape(a.dtype);
  std::vector<Dim> d;
  for (int64_t x : a.dims) d.push_back(x >= 0 ? Dim::fixed(x) : Dim{});
  return TypeInfo::tensor(a.dtype, d);
}

Abstract body_output_type(WriteCtx& c, const ValueInfo& vi) {
  Abstract a = c.abstract(vi.name);
  if (a.dtype == DType::Undefined && vi.type.kind == TypeInfo::Kind::Tensor) a = abstract_of(vi.type);
  return a;
}

// One opset-9 scan of `body`; returns the final states and the stacked outputs with their types.
Typed write_scan(WriteCtx& c, const Graph& body, const std::string& base, const Typed& states, const Typed& xs, const ScanAxes& ax) {
  Emit e{c};
  const size_t N = states.refs.size(), M = xs.refs.size();
  if (M == 0) fail("{}: Scan without scan inputs", label(c));
  if (body.inputs.size() != N + M || body.outputs.size() < N)
    fail("{}: the Scan body takes {} inputs and returns {} values; the node has {} states and {} scan inputs", label(c),
         body.inputs.size(), body.outputs.size(), N, M);
  const size_t K = body.outputs.size() - N;
  std::vector<int64_t> axes(M);
  bool any_reverse = false;
  for (size_t j = 0; j < M; ++j) {
    int64_t a = nth(ax.in_axes, j);
    const Abstract& t = xs.types[j];
    if (a < 0) {
      if (!t.rank_known) fail_unsupported("{}: a negative scan axis on an input of unknown rank cannot be written to MindIR", label(c));
      a += static_cast<int64_t>(t.dims.size());
    }
    axes[j] = a;
    any_reverse = any_reverse || nth(ax.in_dirs, j) != 0;
  }
  Recurrence r;
  r.base = base;
  r.length = dim_as_scalar(c, xs.refs[0], xs.types[0], axes[0]);
  std::string last = any_reverse ? e.op("Sub", {r.length, e.i64(1)}) : "";
  r.init = states.refs;
  r.init_types = states.types;
  for (size_t k = 0; k < K; ++k) r.prepend.push_back(nth(ax.out_dirs, k) != 0);
  r.step = [&](const std::string& t, const std::vector<std::string>& st) {
    std::map<std::string, std::string> bound;
    std::map<std::string, TypeInfo> bound_types;
    for (size_t i = 0; i < N; ++i) {
      bound[body.inputs[i].name] = st[i];
      bound_types[body.inputs[i].name] = type_of(states.types[i]);
    }
    for (size_t j = 0; j < M; ++j) {
      std::string idx = nth(ax.in_dirs, j) != 0 ? e.op("Sub", {last, t}) : t;
      bound[body.inputs[N + j].name] = e.op("Gather", {xs.refs[j], idx, c.constant_node(MsValue::of_int(axes[j]))});
      bound_types[body.inputs[N + j].name] = type_of(drop_axis(xs.types[j], axes[j]));
    }
    c.write_nodes(body, bound, bound_types);
    RecurrenceStep s;
    for (size_t i = 0; i < N; ++i) s.next.push_back(c.ref(body.outputs[i].name));
    for (size_t k = 0; k < K; ++k) {
      s.ys.push_back(c.ref(body.outputs[N + k].name));
      s.y_types.push_back(body_output_type(c, body.outputs[N + k]));
    }
    return s;
  };
  // The step runs when write_recurrence writes the body; the body's output types are known after.
  std::vector<std::string> outs = write_recurrence(c, r);
  Typed result;
  const int64_t len = xs.types[0].rank_known && axes[0] < static_cast<int64_t>(xs.types[0].dims.size()) ? xs.types[0].dims[axes[0]] : -1;
  for (size_t i = 0; i < N; ++i) {
    result.refs.push_back(outs[i]);
    result.types.push_back(body_output_type(c, body.outputs[i]));
  }
  for (size_t k = 0; k < K; ++k) {
    Abstract y = body_output_type(c, body.outputs[N + k]);
    std::string v = outs[N + k];
    if (y.rank_known) {
      const int64_t rank = static_cast<int64_t>(y.dims.size()) + 1;
      int64_t a = nth(ax.out_axes, k);
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) fail("{}: scan_output_axes {} is out of range for rank {}", label(c), nth(ax.out_axes, k), rank);
      y.dims.insert(y.dims.begin() + a, len);
      if (a != 0) {
        std::vector<int64_t> perm;
        for (int64_t d = 1; d <= a; ++d) perm.push_back(d);
        perm.push_back(0);
        for (int64_t d = a + 1; d < rank; ++d) perm.push_back(d);
        v = c.call("Transpose", {}, {v, c.constant_node(MsValue::of_ints(perm))}, y);
      }
    } else if (nth(ax.out_axes, k) != 0) {
      fail_unsupported("{}: a scan output axis on an output of unknown rank cannot be written to MindIR", label(c));
    }
    result.refs.push_back(v);
    result.types.push_back(y);
  }
  return result;
}

std::vector<int64_t> ints_or_empty(WriteCtx& c, const char* name) { return ints_attr(c, name).value_or(std::vector<int64_t>{}); }

}  // namespace

void export_scan(WriteCtx& c) {
  Emit e{c};
  const Node& n = c.node();
  const Attribute* ba = n.attr("body");
  if (!ba || !ba->g) fail("{}: Scan without a body", label(c));
  const Graph& body = *ba->g;
  const int64_t M = int_attr(c, "num_scan_inputs", 0);
  // Opset 8 has the optional sequence_lens in front of the states; its body has one input fewer.
  const bool v8 = n.inputs.size() == body.inputs.size() + 1;
  const size_t first = v8 ? 1 : 0;
  if (M < 1 || first + static_cast<size_t>(M) > n.inputs.size()) fail("{}: num_scan_inputs {} does not fit the inputs", label(c), M);
  const size_t N = n.inputs.size() - first - static_cast<size_t>(M);
  Typed states, xs;
  for (size_t i = 0; i < n.inputs.size() - first; ++i) {
    Typed& dst = i < N ? states : xs;
    dst.refs.push_back(c.in(first + i));
    dst.types.push_back(c.abstract(n.inputs[first + i]));
  }
  std::string base = n.name.empty() ? "scan" : n.name;
  Typed out;
  if (!v8) {
    ScanAxes ax{ints_or_empty(c, "scan_input_axes"), ints_or_empty(c, "scan_input_directions"), ints_or_empty(c, "scan_output_axes"),
                ints_or_empty(c, "scan_output_directions")};
    out = write_scan(c, body, base, states, xs, ax);
  } else {
    if (has_in(c, 0))
      fail_unsupported("{}: opset-8 Scan with sequence_lens is not written to MindIR (every row must scan the whole sequence)", label(c));
    // Axis 0 is the batch: an outer loop over the rows scans each along its axis 0 and stacks the
    // row results, states and scan outputs alike.
    ScanAxes ax{{}, ints_or_empty(c, "directions"), {}, {}};
    Recurrence rows;
    rows.base = base + "_rows";
    rows.length = dim_as_scalar(c, xs.refs[0], xs.types[0], 0);
    rows.step = [&](const std::string& b, const std::vector<std::string>&) {
      Typed st, x;
      for (size_t i = 0; i < N; ++i) {
        st.refs.push_back(e.op("Gather", {states.refs[i], b, c.constant_node(MsValue::of_int(0))}));
        st.types.push_back(drop_axis(states.types[i], 0));
      }
      for (size_t j = 0; j < xs.refs.size(); ++j) {
        x.refs.push_back(e.op("Gather", {xs.refs[j], b, c.constant_node(MsValue::of_int(0))}));
        x.types.push_back(drop_axis(xs.types[j], 0));
      }
      Typed row = write_scan(c, body, base, st, x, ax);
      return RecurrenceStep{{}, row.refs, row.types};
    };
    out.refs = write_recurrence(c, rows);
  }
  for (size_t i = 0; i < n.outputs.size() && i < out.refs.size(); ++i)
    if (has_out(c, i)) c.bind(n.outputs[i], out.refs[i]);
}

}  // namespace ms::mindir
