// Scan: for t over the scan axis, (state..., y_t...) = body(state..., x_t...); outputs are the final
// states and the y_t stacked along scan_output_axes (opset 8 form: batched, with sequence_lens).
#include "ops/sequence_util.h"

namespace ms {

namespace {
struct ScanSpec {
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
};

// One opset-9 scan over `states` and `xs`; returns final states followed by stacked scan outputs.
std::vector<Tensor> scan_once(const KernelContext& ctx, const Graph& body, std::vector<Tensor> states,
                              const std::vector<Tensor>& xs, const ScanSpec& spec, int64_t max_len) {
  const std::string who = ctx.node().label();
  const size_t N = states.size(), M = xs.size();
  if (body.inputs.size() != N + M)
    fail("{}: body takes {} inputs, expected {} states + {} scan inputs", who, body.inputs.size(), N, M);
  std::vector<int64_t> axes(M);
  int64_t len = -1;
  for (size_t j = 0; j < M; ++j) {
    axes[j] = normalize_axis(j < spec.in_axes.size() ? spec.in_axes[j] : 0, xs[j].rank(), ctx.node());
    const int64_t l = xs[j].dim(static_cast<int>(axes[j]));
    if (len >= 0 && l != len) fail("{}: scan inputs have different lengths {} and {}", who, len, l);
    len = l;
  }
  if (len < 0) fail("{}: Scan needs at least one scan input", who);
  if (max_len >= 0) len = std::min(len, max_len);
  const size_t K = body.outputs.size() >= N ? body.outputs.size() - N : 0;
  std::vector<std::vector<Tensor>> ys(K);
  for (int64_t t = 0; t < len; ++t) {
    std::vector<Value> in(states.begin(), states.end());
    for (size_t j = 0; j < M; ++j) {
      const bool rev = j < spec.in_dirs.size() && spec.in_dirs[j] != 0;
      in.push_back(take_axis(xs[j], axes[j], rev ? len - 1 - t : t));
    }
    std::vector<Value> out = ctx.subgraphs().run(body, in);
    if (out.size() != N + K) fail("{}: body returned {} values, expected {}", who, out.size(), N + K);
    for (auto& v : out)
      if (!v.is_tensor()) fail("{}: body outputs must be tensors", who);
    for (size_t i = 0; i < N; ++i) states[i] = std::move(out[i].tensor);
    for (size_t k = 0; k < K; ++k) ys[k].push_back(std::move(out[N + k].tensor));
  }
  std::vector<Tensor> result = std::move(states);
  for (size_t k = 0; k < K; ++k) {
    if (k < spec.out_dirs.size() && spec.out_dirs[k] != 0) std::reverse(ys[k].begin(), ys[k].end());
    if (ys[k].empty()) {
      const TypeInfo& et = body.outputs[N + k].type;
      Shape s{0};
      if (et.has_static_shape())
        for (int64_t d : et.static_shape()) s.push_back(d);
      result.push_back(Tensor(et.dtype == DType::Undefined ? DType::Float32 : et.dtype, s));
      continue;
    }
    const int64_t axis = normalize_axis(k < spec.out_axes.size() ? spec.out_axes[k] : 0, ys[k][0].rank() + 1,
                                        ctx.node());
    result.push_back(stack_axis(ys[k], axis, who));
  }
  return result;
}
}  // namespace

void register_op_scan(OpRegistry& r) {
  r.add(OpDef("Scan")
            .inputs(1, -1)
            .outputs(1, -1)
            .trait(kTraitControlFlow)
            .attr("body", AttrType::Graph, true)
            .attr("num_scan_inputs", AttrType::Int, true)
            .attr("scan_input_axes", AttrType::Ints, false)
            .attr("scan_input_directions", AttrType::Ints, false)
            .attr("scan_output_axes", AttrType::Ints, false)
            .attr("scan_output_directions", AttrType::Ints, false)
            .attr("directions", AttrType::Ints, false)  // opset 8
            .infer_fn([](InferContext& ctx) {
              if (ctx.opset() < 9) return;
              const Graph& body = ctx.attr_graph("body");
              const int64_t M = ctx.attr_int("num_scan_inputs");
              if (M < 1 || static_cast<size_t>(M) > ctx.num_inputs()) return;
              const size_t N = ctx.num_inputs() - M;
              for (size_t i = 0; i < N; ++i)
                if (ctx.has_input(i)) ctx.set_output_type(i, ctx.input_type(i));
              // The scan length is the first scan input's dim on its scan axis.
              Dim len;
              const TypeInfo& x0 = ctx.input_type(N);
              if (x0.shape && !x0.shape->empty()) {
                int64_t ax = ctx.has_attr("scan_input_axes") && !ctx.attr_ints("scan_input_axes").empty()
                                 ? ctx.attr_ints("scan_input_axes")[0] : 0;
                const int64_t r = static_cast<int64_t>(x0.shape->size());
                if (ax < 0) ax += r;
                if (ax >= 0 && ax < r) len = (*x0.shape)[ax];
              }
              const std::vector<int64_t> out_axes =
                  ctx.has_attr("scan_output_axes") ? ctx.attr_ints("scan_output_axes") : std::vector<int64_t>{};
              for (size_t k = 0; N + k < body.outputs.size(); ++k) {
                const TypeInfo& et = body.outputs[N + k].type;
                if (et.kind != TypeInfo::Kind::Tensor) continue;
                if (!et.shape) {
                  ctx.set_output_type(N + k, TypeInfo::tensor_unknown_shape(et.dtype));
                  continue;
                }
                std::vector<Dim> dims = *et.shape;
                int64_t ax = k < out_axes.size() ? out_axes[k] : 0;
                if (ax < 0) ax += static_cast<int64_t>(dims.size()) + 1;
                if (ax < 0 || ax > static_cast<int64_t>(dims.size())) continue;
                dims.insert(dims.begin() + ax, len);
                ctx.set_output_type(N + k, TypeInfo::tensor(et.dtype, dims));
              }
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Graph& body = ctx.attr_graph("body");
              const int64_t M = ctx.attr_int("num_scan_inputs");
              ScanSpec spec;
              auto ints = [&](const char* n) { return ctx.has_attr(n) ? ctx.attr_ints(n) : std::vector<int64_t>{}; };
              spec.in_axes = ints("scan_input_axes");
              spec.in_dirs = ints("scan_input_directions");
              spec.out_axes = ints("scan_output_axes");
              spec.out_dirs = ints("scan_output_directions");
              const bool v8 = ctx.opset() < 9;
              const size_t first = v8 ? 1 : 0;  // opset 8: input 0 is sequence_lens
              if (M < 1 || static_cast<size_t>(M) > ctx.num_inputs() - first)
                fail("{}: num_scan_inputs {} does not fit {} inputs", who, M, ctx.num_inputs() - first);
              const size_t N = ctx.num_inputs() - first - M;
              std::vector<Tensor> states, xs;
              for (size_t i = 0; i < N; ++i) states.push_back(ctx.input(first + i));
              for (size_t j = 0; j < static_cast<size_t>(M); ++j) xs.push_back(ctx.input(first + N + j));
              if (!v8) {
                std::vector<Tensor> res = scan_once(ctx, body, states, xs, spec, -1);
                for (size_t i = 0; i < res.size(); ++i) ctx.set_output(i, std::move(res[i]));
                return;
              }
              // Opset 8: axis 0 of every input is the batch, axis 1 the sequence; scan each row.
              spec.in_dirs = ints("directions");
              spec.in_axes.clear();
              spec.out_axes.clear();
              spec.out_dirs.clear();
              const int64_t batch = xs[0].rank() > 0 ? xs[0].dim(0) : 0;
              std::vector<int64_t> lens;
              if (ctx.has_input(0)) lens = ctx.input(0).to_int64_vector();
              std::vector<std::vector<Tensor>> rows;
              for (int64_t b = 0; b < batch; ++b) {
                std::vector<Tensor> st, x;
                for (auto& s : states) st.push_back(take_axis(s, 0, b));
                for (auto& t : xs) {
                  if (t.rank() < 2 || t.dim(0) != batch) fail("{}: scan input {} is not [batch, seq, ...]", who, shape_str(t.shape()));
                  x.push_back(take_axis(t, 0, b));
                }
                const int64_t len = b < static_cast<int64_t>(lens.size()) ? lens[b] : -1;
                if (len >= 0 && len != x[0].dim(0))
                  fail_unsupported("{}: sequence_lens shorter than the sequence is not supported", who);
                rows.push_back(scan_once(ctx, body, st, x, spec, len));
              }
              const size_t n_out = rows.empty() ? 0 : rows[0].size();
              for (size_t i = 0; i < n_out; ++i) {
                std::vector<Tensor> col;
                for (auto& row : rows) col.push_back(row[i]);
                ctx.set_output(i, stack_axis(col, 0, who));
              }
            }));
}

}  // namespace ms
