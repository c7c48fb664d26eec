#include "formats/mindir/mindir_recurrence.h"

#include <algorithm>

#include "formats/mindir/mindir_write_util.h"

namespace ms::mindir {

using namespace wu;

std::string dim_as_scalar(WriteCtx& c, const std::string& ref, const Abstract& type, int64_t axis) {
  if (type.rank_known && axis >= 0 && axis < static_cast<int64_t>(type.dims.size()) && type.dims[axis] >= 0)
    return c.constant_node(MsValue::of_tensor(Tensor::scalar<int64_t>(type.dims[axis])));
  Emit e{c};
  return e.op("Gather", {e.op("TensorShape", {ref}), e.i64(axis), c.constant_node(MsValue::of_int(0))});
}

std::vector<std::string> write_recurrence(WriteCtx& c, const Recurrence& r) {
  Emit e{c};
  const size_t N = r.init.size();
  std::vector<std::string> names{"t"};
  std::vector<Abstract> types{abstract_of(TypeInfo::tensor(DType::Int64, Shape{}))};
  for (size_t j = 0; j < N; ++j) {
    names.push_back("s" + std::to_string(j));
    types.push_back(r.init_types.at(j));
  }
  std::string header = c.function_name(r.base + "_header");
  auto state_ref = [&](size_t k) { return header + ":" + names[k]; };  // as open_function names them

  // body: one step, then the recursive call with the next state and the grown stacks
  std::string body_fn = c.function_name(r.base + "_body");
  c.open_function(body_fn, {}, {});
  std::vector<std::string> state;
  for (size_t j = 0; j < N; ++j) state.push_back(state_ref(1 + j));
  RecurrenceStep s = r.step(state_ref(0), state);
  const size_t K = s.ys.size();
  if (s.next.size() != N || s.y_types.size() != K || (!r.empty.empty() && r.empty.size() != K))
    fail("{}: a loop step does not match its state", label(c));
  for (size_t k = 0; k < K; ++k) names.push_back("acc" + std::to_string(k));
  std::vector<std::string> next{e.op("Add", {state_ref(0), e.i64(1)})};
  next.insert(next.end(), s.next.begin(), s.next.end());
  for (size_t k = 0; k < K; ++k) {
    std::string y = e.op("ExpandDims", {s.ys[k], c.constant_node(MsValue::of_int(0))});
    std::string acc = state_ref(1 + N + k);
    bool front = k < r.prepend.size() && r.prepend[k];
    next.push_back(e.concat(front ? std::vector<std::string>{y, acc} : std::vector<std::string>{acc, y}));
  }
  c.close_function({c.call_value(header, next, Abstract{})}, {Abstract{}});

  // The stacks' types and, unless given, their empty starts from the static element types.
  std::vector<Tensor> empty_consts;
  for (size_t k = 0; k < K; ++k) {
    Abstract a = s.y_types[k];
    if (r.empty.empty()) {
      if (!a.rank_known || a.dtype == DType::Undefined || std::any_of(a.dims.begin(), a.dims.end(), [](int64_t d) { return d < 0; }))
        fail_unsupported("{}: a per-step output needs a static shape to be stacked in MindIR", label(c));
      Shape sh{0};
      sh.insert(sh.end(), a.dims.begin(), a.dims.end());
      empty_consts.emplace_back(a.dtype, sh);
    }
    a.kind = Abstract::Kind::Tensor;
    if (a.rank_known) a.dims.insert(a.dims.begin(), -1);
    types.push_back(a);
  }

  // exit: the final state and the stacks
  std::string exit_fn = c.function_name(r.base + "_exit");
  c.open_function(exit_fn, {}, {});
  std::vector<std::string> results;
  for (size_t k = 1; k < names.size(); ++k) results.push_back(state_ref(k));
  c.close_function(results, std::vector<Abstract>(types.begin() + 1, types.end()));

  // header: go on while t < length
  c.open_function(header, names, types);
  std::string sw = c.call("Switch", {}, {e.op("Less", {state_ref(0), r.length}), body_fn, exit_fn}, Abstract{});
  c.close_function({c.call_value(sw, {}, Abstract{})}, {Abstract{}});

  std::vector<std::string> start{e.i64(0)};
  start.insert(start.end(), r.init.begin(), r.init.end());
  if (r.empty.empty())
    for (auto& t : empty_consts) start.push_back(c.constant_node(MsValue::of_tensor(std::move(t))));
  else
    start.insert(start.end(), r.empty.begin(), r.empty.end());
  std::vector<Abstract> out_types(types.begin() + 1, types.end());
  if (out_types.size() == 1) return {c.call_value(header, start, out_types[0])};
  std::string call = c.call_value(header, start, tuple_abs(out_types));
  std::vector<std::string> outs;
  for (size_t k = 0; k < out_types.size(); ++k) outs.push_back(c.get_item(call, static_cast<int64_t>(k), out_types[k]));
  return outs;
}

}  // namespace ms::mindir
